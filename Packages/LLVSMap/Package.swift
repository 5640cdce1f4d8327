// swift-tools-version: 6.1
// LLVSMap: the map index — which value references exist at each version — as a canonical,
// content-addressed hash trie with structural sharing. Writing k changes costs
// O(k log n) node writes; diffs and three-way fork classification cost O(changes × log n).

import PackageDescription

let package = Package(
    name: "LLVSMap",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "LLVSMap", targets: ["LLVSMap"]),
    ],
    dependencies: [
        .package(path: "../LLVSCore"),
        .package(path: "../LLVSZones"),
        .package(path: "../LLVSTesting"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        .target(
            name: "LLVSMap",
            dependencies: [
                .product(name: "LLVSSupport", package: "LLVSCore"),
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSZones", package: "LLVSZones"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "LLVSMapTests",
            dependencies: [
                .product(name: "LLVSSupport", package: "LLVSCore"),
                "LLVSMap",
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSZones", package: "LLVSZones"),
                .product(name: "LLVSTesting", package: "LLVSTesting"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            resources: [.copy("Vectors")]
        ),
    ]
)
