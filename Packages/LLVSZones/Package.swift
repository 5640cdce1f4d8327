// swift-tools-version: 6.1
// LLVSZones: where a store's bytes live. The `Zone`, `VersionLog` and `Storage`
// protocols, an in-memory backend, and the default file backend (append-only pack files
// written atomically, per-process version log segments, safe for several processes).

import PackageDescription

let package = Package(
    name: "LLVSZones",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "LLVSZones", targets: ["LLVSZones"]),
    ],
    dependencies: [
        .package(path: "../LLVSCore"),
        .package(path: "../LLVSTesting"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        .target(
            name: "LLVSZones",
            dependencies: [
                .product(name: "LLVSSupport", package: "LLVSCore"),
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "LLVSZonesTests",
            dependencies: [
                .product(name: "LLVSSupport", package: "LLVSCore"),
                "LLVSZones",
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSTesting", package: "LLVSTesting"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ]
)
