// swift-tools-version: 6.1
// LLVS for Swift on Linux — the root package, and the project's one build graph.
//
// Every target of every package under Packages/<Name> (its libraries, test-support
// libraries, worker executables and test targets), the tools under Tools/ and the umbrella
// tests under Tests/ are declared below from one table, `modules`, the way
// swift-collections declares its modules. So `swift build --build-tests` compiles
// everything once and `swift test` runs every test. The packages' own manifests stay, so
// each package still builds and tests alone (`swift test --package-path Packages/<Name>`);
// `Scripts/check-manifests` (no build, seconds) fails when one of them, or the imports of
// any target, disagrees with this table.
//
// Traits keep the heavy dependencies out of a consumer's graph. With the default traits,
// `.product(name: "LLVS", package: …)` gives everything. A consumer that wants one part
// names its product and only the traits that part needs (README.md, "Using LLVS in your
// package"): `LLVSHistory` with no traits resolves swift-collections alone, `LLVSStore` with
// the `Store` trait swift-collections and swift-crypto, and GRDB, the HTTP stack and
// postgres-nio come only with their traits. (SwiftPM resolves every dependency of every
// library and executable target of a package whose traits allow it, whatever product a
// consumer names; only test targets' dependencies are left out.)
//
// `LLVS_BUILD_GRAPH=thread-sanitizer` in the environment declares only the packages whose
// suites Scripts/test runs under the thread sanitizer (the store, the exchanges and the
// coordinator) and what they depend on, so that build compiles no HTTP stack.
// `LLVS_OPTIMIZE_HOT_LIBRARIES=1` (Scripts/test sets it) compiles the four libraries the
// tests spend most of their time in with `-O` (`hotLibraries`, below).

import CompilerPluginSupport
import PackageDescription

// MARK: Traits

/// The traits, each naming the heavy dependencies it brings in.
let traits: Set<Trait> = [
    .trait(name: "Store", description: "The versioned store and what is built on it without other heavy dependencies (swift-crypto): "
           + "LLVSZones, LLVSMap, LLVSStore, LLVSExchange, LLVSEncryption, LLVSCoordinator, LLVSTesting."),
    .trait(name: "SQLite", description: "The SQLite backend and everything built on it (GRDB): LLVSSQLite, LLVSKeyValue, LLVSProjection, LLVSStoreTesting.",
           enabledTraits: ["Store"]),
    .trait(name: "HTTPClient", description: "The HTTP exchange, a client of the sync server, and the WebDAV exchange (AsyncHTTPClient, SwiftNIO): LLVSHTTPExchange, LLVSWebDAV.",
           enabledTraits: ["Store"]),
    .trait(name: "SyncServer", description: "The sync server and its SQLite storage (Hummingbird): LLVSSyncStorage, LLVSSyncServer.",
           enabledTraits: ["SQLite"]),
    .trait(name: "PostgreSQL", description: "The sync server's PostgreSQL storage (postgres-nio): LLVSSyncPostgres.",
           enabledTraits: ["SyncServer"]),
    .trait(name: "Models", description: "The model macros @MergeableModel and @Merged of LLVSModel (swift-syntax). LLVSModel itself needs "
           + "only Store: hand-written Mergeable conformances work without it.", enabledTraits: ["Store"]),
    .trait(name: "TestSupport", description: "Random-history generators for property tests (swift-property-based): LLVSTestingGenerators.",
           enabledTraits: ["Store"]),
    .trait(name: "CommandLineTool", description: "The llvs tool with shared-directory exchanges only (swift-argument-parser): "
           + "what Scripts/demo builds, without the network stack, the server or the model macros (`llvs serve`, store URLs "
           + "and WebDAV folders need HTTPClient and SyncServer).", enabledTraits: ["SQLite"]),
    .trait(name: "Tools", description: "The command-line tools: llvs, llvs-server, llvs-bench, llvs-fuzz and the samples (swift-argument-parser).",
           enabledTraits: ["CommandLineTool", "SQLite", "HTTPClient", "SyncServer", "PostgreSQL", "TestSupport", "Models"]),
    .default(enabledTraits: ["Store", "SQLite", "HTTPClient", "SyncServer", "PostgreSQL", "TestSupport", "Models", "Tools"]),
]

