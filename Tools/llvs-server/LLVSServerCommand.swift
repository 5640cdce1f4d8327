import ArgumentParser
import Foundation
import Logging
import LLVSSyncPostgres
import LLVSSyncServer
import LLVSSyncStorage

/// `llvs-server`: the LLVS sync server. With no arguments it serves on 127.0.0.1:7420 with
/// an embedded SQLite database in `./llvs-server-data`, and a token it generates once.
@main
struct LLVSServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "llvs-server",
        abstract: "Serve LLVS stores over HTTP, for HTTPExchange clients and `llvs push/pull URL`.",
        discussion: """
            Stores live at /v1/stores/NAME. Tokens come from --tokens FILE, else the environment variable \
            LLVS_SERVER_TOKENS (NAME=TOKEN,TOKEN;*=TOKEN), else DATA/tokens.json, which is created with one \
            random token for every store (*) on first start. The API is in SPEC.md section 15.

            Limits (defaults in brackets): a new connection must send its first request head within \
            --header-timeout [10 s]; a connection without progress for --idle-timeout [60 s] is closed; a \
            request body must arrive, and an answer be taken, within --request-timeout [300 s]. Over --max-connections [4096] or \
            --max-concurrent-body-bytes [128 MiB], requests get 503 with Retry-After [--retry-after 5]. \
            At start the open-file limit is raised to its hard limit. GET /health and GET /ready answer 503 when \
            the database does not answer within --storage-check-timeout [2 s]. GET /health needs no token; GET /metrics \
            (Prometheus) needs a token listed under * or --metrics-token, unless --public-metrics.
            """,
        version: SyncServer.version)

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0 picks a free one).")
    var port = 7420

    @Option(name: .customLong("data-directory"), help: ArgumentHelp("Where the embedded database and generated tokens live.", valueName: "path"))
    var dataDirectory = "llvs-server-data"

    @Option(help: ArgumentHelp("postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE, or the path of a SQLite file (default DATA/server.sqlite).",
                               valueName: "url-or-path"))
    var database: String?

    @Option(help: ArgumentHelp("A JSON token file: {\"stores\": {\"NAME\": [\"TOKEN\"], \"*\": [\"TOKEN\"]}}.", valueName: "file"))
    var tokens: String?

    @Option(name: .customLong("max-body-bytes"), help: "The largest request body accepted.")
    var maximumBodyByteCount = 64 << 20

    @Option(name: .customLong("max-concurrent-body-bytes"),
            help: "The bytes that request bodies handled at once may hold together (503 with Retry-After above).")
    var maximumConcurrentBodyByteCount = SyncServerLimits.defaultMaximumConcurrentBodyByteCount

    @Option(name: .customLong("max-connections"),
            help: "The connections served at once; over it, requests other than /health get 503 with Retry-After.")
    var maximumConnectionCount = SyncServerLimits.defaultMaximumConnectionCount

    @Option(name: .customLong("header-timeout"), help: ArgumentHelp("Seconds a new connection has to send its first request head.", valueName: "seconds"))
    var headerTimeout = 10.0

    @Option(name: .customLong("idle-timeout"), help: ArgumentHelp("Seconds a connection may go without progress.", valueName: "seconds"))
    var idleTimeout = 60.0

    @Option(name: .customLong("request-timeout"), help: ArgumentHelp("Seconds a request body has to arrive in full, and a client to take an answer.", valueName: "seconds"))
    var requestTimeout = 300.0

    @Option(name: .customLong("retry-after"), help: ArgumentHelp("Seconds a 503 answer asks clients to wait.", valueName: "seconds"))
    var retryAfterSeconds = SyncServerLimits.defaultRetryAfterSeconds

    @Option(name: .customLong("storage-check-timeout"),
            help: ArgumentHelp("Seconds /health and /ready wait for the database before answering 503.", valueName: "seconds"))
    var storageCheckTimeout = 2.0

    @Option(name: .customLong("tls-certificate"), help: ArgumentHelp("Serve HTTPS with this PEM certificate chain (with --tls-key).", valueName: "pem"))
    var tlsCertificate: String?

    @Option(name: .customLong("tls-key"), help: ArgumentHelp("The PEM private key of --tls-certificate.", valueName: "pem"))
    var tlsKey: String?

    @Option(name: .customLong("metrics-token"),
            help: "A token that may read /metrics besides the tokens listed under * (at least 16 characters; else $LLVS_SERVER_METRICS_TOKEN).")
    var metricsToken: String?

    @Flag(name: .customLong("public-metrics"), help: "Serve /metrics without a token (for a scraper on a private network).")
    var publicMetrics = false

    @Flag(name: .customLong("blind-only"),
          help: "Keep blind stores only (/v1/blind/NAME: sealed blobs of encrypted stores); /v1/stores/… answers 404.")
    var blindOnly = false

    @Option(name: .customLong("change-feed"),
            help: ArgumentHelp("How instances sharing the database hear of each other's pushes: postgres (LISTEN/NOTIFY, the default on PostgreSQL), polling (the default on SQLite), in-process (this instance is the only writer).",
                               valueName: "feed"))
    var changeFeed: String?

    @Option(name: .customLong("storage-poll-interval"),
            help: ArgumentHelp("Seconds between reads of the latest cursors of the stores clients wait on (postgres and polling feeds).", valueName: "seconds"))
    var storagePollInterval: Double = 1

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown log level \(logLevel)") }
        guard (0...65_535).contains(port) else { throw ValidationError("the port must be in 0...65535") }
        guard maximumBodyByteCount >= 1_024 else { throw ValidationError("--max-body-bytes must be at least 1024") }
        guard maximumConcurrentBodyByteCount >= maximumBodyByteCount else {
            throw ValidationError("--max-concurrent-body-bytes must be at least --max-body-bytes (\(maximumBodyByteCount))")
        }
        guard maximumConnectionCount >= 1 else { throw ValidationError("--max-connections must be at least 1") }
        for (name, seconds) in [("--header-timeout", headerTimeout), ("--idle-timeout", idleTimeout), ("--request-timeout", requestTimeout),
                                ("--storage-check-timeout", storageCheckTimeout)] {
            guard seconds.isFinite, seconds > 0, seconds <= 86_400 else { throw ValidationError("\(name) must be in (0, 86400] seconds") }
        }
        guard (0...3_600).contains(retryAfterSeconds) else { throw ValidationError("--retry-after must be in 0...3600") }
        guard storagePollInterval.isFinite, storagePollInterval >= 0.01, storagePollInterval <= 3_600 else {
            throw ValidationError("--storage-poll-interval must be in [0.01, 3600] seconds")
        }
        if let changeFeed, !["postgres", "polling", "in-process"].contains(changeFeed) {
            throw ValidationError("--change-feed must be postgres, polling or in-process, not \(changeFeed)")
        }
        guard (tlsCertificate == nil) == (tlsKey == nil) else { throw ValidationError("--tls-certificate and --tls-key go together") }
        if let metricsToken = effectiveMetricsToken, metricsToken.count < AccessTokens.minimumTokenLength {
            throw ValidationError("--metrics-token must have at least \(AccessTokens.minimumTokenLength) characters")
        }
    }

    /// Who may read /metrics, from --public-metrics and --metrics-token.
    var metricsAccess: SyncServerConfiguration.MetricsAccess {
        if publicMetrics { return .everyone }
        if let metricsToken = effectiveMetricsToken { return .token(metricsToken) }
        return .adminTokens
    }

    /// --metrics-token, else $LLVS_SERVER_METRICS_TOKEN (which `ps` does not show).
    var effectiveMetricsToken: String? {
        metricsToken ?? ProcessInfo.processInfo.environment["LLVS_SERVER_METRICS_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "llvs-server")
        let openFiles = OpenFileLimit.raiseToHardLimit()
        logger.info("open-file limit", metadata: ["soft": "\(openFiles.soft)", "hard": "\(openFiles.hard)"])
        let dataURL = URL(fileURLWithPath: dataDirectory).standardizedFileURL
        do {
            let storage = try await makeStorage(dataURL: dataURL, logger: logger)
            let accessTokens = try TokenSource.load(file: tokens, dataURL: dataURL, logger: logger)
            let tls = tlsCertificate.flatMap { certificate in tlsKey.map { SyncServerTLS(certificateChainPath: certificate, privateKeyPath: $0) } }
            let configuration = SyncServerConfiguration(
                host: host, port: port, accessTokens: accessTokens, maximumBodyByteCount: maximumBodyByteCount,
                storagePollInterval: .milliseconds(Int64(storagePollInterval * 1000)), logger: logger,
                headerTimeout: .milliseconds(Int64(headerTimeout * 1000)), idleTimeout: .milliseconds(Int64(idleTimeout * 1000)),
                requestTimeout: .milliseconds(Int64(requestTimeout * 1000)), maximumConnectionCount: maximumConnectionCount,
                maximumConcurrentBodyByteCount: maximumConcurrentBodyByteCount, retryAfterSeconds: retryAfterSeconds,
                tls: tls, metricsAccess: metricsAccess, servesTransparentStores: !blindOnly,
                changeFeed: try makeChangeFeed(storage: storage),
                storageCheckTimeout: .milliseconds(Int64(storageCheckTimeout * 1000)))
            let scheme = tls == nil ? "http" : "https"
            try await SyncServer(storage: storage, configuration: configuration).run(handlingSignals: true) { port in
                let stores = blindOnly ? "blind stores at /v1/blind/NAME" : "stores at /v1/stores/NAME, blind stores at /v1/blind/NAME"
                print("llvs-server listening on \(scheme)://\(host):\(port) (\(stores))")
                fflush(nil)
            }
        } catch let error as SyncStorageError {
            throw ValidationError(error.description)
        } catch let error as AccessTokensError {
            throw ValidationError(error.description)
        } catch let error as SyncServerError {
            throw ValidationError(error.description)
        }
    }

    /// The feed `--change-feed` names (nil: the storage's own).
    ///
    /// - Throws: `ValidationError` for `postgres` over a storage that is not PostgreSQL.
    func makeChangeFeed(storage: any SyncStorage) throws -> (any SyncChangeFeed)? {
        switch changeFeed {
        case "postgres":
            guard let postgres = storage as? PostgresSyncStorage else { throw ValidationError("--change-feed postgres needs a postgres:// --database") }
            return PostgresChangeFeed(storage: postgres)
        case "polling": return PollingChangeFeed()
        case "in-process": return InProcessChangeFeed()
        default: return nil
        }
    }

    /// The storage `--database` names: PostgreSQL for a postgres:// URL, else a SQLite file.
    func makeStorage(dataURL: URL, logger: Logger) async throws -> any SyncStorage {
        if let database, database.hasPrefix("postgres://") || database.hasPrefix("postgresql://") {
            return try await PostgresSyncStorage(url: database, logger: logger)
        }
        let fileURL = database.map { URL(fileURLWithPath: $0) } ?? dataURL.appendingPathComponent("server.sqlite")
        return try SQLiteSyncStorage(fileURL: fileURL)
    }
}
