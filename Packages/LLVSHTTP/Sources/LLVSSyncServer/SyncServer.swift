import Hummingbird
import Logging
import LLVSSyncStorage
import NIOCore

/// The LLVS sync server: the HTTP API of SPEC.md section 15 over a ``SyncStorage``. It
/// plays the role CloudKit plays for LLVS on Apple platforms; `HTTPExchange` is its client.
///
/// ```swift
/// let storage = try SQLiteSyncStorage(fileURL: URL(fileURLWithPath: "server.sqlite"))
/// let tokens = try AccessTokens(["notes": ["a-long-random-token-0001"]])
/// let server = SyncServer(storage: storage, configuration: .init(port: 7420, accessTokens: tokens))
/// try await server.run()   // until SIGINT/SIGTERM, or until the task is cancelled
/// ```
public struct SyncServer: Sendable {
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
    /// - Throws: When the address cannot be bound.
    public func run(handlingSignals: Bool = false, onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let routes = SyncRoutes(storage: storage, configuration: configuration, notifier: VersionNotifier())
        let router = Router()
        router.add(middleware: LogRequestsMiddleware(.debug))
        routes.register(on: router)
        let logger = configuration.logger
        let storageKind = storage.kind
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "llvs-server"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                logger.info("listening", metadata: ["port": "\(port)", "storage": "\(storageKind)"])
                await onListening(port)
            },
            logger: logger)
        if handlingSignals {
            try await app.runService()
        } else {
            try await app.run()
        }
    }
}