// MARK: External dependencies, each guarded by the trait that needs it

let heap = Target.Dependency.product(name: "HeapModule", package: "swift-collections")
let crypto = Target.Dependency.product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["Store"]))
let cryptoExtras = Target.Dependency.product(name: "_CryptoExtras", package: "swift-crypto", condition: .when(traits: ["Store"]))
let grdb = Target.Dependency.product(name: "GRDB", package: "GRDB.swift", condition: .when(traits: ["SQLite"]))
/// SQLite's C API as GRDB links it: the version log and the search index read columns through it, the
/// SQLite tests register a VFS of their own through it.
let sqliteAPI = Target.Dependency.product(name: "GRDBSQLite", package: "GRDB.swift", condition: .when(traits: ["SQLite"]))
let propertyBased = Target.Dependency.product(name: "PropertyBased", package: "swift-property-based")
let generatorsPropertyBased = Target.Dependency.product(
    name: "PropertyBased", package: "swift-property-based", condition: .when(traits: ["TestSupport"]))
let argumentParser = Target.Dependency.product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["CommandLineTool"]))
let hummingbird = Target.Dependency.product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["SyncServer"]))
let serviceLifecycle = Target.Dependency.product(
    name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["SyncServer"]))
let httpClient = Target.Dependency.product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["HTTPClient"]))
let postgres = Target.Dependency.product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"]))
let hummingbirdCore = Target.Dependency.product(name: "HummingbirdCore", package: "hummingbird", condition: .when(traits: ["SyncServer"]))
let hummingbirdTLS = Target.Dependency.product(name: "HummingbirdTLS", package: "hummingbird", condition: .when(traits: ["SyncServer"]))
let nioHTTPTypes = Target.Dependency.product(name: "NIOHTTPTypes", package: "swift-nio-extras", condition: .when(traits: ["SyncServer"]))
let metrics = Target.Dependency.product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["SyncServer"]))
let prometheus = Target.Dependency.product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: ["SyncServer"]))

/// swift-syntax for the model macros, only with the `Models` trait.
let syntax = ["SwiftSyntax", "SwiftSyntaxBuilder", "SwiftSyntaxMacros", "SwiftDiagnostics", "SwiftCompilerPlugin"].map {
    Target.Dependency.product(name: $0, package: "swift-syntax", condition: .when(traits: ["Models"]))
}
/// The macro plugin, for LLVSModel only with the `Models` trait.
let modelMacros = Target.Dependency.target(name: "LLVSModelMacros", condition: .when(traits: ["Models"]))

/// swift-nio-ssl for the targets that need `trait` (PostgreSQL's TLS, the HTTP client's trust roots).
func nioSSL(_ trait: String) -> Target.Dependency {
    .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: [trait]))
}

/// SwiftNIO's core module for the targets that need `trait`.
func nioCore(_ trait: String) -> Target.Dependency {
    .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: [trait]))
}

/// SwiftNIO's HTTP/1 module for the targets that need `trait`.
func nioHTTP1(_ trait: String) -> Target.Dependency {
    .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: [trait]))
}

/// SwiftNIO's POSIX module for the targets that need `trait` (the HTTP client reads its
/// connection errors).
func nioPosix(_ trait: String) -> Target.Dependency {
    .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: [trait]))
}

/// swift-log for the targets that need `trait`.
func logging(_ trait: String) -> Target.Dependency {
    .product(name: "Logging", package: "swift-log", condition: .when(traits: [trait]))
}

// MARK: Optimized in the test build

/// The libraries `Scripts/test` compiles with `-O` inside its debug build, where the tests
/// spend most of their time: the history graph's searches, the map's diffs, identifiers.
/// Unoptimized, their generic code looks up type metadata at every call (a third of a
/// history property suite's time). Measured on the CI machine, one build: the main test step
/// took 430 s with them unoptimized and 274 s with them optimized, and the build of every
/// module of ours took 302 s and 297 s. `-O` keeps every check the tests rely on
/// (`precondition`, overflow traps); these libraries have no `assert` and no `#if DEBUG`.
let hotLibraries: Set<String> = ["LLVSSupport", "LLVSCore", "LLVSHistory", "LLVSMap"]

