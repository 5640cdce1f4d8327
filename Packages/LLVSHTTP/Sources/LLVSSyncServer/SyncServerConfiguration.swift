import Logging
import LLVSSyncProtocol
import LLVSSyncStorage

/// How a ``SyncServer`` listens and what it accepts, including the limits that let it face
/// the open internet (timeouts, connection and body-memory caps). Every limit has a
/// documented default (Tools/llvs-server/README.md, "Limits").
public struct SyncServerConfiguration: Sendable {
    /// The address to bind; loopback by default.
    public var host: String
    /// The port; 0 picks a free one (reported to `onListening`).
    public var port: Int
    /// Which tokens open which stores.
    public var accessTokens: AccessTokens
    /// The largest request body accepted (413 above it).
    public var maximumBodyByteCount: Int
    /// How often the server re-reads the latest cursors of the stores clients wait on, for
    /// versions that other server processes sharing the database stored (where the change
    /// feed polls: `LLVSSyncStorage.SyncChangeFeed.pollsStorage`). One read per interval
    /// for all those stores, however many clients wait.
    public var storagePollInterval: Duration
    /// How server processes sharing the storage hear of each other's pushes (nil: the
    /// storage's own, `LLVSSyncStorage.SyncStorage.makeChangeFeed()`: `LISTEN`/`NOTIFY` on
    /// PostgreSQL, polling otherwise).
    public var changeFeed: (any SyncChangeFeed)?
    /// The logger for requests, pushes and failures.
    public var logger: Logger

    /// A new connection is closed unless the head of its first request (or, with TLS, the
    /// handshake and that head) arrives within this time. 10 s by default.
    public var headerTimeout: Duration
    /// A connection is closed after this long without a byte of progress: between requests
    /// (keep-alive), or while a request's head or body stalls. A request being answered (a
    /// long poll, a slow push) is not idle. 60 s by default.
    public var idleTimeout: Duration
    /// A request's body must arrive in full within this time of its head, however steadily
    /// it trickles; and a client must take an answer in full within this time of its last
    /// part being written (one that stops reading is cut off). 300 s by default.
    public var requestTimeout: Duration
    /// The connections served at once. A connection over it is still accepted (up to a
    /// small reserve, ``SyncServerLimits/overflowConnectionCount(for:)``) but only answers
    /// `GET /health`; every other request gets 503 `overloaded` with `Retry-After` and the
    /// connection is closed. Lowered at start to what the open-file limit allows. 4,096 by
    /// default.
    public var maximumConnectionCount: Int
    /// The bytes that the bodies of requests being handled at once may hold together (by
    /// their `Content-Length`; a chunked body counts as ``maximumBodyByteCount``). A request
    /// whose body does not fit gets 503 `overloaded` with `Retry-After`. Never less than
    /// ``maximumBodyByteCount``. 128 MiB by default.
    public var maximumConcurrentBodyByteCount: Int
    /// The seconds a 503 answer asks clients to wait (`Retry-After`). 5 by default.
    public var retryAfterSeconds: Int
    /// Serve HTTPS with this certificate and key, or plain HTTP when nil.
    public var tls: SyncServerTLS?
    /// Who may read `GET /metrics` (Prometheus text format).
    public var metricsAccess: MetricsAccess
    /// False for a server that keeps blind stores only (`llvs-server --blind-only`): the
    /// transparent API (`/v1/stores/…`) answers 404, so no client can leave readable data on
    /// it. True by default.
    public var servesTransparentStores: Bool
    /// How long `GET /health` and `GET /ready` wait for the storage to answer before they
    /// answer 503 `storageUnavailable`: a database that is gone can keep a connection
    /// attempt waiting for a minute, and a load balancer's check wants an answer within a
    /// second or two. 2 s by default.
    public var storageCheckTimeout: Duration

    /// Who may read `GET /metrics`.
    public enum MetricsAccess: Sendable, Hashable {
        /// A bearer token listed under `*` in the access tokens (the default).
        case adminTokens
        /// A bearer token listed under `*`, or this token (for a Prometheus scraper that
        /// should not hold a store token).
        case token(String)
        /// Anyone who can reach the server (for a scraper on a private network).
        case everyone
        /// Nobody: `/metrics` answers 404.
        case disabled
    }

