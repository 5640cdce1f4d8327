// swift-tools-version: 6.1
// LLVSMerge: merges and merge arbiters. `Merge` describes a merge; a `MergeArbiter`
// resolves its conflicts. Arbiters read through the narrow `MergeContext` protocol, so they
// are testable without a store; the store passes itself (or `AnyMergeContext`).

import PackageDescription

let package = Package(
    name: "LLVSMerge",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "LLVSMerge", targets: ["LLVSMerge"]),
    ],
    dependencies: [
        .package(path: "../LLVSCore"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        .target(
            name: "LLVSMerge",
            dependencies: [.product(name: "LLVSCore", package: "LLVSCore")]
        ),
        .testTarget(
            name: "LLVSMergeTests",
            dependencies: [
                "LLVSMerge",
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ]
)