/// Whether this build optimizes ``hotLibraries``: only when `LLVS_OPTIMIZE_HOT_LIBRARIES=1`
/// (Scripts/test sets it for its one build of the graph), so a consumer never sees the
/// unsafe flag (SwiftPM refuses unsafe flags in a dependency).
let optimizesHotLibraries = Context.environment["LLVS_OPTIMIZE_HOT_LIBRARIES"] == "1"

// MARK: The table

/// One module of the build graph: where it lives, what kind of target it is and what it
/// depends on.
struct Module {
    /// What a module is for; the kind decides its folder, its target type and its product.
    enum Kind {
        /// A library an app uses: a product, sources in `Packages/<package>/Sources/<name>`.
        case library
        /// A library for tests (conformance suites, random histories, replicas): a product,
        /// sources in `Packages/<package>/Sources/<name>`.
        case testSupport
        /// A compiler plugin of macros (swift-syntax): no product, sources in
        /// `Packages/<package>/Sources/<name>`; the library declaring the macros depends on it.
        case macro
        /// An executable a package's tests start as a child process: no product, sources in
        /// `Packages/<package>/Sources/<name>`.
        case worker
        /// A package's test target: sources in `Packages/<package>/Tests/<name>`.
        case test
        /// A command-line tool: an executable product, sources in `Tools/<name>`.
        case tool
        /// A test target of the root (end-to-end, command-line, convergence): `Tests/<name>`.
        case rootTest
    }

    let name: String
    let kind: Kind
    /// The folder under `Packages/` whose manifest also declares this module; nil for tools
    /// and root tests.
    let package: String?
    /// Modules of this table it depends on, by name.
    let local: [String]
    /// Products of other packages it depends on.
    let external: [Target.Dependency]
    var resources: [Resource]? = nil
    var exclude: [String] = []
    /// Of `local`, the modules it depends on only with a trait (module name: trait), for a
    /// module whose sources import them under `#if TRAIT`.
    var localTraits: [String: String] = [:]

    /// Where its sources are, relative to this file.
    var path: String {
        switch kind {
        case .library, .testSupport, .worker, .macro: return "Packages/\(package ?? name)/Sources/\(name)"
        case .test: return "Packages/\(package ?? name)/Tests/\(name)"
        case .tool: return "Tools/\(name)"
        case .rootTest: return "Tests/\(name)"
        }
    }

    /// The SwiftPM target that declares it.
    var target: Target {
        let dependencies = local.map { name in
            localTraits[name].map { Target.Dependency.target(name: name, condition: .when(traits: [$0])) } ?? .target(name: name)
        } + external
        switch kind {
        case .library, .testSupport:
            return .target(name: name, dependencies: dependencies, path: path, exclude: exclude, resources: resources,
                           swiftSettings: optimizesHotLibraries && hotLibraries.contains(name) ? [.unsafeFlags(["-O"])] : nil)
        case .worker, .tool:
            return .executableTarget(name: name, dependencies: dependencies, path: path, exclude: exclude, resources: resources)
        case .macro:
            return .macro(name: name, dependencies: dependencies, path: path, exclude: exclude)
        case .test, .rootTest:
            return .testTarget(name: name, dependencies: dependencies, path: path, exclude: exclude, resources: resources)
        }
    }

    /// The product that offers it to other packages, if it has one.
    var product: Product? {
        switch kind {
        case .library, .testSupport: return .library(name: name, targets: [name])
        case .tool: return .executable(name: name, targets: [name])
        case .worker, .macro, .test, .rootTest: return nil
        }
    }
}

