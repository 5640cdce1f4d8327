// swift-tools-version: 6.1
// LLVSKeyValue: `KeyValueDatabase`, the KeyValueCRDT system on top of the versioned store.
// Typed values (text, JSON, blob) under scoped keys, multi-value-register merges (every
// concurrent value kept, through `MultiValueRegisterArbiter`), resolvers, full-text search
// (SQLite FTS5), bulk reads and writes, application identifiers with upgraders, the full
// history of every key, and sync through any exchange.

import PackageDescription

let package = Package(
    name: "LLVSKeyValue",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "LLVSKeyValue", targets: ["LLVSKeyValue"]),
    ],
    dependencies: [
        .package(path: "../LLVSCore"),
        .package(path: "../LLVSZones"),
        .package(path: "../LLVSSQLite"),
        .package(path: "../LLVSMerge"),
        .package(path: "../LLVSStore"),
        .package(path: "../LLVSExchange"),
        .package(path: "../LLVSTesting"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        .target(
            name: "LLVSKeyValue",
            dependencies: [
                .product(name: "LLVSSupport", package: "LLVSCore"),
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSZones", package: "LLVSZones"),
                .product(name: "LLVSSQLite", package: "LLVSSQLite"),
                .product(name: "LLVSMerge", package: "LLVSMerge"),
                .product(name: "LLVSStore", package: "LLVSStore"),
                .product(name: "LLVSExchange", package: "LLVSExchange"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "LLVSKeyValueTests",
            dependencies: [
                "LLVSKeyValue",
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSStore", package: "LLVSStore"),
                .product(name: "LLVSExchange", package: "LLVSExchange"),
                .product(name: "LLVSTesting", package: "LLVSTesting"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ]
)
