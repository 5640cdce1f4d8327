// swift-tools-version: 6.1
// LLVSModel: typed models that merge property by property. `@MergeableModel` structs (or
// hand-written `Mergeable` conformances) are stored one value per instance and merged by
// `MergeableArbiter` with a strategy per property (three-way, counter, set, text, list by
// identifier, dictionary, max, min, multi-value, custom), the same in either merge order.
// Typed save, fetch, remove, fetch-all, changes and a model stream on `Store` and
// `StoreCoordinator`. The macros (LLVSModelMacros, on swift-syntax) come with the `Models`
// trait, so a consumer that writes its conformances by hand never builds swift-syntax.

import CompilerPluginSupport
import PackageDescription

let syntax = ["SwiftSyntax", "SwiftSyntaxBuilder", "SwiftSyntaxMacros", "SwiftDiagnostics", "SwiftCompilerPlugin"].map {
    Target.Dependency.product(name: $0, package: "swift-syntax", condition: .when(traits: ["Models"]))
}

let package = Package(
    name: "LLVSModel",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "LLVSModel", targets: ["LLVSModel"]),
        .library(name: "LLVSModelTesting", targets: ["LLVSModelTesting"]),
    ],
    traits: [
        .trait(name: "Models", description: "The @MergeableModel and @Merged macros (swift-syntax)."),
        .default(enabledTraits: ["Models"]),
    ],
    dependencies: [
        .package(path: "../LLVSCore"),
        .package(path: "../LLVSMerge"),
        .package(path: "../LLVSStore"),
        .package(path: "../LLVSCoordinator"),
        .package(path: "../LLVSExchange"),
        .package(path: "../LLVSTesting"),
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        .macro(name: "LLVSModelMacros", dependencies: syntax),
        .target(
            name: "LLVSModel",
            dependencies: [
                .product(name: "LLVSSupport", package: "LLVSCore"),
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSMerge", package: "LLVSMerge"),
                .product(name: "LLVSStore", package: "LLVSStore"),
                .product(name: "LLVSCoordinator", package: "LLVSCoordinator"),
                .target(name: "LLVSModelMacros", condition: .when(traits: ["Models"])),
            ]
        ),
        .target(
            name: "LLVSModelTesting",
            dependencies: [
                "LLVSModel",
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSStore", package: "LLVSStore"),
                .product(name: "LLVSStoreTesting", package: "LLVSStore"),
                .product(name: "LLVSTesting", package: "LLVSTesting"),
            ]
        ),
        .testTarget(
            name: "LLVSModelTests",
            dependencies: [
                "LLVSModel",
                "LLVSModelTesting",
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSMerge", package: "LLVSMerge"),
                .product(name: "LLVSStore", package: "LLVSStore"),
                .product(name: "LLVSStoreTesting", package: "LLVSStore"),
                .product(name: "LLVSCoordinator", package: "LLVSCoordinator"),
                .product(name: "LLVSExchange", package: "LLVSExchange"),
                .product(name: "LLVSTesting", package: "LLVSTesting"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ]
)
