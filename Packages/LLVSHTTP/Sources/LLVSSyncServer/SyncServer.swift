import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import LLVSCore
import LLVSSyncStorage
import NIOCore
import NIOSSL

/// The LLVS sync server: the HTTP API of SPEC.md section 15 over a `SyncStorage`. It
/// plays the role CloudKit plays for LLVS on Apple platforms; `HTTPExchange` is its client.
///
/// ```swift
/// let storage = try SQLiteSyncStorage(fileURL: URL(fileURLWithPath: "server.sqlite"))
/// let tokens = try AccessTokens(["notes": ["a-long-random-token-0001"]])
/// let server = SyncServer(storage: storage, configuration: .init(port: 7420, accessTokens: tokens))
/// try await server.run()   // until SIGINT/SIGTERM, or until the task is cancelled
/// ```
///
/// It applies the limits of its ``SyncServerConfiguration``: header, idle and request
/// timeouts, a cap on connections and on the memory of concurrent request bodies (503
/// `overloaded` with `Retry-After` over either), optional TLS, and `GET /metrics`.
public struct SyncServer: Sendable {
    /// The version of the server (`llvs-server --version`).
    public static let version = LLVSRelease.version

    /// Where the stores are kept.
    public let storage: any SyncStorage
    /// How the server listens and what it accepts.
    public let configuration: SyncServerConfiguration

    /// Creates a server; nothing listens until ``run(handlingSignals:onListening:)``.
    public init(storage: any SyncStorage, configuration: SyncServerConfiguration) {
        self.storage = storage
        self.configuration = configuration
    }

    /// Serves until the task is cancelled or, with `handlingSignals`, until SIGINT or
    /// SIGTERM; in-flight requests are finished first.
    ///
    /// - Parameters:
    ///   - handlingSignals: Shut down gracefully on SIGINT and SIGTERM (for a process).
    ///   - onListening: Called with the bound port once the server accepts connections.
    /// - Throws: ``SyncServerError`` when the TLS files cannot be used; an error of SwiftNIO
    ///   when the address cannot be bound.
    public func run(handlingSignals: Bool = false, onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let logger = configuration.logger
        let exposition = PrometheusExposition()
        let metrics = exposition.makeMetrics()
        let limits = EffectiveConnectionLimits(configuration: configuration, openFileLimit: OpenFileLimit.current().soft)
        if limits.maximumConnectionCount < configuration.maximumConnectionCount {
            logger.warning("the open-file limit lowers the connection cap", metadata: [
                "requested": "\(configuration.maximumConnectionCount)", "cap": "\(limits.maximumConnectionCount)",
                "openFileLimit": "\(OpenFileLimit.current().soft)"])
        }
        let feed = configuration.changeFeed ?? storage.makeChangeFeed()
        let hub = LongPollHub(storage: storage)
        let routes = SyncRoutes(storage: storage, configuration: configuration, hub: hub, feed: feed,
                                metrics: metrics, exposition: exposition)
        let router = Router()
        router.add(middleware: RequestMiddleware(
            budget: BodyBudget(capacity: max(configuration.maximumConcurrentBodyByteCount, configuration.maximumBodyByteCount), metrics: metrics),
            metrics: metrics, maximumBodyByteCount: configuration.maximumBodyByteCount,
            retryAfterSeconds: configuration.retryAfterSeconds))
        router.add(middleware: LogRequestsMiddleware(.debug))
        routes.register(on: router)

        let gate = ConnectionGate(maximum: limits.maximumConnectionCount, metrics: metrics)
        let configuration = self.configuration
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [ConnectionGuardHandler(gate: gate, configuration: configuration, metrics: metrics)],
            idleTimeout: TimeAmount(configuration.idleTimeout))
        var server = HTTPServerBuilder.http1(configuration: http1)
        if let tls = configuration.tls {
            server = try HTTPServerBuilder.tls(.http1(configuration: http1), tlsConfiguration: try Self.tlsConfiguration(tls))
        }
        let storageKind = storage.kind
        let scheme = configuration.tls == nil ? "http" : "https"
        let app = Application(
            router: router,
            server: server,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "llvs-server",
                                 availableConnectionsDelegate: .maximum(limits.acceptedConnectionCount, logger: logger)),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                logger.info("listening", metadata: ["port": "\(port)", "storage": "\(storageKind)", "scheme": "\(scheme)", "changeFeed": "\(feed.kind)",
                                                    "connections": "\(limits.maximumConnectionCount)"])
                await onListening(port)
            },
            logger: logger)
        // The change feed and the storage polls for waiting clients run beside the server.
        let watching = Task { await hub.run(feed: feed, pollInterval: configuration.storagePollInterval, logger: logger) }
        defer { watching.cancel() }
        if handlingSignals {
            try await app.runService()
        } else {
            try await app.run()
        }
    }

    /// The server side of TLS from the configured PEM files.
    ///
    /// - Throws: ``SyncServerError/unusableTLSFile(path:reason:)``.
    static func tlsConfiguration(_ tls: SyncServerTLS) throws -> TLSConfiguration {
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(tls.certificateChainPath)
        } catch {
            throw SyncServerError.unusableTLSFile(path: tls.certificateChainPath, reason: "not a PEM certificate chain: \(error)")
        }
        guard !certificates.isEmpty else {
            throw SyncServerError.unusableTLSFile(path: tls.certificateChainPath, reason: "it holds no certificate")
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: tls.privateKeyPath, format: .pem)
        } catch {
            throw SyncServerError.unusableTLSFile(path: tls.privateKeyPath, reason: "not a PEM private key: \(error)")
        }
        return TLSConfiguration.makeServerConfiguration(certificateChain: certificates.map { .certificate($0) }, privateKey: .privateKey(key))
    }
}

/// Why a ``SyncServer`` cannot start.
public enum SyncServerError: Error, Hashable, CustomStringConvertible {
    /// A TLS certificate or key file cannot be read or parsed.
    case unusableTLSFile(path: String, reason: String)

    /// A sentence naming the problem.
    public var description: String {
        switch self {
        case let .unusableTLSFile(path, reason):
            return "Cannot use \(path) for TLS: \(reason)"
        }
    }
}

/// The connection caps a server applies: the configured ones, lowered to fit the open-file
/// limit (less ``SyncServerLimits/reservedFileDescriptorCount``).
struct EffectiveConnectionLimits: Sendable, Hashable {
    /// Connections served at once.
    let maximumConnectionCount: Int
    /// Connections accepted at once (those over the cap only answer `/health`); past it,
    /// new connections wait in the listen backlog.
    let acceptedConnectionCount: Int

    init(configuration: SyncServerConfiguration, openFileLimit: Int) {
        let requested = max(1, configuration.maximumConnectionCount)
        let wanted = requested + SyncServerLimits.overflowConnectionCount(for: requested)
        let available = max(2, openFileLimit - SyncServerLimits.reservedFileDescriptorCount)
        if wanted <= available {
            maximumConnectionCount = requested
            acceptedConnectionCount = wanted
        } else {
            acceptedConnectionCount = available
            maximumConnectionCount = max(1, available * 8 / 9)
        }
    }
}
