// swift-tools-version: 6.1
// LLVSTesting: test support shared by every LLVS package — conformance suites that every
// zone backend runs, a reference model (the oracle for merges), random-history
// generators and the convergence simulator behind the fuzz properties.

import PackageDescription

let package = Package(
    name: "LLVSTesting",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "LLVSTesting", targets: ["LLVSTesting"]),
        .library(name: "LLVSTestingGenerators", targets: ["LLVSTestingGenerators"]),
    ],
    dependencies: [
        .package(path: "../LLVSCore"),
        .package(path: "../LLVSZones"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        .target(
            name: "LLVSTesting",
            dependencies: [
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSZones", package: "LLVSZones"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // swift-property-based generators of random histories (this target links
        // swift-testing through PropertyBased, so tools use LLVSTesting alone).
        .target(
            name: "LLVSTestingGenerators",
            dependencies: [
                "LLVSTesting",
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "LLVSTestingTests",
            dependencies: [
                "LLVSTesting",
                "LLVSTestingGenerators",
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSZones", package: "LLVSZones"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ]
)
