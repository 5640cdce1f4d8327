// swift-tools-version: 6.1
// LLVSProjection: SQL over the current version. A store's models projected into SQLite
// tables (GRDB) — a column per property, indexes and FTS5 where the schema says — kept
// current from version diffs as the coordinator's version moves, the tables and the
// version they show committed together; a schema change, a damaged file or missing tables
// rebuild from the store. Typed queries, and observed queries that yield anew whenever the
// projected version moves.

import PackageDescription

let package = Package(
    name: "LLVSProjection",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "LLVSProjection", targets: ["LLVSProjection"]),
    ],
    dependencies: [
        .package(path: "../LLVSCore"),
        .package(path: "../LLVSStore"),
        .package(path: "../LLVSCoordinator"),
        .package(path: "../LLVSModel"),
        .package(path: "../LLVSTesting"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        .target(
            name: "LLVSProjection",
            dependencies: [
                .product(name: "LLVSSupport", package: "LLVSCore"),
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSStore", package: "LLVSStore"),
                .product(name: "LLVSCoordinator", package: "LLVSCoordinator"),
                .product(name: "LLVSModel", package: "LLVSModel"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .executableTarget(
            name: "llvs-projection-worker",
            dependencies: [
                "LLVSProjection",
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSStore", package: "LLVSStore"),
                .product(name: "LLVSStoreTesting", package: "LLVSStore"),
                .product(name: "LLVSModel", package: "LLVSModel"),
            ]
        ),
        .testTarget(
            name: "LLVSProjectionTests",
            dependencies: [
                "LLVSProjection",
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSStore", package: "LLVSStore"),
                .product(name: "LLVSStoreTesting", package: "LLVSStore"),
                .product(name: "LLVSCoordinator", package: "LLVSCoordinator"),
                .product(name: "LLVSModel", package: "LLVSModel"),
                .product(name: "LLVSTesting", package: "LLVSTesting"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ]
)
