// swift-tools-version: 6.1
// LLVS for Swift on Linux — the umbrella package.
//
// Every package under Packages/<Name> is a SwiftPM package of its own that builds and
// tests alone (`swift test --package-path Packages/<Name>`). A package fetched by URL may
// not depend on local packages, so this manifest re-declares each package's library
// target from its sources instead, and offers one product per package plus the umbrella
// product `LLVS` (`import LLVS`). Keep `libraries` below in step with the packages'
// own manifests: same targets, same dependencies, lower packages first.

import PackageDescription

let collections = Target.Dependency.product(name: "HeapModule", package: "swift-collections")
let crypto = Target.Dependency.product(name: "Crypto", package: "swift-crypto")
let argumentParser = Target.Dependency.product(name: "ArgumentParser", package: "swift-argument-parser")
let grdb = Target.Dependency.product(name: "GRDB", package: "GRDB.swift")
let propertyBased = Target.Dependency.product(name: "PropertyBased", package: "swift-property-based")
let logging = Target.Dependency.product(name: "Logging", package: "swift-log")
let hummingbird = Target.Dependency.product(name: "Hummingbird", package: "hummingbird")
let httpClient = Target.Dependency.product(name: "AsyncHTTPClient", package: "async-http-client")
let postgres = Target.Dependency.product(name: "PostgresNIO", package: "postgres-nio")
let nioCore = Target.Dependency.product(name: "NIOCore", package: "swift-nio")
let nioHTTP1 = Target.Dependency.product(name: "NIOHTTP1", package: "swift-nio")
let nioSSL = Target.Dependency.product(name: "NIOSSL", package: "swift-nio-ssl")
let serviceLifecycle = Target.Dependency.product(name: "ServiceLifecycle", package: "swift-service-lifecycle")

/// The libraries of the packages under Packages/, with their dependencies; `package` names
/// the folder when a package has more than one library.
let libraries: [(name: String, dependencies: [Target.Dependency], package: String?)] = [
    ("LLVSCore", [], nil),
    ("LLVSHistory", ["LLVSCore", collections], nil),
    ("LLVSZones", ["LLVSCore", crypto], nil),
    ("LLVSSQLite", ["LLVSCore", "LLVSZones", grdb, crypto], nil),
    ("LLVSMap", ["LLVSCore", "LLVSZones", crypto], nil),
    ("LLVSMerge", ["LLVSCore"], nil),
    ("LLVSStore", ["LLVSCore", "LLVSHistory", "LLVSZones", "LLVSMap", "LLVSMerge", crypto], nil),
    ("LLVSTesting", ["LLVSCore", "LLVSZones"], nil),
    ("LLVSTestingGenerators", ["LLVSCore", "LLVSTesting", propertyBased], "LLVSTesting"),
    ("LLVSStoreTesting", ["LLVSCore", "LLVSZones", "LLVSSQLite", "LLVSStore", "LLVSTesting"], "LLVSStore"),
    ("LLVSExchange", ["LLVSCore", "LLVSHistory", "LLVSZones", "LLVSStore", crypto], nil),
    ("LLVSExchangeTesting", ["LLVSCore", "LLVSExchange", "LLVSStore", "LLVSStoreTesting", "LLVSTesting"], "LLVSExchange"),
    ("LLVSCoordinator", ["LLVSCore", "LLVSZones", "LLVSMerge", "LLVSStore", "LLVSExchange"], nil),
    ("LLVSSyncProtocol", ["LLVSCore", "LLVSExchange"], "LLVSHTTP"),
    ("LLVSSyncStorage", ["LLVSSyncProtocol", "LLVSCore", "LLVSHistory", "LLVSStore", "LLVSExchange", grdb, crypto], "LLVSHTTP"),
    ("LLVSSyncPostgres", ["LLVSSyncProtocol", "LLVSSyncStorage", "LLVSCore", "LLVSExchange", postgres, nioCore, nioSSL, logging], "LLVSHTTP"),
    ("LLVSSyncServer", ["LLVSSyncProtocol", "LLVSSyncStorage", "LLVSCore", "LLVSExchange", hummingbird, serviceLifecycle, nioCore, logging, crypto],
     "LLVSHTTP"),
    ("LLVSHTTPExchange", ["LLVSSyncProtocol", "LLVSCore", "LLVSStore", "LLVSExchange", httpClient, nioCore, nioHTTP1, logging], "LLVSHTTP"),
    ("LLVSKeyValue", ["LLVSCore", "LLVSZones", "LLVSSQLite", "LLVSMerge", "LLVSStore", "LLVSExchange", grdb], nil),
    ("LLVS", ["LLVSCore", "LLVSHistory", "LLVSZones", "LLVSSQLite", "LLVSMap", "LLVSMerge", "LLVSStore", "LLVSExchange", "LLVSCoordinator",
              "LLVSHTTPExchange", "LLVSKeyValue"], nil),
]

let package = Package(
    name: "LLVS",
    platforms: [.macOS(.v14)],
    products: libraries.map { .library(name: $0.name, targets: [$0.name]) } + [
        .executable(name: "llvs", targets: ["llvs"]),
        .executable(name: "llvs-demo", targets: ["llvs-demo"]),
        .executable(name: "the-message", targets: ["the-message"]),
        .executable(name: "loco", targets: ["loco"]),
        .executable(name: "llvs-bench", targets: ["llvs-bench"]),
        .executable(name: "llvs-fuzz", targets: ["llvs-fuzz"]),
        .executable(name: "llvs-server", targets: ["llvs-server"]),
    ],
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
    ],
    targets: libraries.map {
        .target(name: $0.name, dependencies: $0.dependencies, path: "Packages/\($0.package ?? $0.name)/Sources/\($0.name)")
    } + [
        .executableTarget(name: "llvs", dependencies: ["LLVS", "LLVSSyncProtocol", "LLVSSyncStorage", "LLVSSyncServer", argumentParser, logging],
                          path: "Tools/llvs", exclude: ["README.md"]),
        .executableTarget(name: "llvs-server", dependencies: ["LLVSSyncStorage", "LLVSSyncPostgres", "LLVSSyncServer", argumentParser, logging],
                          path: "Tools/llvs-server", exclude: ["README.md"]),
        .executableTarget(name: "llvs-demo", dependencies: ["LLVS"], path: "Tools/llvs-demo"),
        .executableTarget(name: "the-message", dependencies: ["LLVS", argumentParser], path: "Tools/the-message"),
        .executableTarget(name: "loco", dependencies: ["LLVS", argumentParser], path: "Tools/loco"),
        .executableTarget(name: "llvs-bench", dependencies: ["LLVS", "LLVSSyncStorage", "LLVSSyncServer", argumentParser, logging],
                          path: "Tools/llvs-bench"),
        .executableTarget(name: "llvs-fuzz", dependencies: ["LLVSCore", "LLVSTesting", "LLVSStoreTesting", "LLVSExchangeTesting", argumentParser], path: "Tools/llvs-fuzz"),
        .testTarget(name: "LLVSConvergenceTests", dependencies: ["LLVSStoreTesting", "LLVSExchangeTesting", "LLVSTesting", "LLVSTestingGenerators", propertyBased],
                    path: "Tests/LLVSConvergenceTests", exclude: ["Regressions"]),
        .testTarget(name: "LLVSCommandLineTests", dependencies: ["llvs", "llvs-server", "the-message", "loco"], path: "Tests/LLVSCommandLineTests"),
        .testTarget(name: "LLVSEndToEndTests", dependencies: ["LLVS", "LLVSTesting", propertyBased], path: "Tests/LLVSEndToEndTests"),
    ]
)