/// Every module, lower packages first (CONTRIBUTING.md, "Layout and the dependency rule").
let modules: [Module] = [
    // Packages/LLVSCore
    Module(name: "LLVSSupport", kind: .library, package: "LLVSCore", local: ["LLVSCore"], external: []),
    Module(name: "LLVSCore", kind: .library, package: "LLVSCore", local: [], external: []),
    Module(name: "LLVSCoreTests", kind: .test, package: "LLVSCore", local: ["LLVSSupport", "LLVSCore"], external: [propertyBased],
           resources: [.copy("Vectors")]),

    // Packages/LLVSTesting (beside the layers: the test targets of every package use it)
    Module(name: "LLVSTesting", kind: .testSupport, package: "LLVSTesting", local: ["LLVSCore", "LLVSZones"], external: [crypto]),
    Module(name: "LLVSTestingGenerators", kind: .testSupport, package: "LLVSTesting", local: ["LLVSTesting", "LLVSCore"],
           external: [generatorsPropertyBased]),
    Module(name: "LLVSTestingTests", kind: .test, package: "LLVSTesting", local: ["LLVSTesting", "LLVSTestingGenerators", "LLVSCore", "LLVSZones"],
           external: [propertyBased]),

    // Packages/LLVSHistory
    Module(name: "LLVSHistory", kind: .library, package: "LLVSHistory", local: ["LLVSCore"], external: [heap]),
    Module(name: "LLVSHistoryTests", kind: .test, package: "LLVSHistory", local: ["LLVSHistory", "LLVSCore", "LLVSTesting", "LLVSTestingGenerators"],
           external: [propertyBased]),

    // Packages/LLVSZones
    Module(name: "LLVSZones", kind: .library, package: "LLVSZones", local: ["LLVSSupport", "LLVSCore"], external: [crypto]),
    Module(name: "LLVSZonesTests", kind: .test, package: "LLVSZones", local: ["LLVSSupport", "LLVSZones", "LLVSCore", "LLVSTesting"], external: [propertyBased]),

    // Packages/LLVSMerge
    Module(name: "LLVSMerge", kind: .library, package: "LLVSMerge", local: ["LLVSCore"], external: []),
    Module(name: "LLVSMergeTests", kind: .test, package: "LLVSMerge", local: ["LLVSMerge", "LLVSCore"], external: [propertyBased]),

    // Packages/LLVSSQLite
    Module(name: "LLVSSQLite", kind: .library, package: "LLVSSQLite", local: ["LLVSSupport", "LLVSCore", "LLVSZones"], external: [grdb, sqliteAPI, crypto]),
    Module(name: "LLVSSQLiteTests", kind: .test, package: "LLVSSQLite", local: ["LLVSSQLite", "LLVSZones", "LLVSTesting"],
           external: [grdb, sqliteAPI, crypto, propertyBased]),

    // Packages/LLVSMap
    Module(name: "LLVSMap", kind: .library, package: "LLVSMap", local: ["LLVSSupport", "LLVSCore", "LLVSZones"], external: [crypto]),
    Module(name: "LLVSMapTests", kind: .test, package: "LLVSMap", local: ["LLVSSupport", "LLVSMap", "LLVSCore", "LLVSZones", "LLVSTesting"], external: [propertyBased],
           resources: [.copy("Vectors")]),

    // Packages/LLVSStore
    Module(name: "LLVSStore", kind: .library, package: "LLVSStore",
           local: ["LLVSSupport", "LLVSCore", "LLVSHistory", "LLVSZones", "LLVSMap", "LLVSMerge"], external: [crypto]),
    Module(name: "LLVSStoreTesting", kind: .testSupport, package: "LLVSStore",
           local: ["LLVSStore", "LLVSCore", "LLVSZones", "LLVSSQLite", "LLVSTesting"], external: []),
    Module(name: "llvs-store-worker", kind: .worker, package: "LLVSStore", local: ["LLVSStore", "LLVSSQLite"], external: []),
    Module(name: "LLVSStoreTests", kind: .test, package: "LLVSStore",
           local: ["LLVSSupport", "LLVSStore", "LLVSStoreTesting", "LLVSCore", "LLVSMap", "LLVSTesting", "LLVSTestingGenerators", "LLVSSQLite", "LLVSZones"],
           external: [propertyBased, grdb], resources: [.copy("Vectors")]),

    // Packages/LLVSExchange
    Module(name: "LLVSExchange", kind: .library, package: "LLVSExchange",
           local: ["LLVSSupport", "LLVSCore", "LLVSHistory", "LLVSZones", "LLVSStore"], external: [crypto]),
    Module(name: "LLVSExchangeTesting", kind: .testSupport, package: "LLVSExchange",
           local: ["LLVSSupport", "LLVSExchange", "LLVSCore", "LLVSStore", "LLVSStoreTesting", "LLVSTesting"], external: []),
    Module(name: "llvs-exchange-worker", kind: .worker, package: "LLVSExchange", local: ["LLVSExchange", "LLVSStore"], external: []),
    Module(name: "LLVSExchangeTests", kind: .test, package: "LLVSExchange",
           local: ["LLVSSupport", "LLVSExchange", "LLVSExchangeTesting", "LLVSStoreTesting", "LLVSSQLite", "LLVSCore", "LLVSZones", "LLVSMerge",
                   "LLVSStore", "LLVSTesting", "LLVSTestingGenerators"],
           external: [propertyBased]),

    // Packages/LLVSEncryption
    Module(name: "LLVSEncryption", kind: .library, package: "LLVSEncryption",
           local: ["LLVSSupport", "LLVSCore", "LLVSStore", "LLVSExchange"], external: [crypto, cryptoExtras]),
    Module(name: "LLVSEncryptionTesting", kind: .testSupport, package: "LLVSEncryption",
           local: ["LLVSCore", "LLVSMerge", "LLVSStore"], external: []),
    Module(name: "LLVSEncryptionTests", kind: .test, package: "LLVSEncryption",
           local: ["LLVSEncryption", "LLVSEncryptionTesting", "LLVSCore", "LLVSSupport", "LLVSStore", "LLVSStoreTesting", "LLVSExchange", "LLVSExchangeTesting",
                   "LLVSTesting", "LLVSTestingGenerators"],
           external: [crypto, propertyBased]),

    // Packages/LLVSCoordinator
    Module(name: "LLVSCoordinator", kind: .library, package: "LLVSCoordinator",
           local: ["LLVSSupport", "LLVSCore", "LLVSZones", "LLVSMerge", "LLVSStore", "LLVSExchange"], external: []),
    Module(name: "LLVSCoordinatorTests", kind: .test, package: "LLVSCoordinator",
           local: ["LLVSSupport", "LLVSCoordinator", "LLVSCore", "LLVSZones", "LLVSStore", "LLVSExchange", "LLVSExchangeTesting", "LLVSTesting"],
           external: [propertyBased]),

    // Packages/LLVSHTTP
    Module(name: "LLVSSyncProtocol", kind: .library, package: "LLVSHTTP", local: ["LLVSCore"], external: []),
    Module(name: "LLVSSyncStorage", kind: .library, package: "LLVSHTTP",
           local: ["LLVSSupport", "LLVSSyncProtocol", "LLVSCore", "LLVSHistory", "LLVSStore", "LLVSExchange"], external: [grdb, crypto]),
    Module(name: "LLVSSyncPostgres", kind: .library, package: "LLVSHTTP",
           local: ["LLVSSupport", "LLVSSyncProtocol", "LLVSSyncStorage", "LLVSCore", "LLVSExchange"],
           external: [postgres, nioCore("PostgreSQL"), nioSSL("PostgreSQL"), logging("PostgreSQL")]),
    Module(name: "LLVSSyncServer", kind: .library, package: "LLVSHTTP",
           local: ["LLVSSupport", "LLVSSyncProtocol", "LLVSSyncStorage", "LLVSCore", "LLVSExchange"],
           external: [hummingbird, hummingbirdCore, hummingbirdTLS, serviceLifecycle, nioCore("SyncServer"), nioSSL("SyncServer"), logging("SyncServer"), crypto,
                      nioHTTPTypes, metrics, prometheus]),
    Module(name: "LLVSHTTPExchange", kind: .library, package: "LLVSHTTP",
           local: ["LLVSSupport", "LLVSSyncProtocol", "LLVSCore", "LLVSStore", "LLVSExchange", "LLVSEncryption"],
           external: [httpClient, nioCore("HTTPClient"), nioHTTP1("HTTPClient"), nioPosix("HTTPClient"), nioSSL("HTTPClient"), logging("HTTPClient")]),
    Module(name: "LLVSWebDAV", kind: .library, package: "LLVSHTTP",
           local: ["LLVSSupport", "LLVSStore", "LLVSZones", "LLVSExchange", "LLVSHTTPExchange"],
           external: [httpClient, nioCore("HTTPClient"), nioHTTP1("HTTPClient"), logging("HTTPClient")]),
    Module(name: "llvs-http-worker", kind: .worker, package: "LLVSHTTP",
           local: ["LLVSHTTPExchange", "LLVSCore", "LLVSStore", "LLVSExchange"], external: []),
    Module(name: "LLVSHTTPTests", kind: .test, package: "LLVSHTTP",
           local: ["LLVSSupport", "LLVSSyncProtocol", "LLVSSyncStorage", "LLVSSyncPostgres", "LLVSSyncServer", "LLVSHTTPExchange", "LLVSCore",
                   "LLVSStore", "LLVSStoreTesting", "LLVSExchange", "LLVSExchangeTesting", "LLVSTesting", "LLVSTestingGenerators", "LLVSMerge",
                   "LLVSEncryption", "LLVSEncryptionTesting", "LLVSWebDAV"],
           external: [hummingbird, crypto, httpClient, nioCore("HTTPClient"), nioHTTP1("HTTPClient"), logging("HTTPClient"), propertyBased]),

    // Packages/LLVSKeyValue
    Module(name: "LLVSKeyValue", kind: .library, package: "LLVSKeyValue",
           local: ["LLVSSupport", "LLVSCore", "LLVSZones", "LLVSSQLite", "LLVSMerge", "LLVSStore", "LLVSExchange"], external: [grdb, sqliteAPI]),
    Module(name: "LLVSKeyValueTests", kind: .test, package: "LLVSKeyValue",
           local: ["LLVSKeyValue", "LLVSCore", "LLVSStore", "LLVSExchange", "LLVSTesting"], external: [propertyBased]),

    // Packages/LLVSModel
    Module(name: "LLVSModelMacros", kind: .macro, package: "LLVSModel", local: [], external: syntax),
    Module(name: "LLVSModel", kind: .library, package: "LLVSModel",
           local: ["LLVSSupport", "LLVSCore", "LLVSMerge", "LLVSStore", "LLVSCoordinator"], external: [modelMacros]),
    Module(name: "LLVSModelTesting", kind: .testSupport, package: "LLVSModel",
           local: ["LLVSModel", "LLVSCore", "LLVSStore", "LLVSStoreTesting", "LLVSTesting"], external: []),
    Module(name: "LLVSModelTests", kind: .test, package: "LLVSModel",
           local: ["LLVSModel", "LLVSModelTesting", "LLVSCore", "LLVSMerge", "LLVSStore", "LLVSStoreTesting", "LLVSCoordinator", "LLVSExchange",
                   "LLVSTesting"],
           external: [propertyBased]),

    // Packages/LLVS: the umbrella module
    Module(name: "LLVSProjection", kind: .library, package: "LLVSProjection",
           local: ["LLVSSupport", "LLVSCore", "LLVSStore", "LLVSCoordinator", "LLVSModel"], external: [grdb]),
    Module(name: "llvs-projection-worker", kind: .worker, package: "LLVSProjection",
           local: ["LLVSProjection", "LLVSCore", "LLVSStore", "LLVSStoreTesting", "LLVSModel"], external: []),
    Module(name: "LLVSProjectionTests", kind: .test, package: "LLVSProjection",
           local: ["LLVSProjection", "LLVSCore", "LLVSStore", "LLVSStoreTesting", "LLVSCoordinator", "LLVSModel", "LLVSTesting"],
           external: [grdb, propertyBased]),

    Module(name: "LLVS", kind: .library, package: "LLVS",
           local: ["LLVSCore", "LLVSHistory", "LLVSZones", "LLVSSQLite", "LLVSMerge", "LLVSStore", "LLVSExchange",
                   "LLVSEncryption", "LLVSCoordinator", "LLVSHTTPExchange", "LLVSWebDAV", "LLVSKeyValue", "LLVSModel", "LLVSProjection"],
           external: [], localTraits: ["LLVSHTTPExchange": "HTTPClient", "LLVSWebDAV": "HTTPClient"]),
    Module(name: "LLVSTests", kind: .test, package: "LLVS", local: ["LLVS"], external: [propertyBased]),

    // Tools/
    // The llvs tool builds with CommandLineTool alone too (Scripts/demo): `serve` needs
    // SyncServer, store URLs and WebDAV folders HTTPClient (`#if` in its sources).
    Module(name: "llvs", kind: .tool, package: nil, local: ["LLVSSupport", "LLVS", "LLVSSyncProtocol", "LLVSSyncStorage", "LLVSSyncServer"],
           external: [argumentParser, logging("HTTPClient"), grdb, httpClient], exclude: ["README.md"],
           localTraits: ["LLVSSyncStorage": "SyncServer", "LLVSSyncServer": "SyncServer"]),
    Module(name: "llvs-server", kind: .tool, package: nil, local: ["LLVSSyncStorage", "LLVSSyncPostgres", "LLVSSyncServer"],
           external: [argumentParser, logging("Tools")], exclude: ["README.md", "DEPLOYMENT.md", "deploy"]),
    Module(name: "llvs-demo", kind: .tool, package: nil, local: ["LLVS"], external: []),
    Module(name: "the-message", kind: .tool, package: nil, local: ["LLVS"], external: [argumentParser]),
    Module(name: "loco", kind: .tool, package: nil, local: ["LLVS"], external: [argumentParser]),
    Module(name: "llvs-bench", kind: .tool, package: nil, local: ["LLVS", "LLVSMap", "LLVSSyncStorage", "LLVSSyncServer"],
           external: [argumentParser, logging("Tools"), grdb]),
    Module(name: "llvs-fuzz", kind: .tool, package: nil, local: ["LLVSSupport", "LLVSCore", "LLVSTesting", "LLVSStoreTesting", "LLVSExchangeTesting", "LLVSModelTesting"],
           external: [argumentParser]),

    // Tests/
    Module(name: "LLVSConvergenceTests", kind: .rootTest, package: nil,
           local: ["LLVSStoreTesting", "LLVSExchangeTesting", "LLVSTesting", "LLVSTestingGenerators", "LLVSCore", "LLVSZones"], external: [propertyBased],
           exclude: ["Regressions"]),
    Module(name: "LLVSCommandLineTests", kind: .rootTest, package: nil,
           local: ["llvs", "llvs-server", "the-message", "loco", "LLVSCore", "LLVSStore", "LLVSExchange", "LLVSHTTPExchange", "LLVSExchangeTesting",
                   "LLVSTesting"],
           external: [httpClient, nioCore("HTTPClient")]),
    Module(name: "LLVSEndToEndTests", kind: .rootTest, package: nil, local: ["LLVS", "LLVSTesting"], external: [propertyBased, crypto]),
]

