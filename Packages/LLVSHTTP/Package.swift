// swift-tools-version: 6.1
// LLVSHTTP: exchanging versions over HTTP. The sync server's protocol (`LLVSSyncProtocol`),
// its storage (`LLVSSyncStorage`: SQLite through GRDB, and a live store for peer to peer;
// `LLVSSyncPostgres`: PostgreSQL through postgres-nio), the server itself (`LLVSSyncServer`,
// Hummingbird 2) and the client exchange (`LLVSHTTPExchange`, AsyncHTTPClient).

import PackageDescription

let package = Package(
    name: "LLVSHTTP",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "LLVSSyncProtocol", targets: ["LLVSSyncProtocol"]),
        .library(name: "LLVSSyncStorage", targets: ["LLVSSyncStorage"]),
        .library(name: "LLVSSyncPostgres", targets: ["LLVSSyncPostgres"]),
        .library(name: "LLVSSyncServer", targets: ["LLVSSyncServer"]),
        .library(name: "LLVSHTTPExchange", targets: ["LLVSHTTPExchange"]),
        .library(name: "LLVSWebDAV", targets: ["LLVSWebDAV"]),
    ],
    dependencies: [
        .package(path: "../LLVSCore"),
        .package(path: "../LLVSHistory"),
        .package(path: "../LLVSMerge"),
        .package(path: "../LLVSStore"),
        .package(path: "../LLVSZones"),
        .package(path: "../LLVSExchange"),
        .package(path: "../LLVSEncryption"),
        .package(path: "../LLVSTesting"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        .target(
            name: "LLVSSyncProtocol",
            dependencies: [
                .product(name: "LLVSCore", package: "LLVSCore"),
            ]
        ),
        .target(
            name: "LLVSSyncStorage",
            dependencies: [
                .product(name: "LLVSSupport", package: "LLVSCore"),
                "LLVSSyncProtocol",
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSHistory", package: "LLVSHistory"),
                .product(name: "LLVSStore", package: "LLVSStore"),
                .product(name: "LLVSExchange", package: "LLVSExchange"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "LLVSSyncPostgres",
            dependencies: [
                "LLVSSyncProtocol",
                "LLVSSyncStorage",
                .product(name: "LLVSSupport", package: "LLVSCore"),
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSExchange", package: "LLVSExchange"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "LLVSSyncServer",
            dependencies: [
                .product(name: "LLVSSupport", package: "LLVSCore"),
                "LLVSSyncProtocol",
                "LLVSSyncStorage",
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSExchange", package: "LLVSExchange"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .target(
            name: "LLVSHTTPExchange",
            dependencies: [
                .product(name: "LLVSSupport", package: "LLVSCore"),
                .product(name: "LLVSEncryption", package: "LLVSEncryption"),
                "LLVSSyncProtocol",
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSStore", package: "LLVSStore"),
                .product(name: "LLVSExchange", package: "LLVSExchange"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // A helper process for the kill tests: it makes versions in its own store and pushes
        // them to a server in small batches, printing each batch, until it is killed.
        // The directory exchange's formats over WebDAV (Nextcloud, ownCloud, Apache, rclone).
        .target(
            name: "LLVSWebDAV",
            dependencies: [
                .product(name: "LLVSSupport", package: "LLVSCore"),
                .product(name: "LLVSStore", package: "LLVSStore"),
                .product(name: "LLVSZones", package: "LLVSZones"),
                .product(name: "LLVSExchange", package: "LLVSExchange"),
                "LLVSHTTPExchange",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "llvs-http-worker",
            dependencies: [
                "LLVSHTTPExchange",
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSStore", package: "LLVSStore"),
                .product(name: "LLVSExchange", package: "LLVSExchange"),
            ]
        ),
        .testTarget(
            name: "LLVSHTTPTests",
            dependencies: [
                .product(name: "LLVSSupport", package: "LLVSCore"),
                "LLVSSyncProtocol",
                "LLVSSyncStorage",
                "LLVSSyncPostgres",
                "LLVSSyncServer",
                "LLVSHTTPExchange",
                .product(name: "LLVSCore", package: "LLVSCore"),
                .product(name: "LLVSStore", package: "LLVSStore"),
                .product(name: "LLVSStoreTesting", package: "LLVSStore"),
                .product(name: "LLVSExchange", package: "LLVSExchange"),
                .product(name: "LLVSExchangeTesting", package: "LLVSExchange"),
                .product(name: "LLVSTesting", package: "LLVSTesting"),
                .product(name: "LLVSTestingGenerators", package: "LLVSTesting"),
                .product(name: "LLVSMerge", package: "LLVSMerge"),
                .product(name: "LLVSEncryption", package: "LLVSEncryption"),
                .product(name: "LLVSEncryptionTesting", package: "LLVSEncryption"),
                "LLVSWebDAV",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ]
)
