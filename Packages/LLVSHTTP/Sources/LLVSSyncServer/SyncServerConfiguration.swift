import Logging
import LLVSSyncProtocol

/// How a ``SyncServer`` listens and what it accepts.
public struct SyncServerConfiguration: Sendable {
    /// The address to bind; loopback by default.
    public var host: String
    /// The port; 0 picks a free one (reported to `onListening`).
    public var port: Int
    /// Which tokens open which stores.
    public var accessTokens: AccessTokens
    /// The largest request body accepted (413 above it).
    public var maximumBodyByteCount: Int
    /// How often a long poll re-reads the storage, for versions that other server processes
    /// sharing the database stored.
    public var storagePollInterval: Duration
    /// The logger for requests, pushes and failures.
    public var logger: Logger

    /// Creates a configuration.
    public init(host: String = "127.0.0.1", port: Int = 7420, accessTokens: AccessTokens,
                maximumBodyByteCount: Int = SyncLimits.defaultMaximumBodyByteCount,
                storagePollInterval: Duration = .seconds(1), logger: Logger = Logger(label: "llvs-server")) {
        self.host = host
        self.port = port
        self.accessTokens = accessTokens
        self.maximumBodyByteCount = maximumBodyByteCount
        self.storagePollInterval = storagePollInterval
        self.logger = logger
    }
}
