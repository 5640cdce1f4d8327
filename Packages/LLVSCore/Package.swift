// swift-tools-version: 6.1
// LLVSCore: the vocabulary every other LLVS package speaks — values, versions,
// changes, forks, branches and their documented Codable (on-disk and wire) forms.
// It depends on nothing but Foundation.

import PackageDescription

let package = Package(
    name: "LLVSCore",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "LLVSCore", targets: ["LLVSCore"]),
        // Helpers the other packages share (locks, hex, binary coding, parallel parts),
        // a module of its own so that `import LLVS` does not export them.
        .library(name: "LLVSSupport", targets: ["LLVSSupport"]),
    ],
    dependencies: [
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        .target(name: "LLVSSupport", dependencies: ["LLVSCore"]),
        .target(name: "LLVSCore"),
        .testTarget(
            name: "LLVSCoreTests",
            dependencies: [
                "LLVSSupport",
                "LLVSCore",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            resources: [.copy("Vectors")]
        ),
    ]
)
