// swift-tools-version: 6.1
// LLVS: the umbrella module. `import LLVS` re-exports every LLVS package, so an app
// that wants everything depends on this one product.

import PackageDescription

let package = Package(
    name: "LLVS",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "LLVS", targets: ["LLVS"]),
    ],
    dependencies: [
        .package(path: "../LLVSCore"),
        .package(path: "../LLVSHistory"),
    ],
    targets: [
        .target(
            name: "LLVS",
            dependencies: [
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSHistory", package: "LLVSHistory"),
            ]
        ),
        .testTarget(name: "LLVSTests", dependencies: ["LLVS"]),
    ]
)
