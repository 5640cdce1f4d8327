// swift-tools-version: 6.1
// LLVSExchange: moving versions between stores. The `Exchange` protocol and its sync
// algorithm (cursors, byte-bounded batches, predecessor-first addition, resumable),
// `FileSystemExchange` (a shared directory), `MemoryExchange` (in-process), and snapshots
// (`SnapshotExchange`, `SnapshotManifest`, `SnapshotPolicy`).

import PackageDescription

let package = Package(
    name: "LLVSExchange",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "LLVSExchange", targets: ["LLVSExchange"]),
        .library(name: "LLVSExchangeTesting", targets: ["LLVSExchangeTesting"]),
    ],
    dependencies: [
        .package(path: "../LLVSCore"),
        .package(path: "../LLVSHistory"),
        .package(path: "../LLVSZones"),
        .package(path: "../LLVSMerge"),
        .package(path: "../LLVSStore"),
        .package(path: "../LLVSTesting"),
        .package(path: "../LLVSSQLite"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        .target(
            name: "LLVSExchange",
            dependencies: [
                .product(name: "LLVSSupport", package: "LLVSCore"),
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSHistory", package: "LLVSHistory"),
                .product(name: "LLVSZones", package: "LLVSZones"),
                .product(name: "LLVSStore", package: "LLVSStore"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The store as a convergence-harness replica that exchanges through the real
        // exchange path, for the umbrella's convergence tests and llvs-fuzz.
        .target(
            name: "LLVSExchangeTesting",
            dependencies: [
                .product(name: "LLVSSupport", package: "LLVSCore"),
                "LLVSExchange",
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSStore", package: "LLVSStore"),
                .product(name: "LLVSStoreTesting", package: "LLVSStore"),
                .product(name: "LLVSTesting", package: "LLVSTesting"),
            ]
        ),
        // A helper process for the multi-process and crash tests: it makes versions in its
        // own store and sends them to a shared directory, printing progress.
        .executableTarget(
            name: "llvs-exchange-worker",
            dependencies: ["LLVSExchange", .product(name: "LLVSStore", package: "LLVSStore")]
        ),
        .testTarget(
            name: "LLVSExchangeTests",
            dependencies: [
                .product(name: "LLVSSupport", package: "LLVSCore"),
                "LLVSExchange",
                "LLVSExchangeTesting",
                .product(name: "LLVSStoreTesting", package: "LLVSStore"),
                .product(name: "LLVSSQLite", package: "LLVSSQLite"),
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSZones", package: "LLVSZones"),
                .product(name: "LLVSMerge", package: "LLVSMerge"),
                .product(name: "LLVSStore", package: "LLVSStore"),
                .product(name: "LLVSTesting", package: "LLVSTesting"),
                .product(name: "LLVSTestingGenerators", package: "LLVSTesting"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ]
)
