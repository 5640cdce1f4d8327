// swift-tools-version: 6.1
// LLVSHistory: the in-memory version DAG — heads, ancestry, merge bases (all best
// common ancestors) and topological order, with generation numbers so queries cost the
// region between the versions involved, not the whole history.

import PackageDescription

let package = Package(
    name: "LLVSHistory",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "LLVSHistory", targets: ["LLVSHistory"]),
    ],
    dependencies: [
        .package(path: "../LLVSCore"),
        .package(path: "../LLVSTesting"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        .target(
            name: "LLVSHistory",
            dependencies: [
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "HeapModule", package: "swift-collections"),
            ]
        ),
        .testTarget(
            name: "LLVSHistoryTests",
            dependencies: [
                "LLVSHistory",
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSTesting", package: "LLVSTesting"),
                .product(name: "LLVSTestingGenerators", package: "LLVSTesting"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ]
)
