// swift-tools-version: 6.1
// LLVSTesting: test support shared by every LLVS package — conformance suites that every
// zone backend runs, a reference model (the oracle for merges), and random-history
// generators.

import PackageDescription

let package = Package(
    name: "LLVSTesting",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "LLVSTesting", targets: ["LLVSTesting"]),
    ],
    dependencies: [
        .package(path: "../LLVSCore"),
        .package(path: "../LLVSZones"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        .target(
            name: "LLVSTesting",
            dependencies: [
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSZones", package: "LLVSZones"),
            ]
        ),
        .testTarget(
            name: "LLVSTestingTests",
            dependencies: ["LLVSTesting", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
    ]
)
