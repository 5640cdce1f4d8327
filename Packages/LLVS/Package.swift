// swift-tools-version: 6.1
// LLVS: the umbrella module. `import LLVS` re-exports every LLVS package an app uses, so
// an app that wants everything depends on this one product.

import PackageDescription

let package = Package(
    name: "LLVS",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "LLVS", targets: ["LLVS"]),
    ],
    // As in the root manifest: the umbrella re-exports the HTTP and WebDAV exchanges only
    // with this trait (`#if HTTPClient` in LLVS.swift), on by default.
    traits: [
        .trait(name: "HTTPClient", description: "Re-export LLVSHTTPExchange and LLVSWebDAV."),
        .default(enabledTraits: ["HTTPClient"]),
    ],
    dependencies: [
        .package(path: "../LLVSCore"),
        .package(path: "../LLVSHistory"),
        .package(path: "../LLVSZones"),
        .package(path: "../LLVSMerge"),
        .package(path: "../LLVSStore"),
        .package(path: "../LLVSExchange"),
        .package(path: "../LLVSEncryption"),
        .package(path: "../LLVSCoordinator"),
        .package(path: "../LLVSSQLite"),
        .package(path: "../LLVSHTTP"),
        .package(path: "../LLVSKeyValue"),
        .package(path: "../LLVSModel"),
        .package(path: "../LLVSProjection"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        .target(
            name: "LLVS",
            dependencies: [
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSHistory", package: "LLVSHistory"),
                .product(name: "LLVSZones", package: "LLVSZones"),
                .product(name: "LLVSMerge", package: "LLVSMerge"),
                .product(name: "LLVSStore", package: "LLVSStore"),
                .product(name: "LLVSExchange", package: "LLVSExchange"),
                .product(name: "LLVSEncryption", package: "LLVSEncryption"),
                .product(name: "LLVSCoordinator", package: "LLVSCoordinator"),
                .product(name: "LLVSSQLite", package: "LLVSSQLite"),
                .product(name: "LLVSHTTPExchange", package: "LLVSHTTP", condition: .when(traits: ["HTTPClient"])),
                .product(name: "LLVSWebDAV", package: "LLVSHTTP", condition: .when(traits: ["HTTPClient"])),
                .product(name: "LLVSKeyValue", package: "LLVSKeyValue"),
                .product(name: "LLVSModel", package: "LLVSModel"),
                .product(name: "LLVSProjection", package: "LLVSProjection"),
            ]
        ),
        .testTarget(
            name: "LLVSTests",
            dependencies: ["LLVS", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
    ]
)
