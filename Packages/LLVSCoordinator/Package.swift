// swift-tools-version: 6.1
// LLVSCoordinator: `StoreCoordinator`, the simplest way to use LLVS in an app. It wraps a
// `Store`, tracks the app's current version across launches, exchanges versions through an
// `Exchange` (one exchange at a time), merges heads with a `MergeArbiter`, uploads snapshots
// by a `SnapshotPolicy` and bootstraps a new replica from one, and publishes the current
// version as an `AsyncStream`.

import PackageDescription

let package = Package(
    name: "LLVSCoordinator",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "LLVSCoordinator", targets: ["LLVSCoordinator"]),
    ],
    dependencies: [
        .package(path: "../LLVSCore"),
        .package(path: "../LLVSZones"),
        .package(path: "../LLVSMerge"),
        .package(path: "../LLVSStore"),
        .package(path: "../LLVSExchange"),
        .package(path: "../LLVSTesting"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        .target(
            name: "LLVSCoordinator",
            dependencies: [
                .product(name: "LLVSSupport", package: "LLVSCore"),
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSZones", package: "LLVSZones"),
                .product(name: "LLVSMerge", package: "LLVSMerge"),
                .product(name: "LLVSStore", package: "LLVSStore"),
                .product(name: "LLVSExchange", package: "LLVSExchange"),
            ]
        ),
        .testTarget(
            name: "LLVSCoordinatorTests",
            dependencies: [
                .product(name: "LLVSSupport", package: "LLVSCore"),
                "LLVSCoordinator",
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSZones", package: "LLVSZones"),
                .product(name: "LLVSStore", package: "LLVSStore"),
                .product(name: "LLVSExchange", package: "LLVSExchange"),
                .product(name: "LLVSExchangeTesting", package: "LLVSExchange"),
                .product(name: "LLVSTesting", package: "LLVSTesting"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ]
)