// MARK: The graph this build declares

/// The packages whose suites run under the thread sanitizer (Scripts/test).
let threadSanitizerPackages: Set<String> = ["LLVSStore", "LLVSExchange", "LLVSCoordinator"]

/// The modules of this build: all of them, or for `LLVS_BUILD_GRAPH=thread-sanitizer` the
/// modules of `threadSanitizerPackages` and everything they depend on.
let declared: [Module] = {
    guard Context.environment["LLVS_BUILD_GRAPH"] == "thread-sanitizer" else { return modules }
    let byName = Dictionary(uniqueKeysWithValues: modules.map { ($0.name, $0) })
    var needed = Set<String>()
    var pending = modules.filter { $0.package.map(threadSanitizerPackages.contains) ?? false }.map(\.name)
    while let name = pending.popLast() {
        guard needed.insert(name).inserted, let module = byName[name] else { continue }
        pending += module.local
    }
    return modules.filter { needed.contains($0.name) }
}()

let package = Package(
    name: "LLVS",
    platforms: [.macOS(.v14)],
    products: declared.compactMap(\.product),
    traits: traits,
    dependencies: [
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
    ],
    targets: declared.map(\.target)
)

// The documentation plugin, only for `Scripts/docs` (which sets LLVS_DOCS=1): a consumer of
// this package never resolves it, and neither does an ordinary build.
if Context.environment["LLVS_DOCS"] == "1" {
    package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"))
}
