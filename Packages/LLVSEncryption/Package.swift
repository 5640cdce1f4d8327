// swift-tools-version: 6.1
// LLVSEncryption: end-to-end encrypted sync. `EncryptedExchange` wraps any exchange (a
// shared directory, the sync server, memory) so that the other side holds one sealed,
// padded blob per version, named by a keyed MAC of the version's identifier: no
// identifier, predecessor, timestamp, metadata key or value byte leaves the device in the
// clear. Keys come from a store key (`StoreEncryptionKey`) through HKDF (swift-crypto).

import PackageDescription

let package = Package(
    name: "LLVSEncryption",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "LLVSEncryption", targets: ["LLVSEncryption"]),
        .library(name: "LLVSEncryptionTesting", targets: ["LLVSEncryptionTesting"]),
    ],
    dependencies: [
        .package(path: "../LLVSCore"),
        .package(path: "../LLVSMerge"),
        .package(path: "../LLVSStore"),
        .package(path: "../LLVSExchange"),
        .package(path: "../LLVSTesting"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        .target(
            name: "LLVSEncryption",
            dependencies: [
                .product(name: "LLVSSupport", package: "LLVSCore"),
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSStore", package: "LLVSStore"),
                .product(name: "LLVSExchange", package: "LLVSExchange"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // The leak check every transport's tests run: a distinctive corpus, the bytes that
        // would betray it, and a search of files and dumps for them.
        .target(
            name: "LLVSEncryptionTesting",
            dependencies: [
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSMerge", package: "LLVSMerge"),
                .product(name: "LLVSStore", package: "LLVSStore"),
            ]
        ),
        .testTarget(
            name: "LLVSEncryptionTests",
            dependencies: [
                "LLVSEncryption",
                "LLVSEncryptionTesting",
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSSupport", package: "LLVSCore"),
                .product(name: "LLVSStore", package: "LLVSStore"),
                .product(name: "LLVSExchange", package: "LLVSExchange"),
                .product(name: "LLVSExchangeTesting", package: "LLVSExchange"),
                .product(name: "LLVSStoreTesting", package: "LLVSStore"),
                .product(name: "LLVSTesting", package: "LLVSTesting"),
                .product(name: "LLVSTestingGenerators", package: "LLVSTesting"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ]
)
