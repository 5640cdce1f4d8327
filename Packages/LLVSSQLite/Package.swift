// swift-tools-version: 6.1
// LLVSSQLite: the SQLite storage backend, built on GRDB. One database file per store
// (WAL mode: concurrent readers, one writer at a time across processes), holding the
// value zone, the map zone and the version log in tables.

import PackageDescription

let package = Package(
    name: "LLVSSQLite",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "LLVSSQLite", targets: ["LLVSSQLite"]),
    ],
    dependencies: [
        .package(path: "../LLVSCore"),
        .package(path: "../LLVSZones"),
        .package(path: "../LLVSTesting"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        .target(
            name: "LLVSSQLite",
            dependencies: [
                .product(name: "LLVSSupport", package: "LLVSCore"),
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSZones", package: "LLVSZones"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "LLVSSQLiteTests",
            dependencies: [
                "LLVSSQLite",
                .product(name: "LLVSZones", package: "LLVSZones"),
                .product(name: "LLVSTesting", package: "LLVSTesting"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ]
)