    /// Creates a configuration; every limit has its documented default.
    public init(host: String = "127.0.0.1", port: Int = 7420, accessTokens: AccessTokens,
                maximumBodyByteCount: Int = SyncLimits.defaultMaximumBodyByteCount,
                storagePollInterval: Duration = .seconds(1), logger: Logger = Logger(label: "llvs-server"),
                headerTimeout: Duration = SyncServerLimits.defaultHeaderTimeout,
                idleTimeout: Duration = SyncServerLimits.defaultIdleTimeout,
                requestTimeout: Duration = SyncServerLimits.defaultRequestTimeout,
                maximumConnectionCount: Int = SyncServerLimits.defaultMaximumConnectionCount,
                maximumConcurrentBodyByteCount: Int = SyncServerLimits.defaultMaximumConcurrentBodyByteCount,
                retryAfterSeconds: Int = SyncServerLimits.defaultRetryAfterSeconds,
                tls: SyncServerTLS? = nil, metricsAccess: MetricsAccess = .adminTokens,
                servesTransparentStores: Bool = true, changeFeed: (any SyncChangeFeed)? = nil,
                storageCheckTimeout: Duration = SyncServerLimits.defaultStorageCheckTimeout) {
        self.host = host
        self.port = port
        self.accessTokens = accessTokens
        self.maximumBodyByteCount = maximumBodyByteCount
        self.storagePollInterval = storagePollInterval
        self.logger = logger
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.requestTimeout = requestTimeout
        self.maximumConnectionCount = maximumConnectionCount
        self.maximumConcurrentBodyByteCount = maximumConcurrentBodyByteCount
        self.retryAfterSeconds = retryAfterSeconds
        self.tls = tls
        self.metricsAccess = metricsAccess
        self.servesTransparentStores = servesTransparentStores
        self.changeFeed = changeFeed
        self.storageCheckTimeout = storageCheckTimeout
    }
}

/// The certificate chain and private key a ``SyncServer`` serves HTTPS with, as PEM files.
public struct SyncServerTLS: Sendable, Hashable {
    /// The PEM file of the server's certificate, followed by any intermediates.
    public var certificateChainPath: String
    /// The PEM file of the certificate's private key.
    public var privateKeyPath: String

    /// Names the two PEM files; they are read when the server starts.
    public init(certificateChainPath: String, privateKeyPath: String) {
        self.certificateChainPath = certificateChainPath
        self.privateKeyPath = privateKeyPath
    }
}

/// The default limits of a ``SyncServer`` (documented in Tools/llvs-server/README.md).
public enum SyncServerLimits {
    /// 10 s for a new connection's first request head.
    public static let defaultHeaderTimeout: Duration = .seconds(10)
    /// 60 s without progress.
    public static let defaultIdleTimeout: Duration = .seconds(60)
    /// 300 s from a request's head to the last byte of its body.
    public static let defaultRequestTimeout: Duration = .seconds(300)
    /// 4,096 connections served at once.
    public static let defaultMaximumConnectionCount = 4_096
    /// 128 MiB of request bodies at once (two bodies of the default largest size).
    public static let defaultMaximumConcurrentBodyByteCount = 128 << 20
    /// 5 s in `Retry-After`.
    public static let defaultRetryAfterSeconds = 5
    /// 2 s for the storage to answer `/health` and `/ready`.
    public static let defaultStorageCheckTimeout: Duration = .seconds(2)
    /// File descriptors kept free of connections for the database, logs and TLS files.
    public static let reservedFileDescriptorCount = 64

    /// How many connections over `maximumConnectionCount` are still accepted, to answer
    /// `/health` and tell the others to retry later: an eighth of the cap, at least 16.
    public static func overflowConnectionCount(for maximumConnectionCount: Int) -> Int {
        max(16, maximumConnectionCount / 8)
    }
}
