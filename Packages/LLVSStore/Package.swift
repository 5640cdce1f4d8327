// swift-tools-version: 6.1
// LLVSStore: the versioned store. `Store` composes the history graph, the map index, the
// zones and the merge arbiters: making versions, reading values at any version, diffs,
// three-way (and criss-cross, and two-way) merges with convergent merge identities.

import PackageDescription

let package = Package(
    name: "LLVSStore",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "LLVSStore", targets: ["LLVSStore"]),
        .library(name: "LLVSStoreTesting", targets: ["LLVSStoreTesting"]),
    ],
    dependencies: [
        .package(path: "../LLVSCore"),
        .package(path: "../LLVSHistory"),
        .package(path: "../LLVSZones"),
        .package(path: "../LLVSMap"),
        .package(path: "../LLVSMerge"),
        .package(path: "../LLVSTesting"),
        .package(path: "../LLVSSQLite"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        // Test-only: the verification tests damage an SQLite store's rows directly. Already
        // in the graph through LLVSSQLite.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        .target(
            name: "LLVSStore",
            dependencies: [
                .product(name: "LLVSSupport", package: "LLVSCore"),
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSHistory", package: "LLVSHistory"),
                .product(name: "LLVSZones", package: "LLVSZones"),
                .product(name: "LLVSMap", package: "LLVSMap"),
                .product(name: "LLVSMerge", package: "LLVSMerge"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The store as a replica of the convergence harness (LLVSTesting's
        // ConvergenceSimulation), for these tests, the umbrella's and llvs-fuzz.
        .target(
            name: "LLVSStoreTesting",
            dependencies: [
                "LLVSStore",
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSZones", package: "LLVSZones"),
                .product(name: "LLVSSQLite", package: "LLVSSQLite"),
                .product(name: "LLVSTesting", package: "LLVSTesting"),
            ]
        ),
        // A helper process for the multi-process and crash tests: it writes versions to a
        // store directory and prints each identifier once makeVersion has returned.
        .executableTarget(name: "llvs-store-worker", dependencies: ["LLVSStore", .product(name: "LLVSSQLite", package: "LLVSSQLite")]),
        .testTarget(
            name: "LLVSStoreTests",
            dependencies: [
                .product(name: "LLVSSupport", package: "LLVSCore"),
                "LLVSStore",
                "LLVSStoreTesting",
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSMap", package: "LLVSMap"),
                .product(name: "LLVSZones", package: "LLVSZones"),
                .product(name: "LLVSTesting", package: "LLVSTesting"),
                .product(name: "LLVSTestingGenerators", package: "LLVSTesting"),
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "LLVSSQLite", package: "LLVSSQLite"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            resources: [.copy("Vectors")]
        ),
    ]
)
