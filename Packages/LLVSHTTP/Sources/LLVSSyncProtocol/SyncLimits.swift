/// The bounds the server enforces on what clients send, and the sizes clients use.
public enum SyncLimits {
    /// The longest version or value identifier accepted, in UTF-8 bytes.
    public static let maximumIdentifierByteCount = 256
    /// The most identifiers one fetch request may name.
    public static let maximumIdentifiersPerRequest = 1_000
    /// The most identifiers one listing returns; the client asks again while `hasMore`.
    public static let maximumListingCount = 10_000
    /// The longest a long poll may wait, in seconds.
    public static let maximumPollSeconds = 60
    /// The request body limit a server uses unless configured otherwise: 64 MiB.
    public static let defaultMaximumBodyByteCount = 64 << 20
}
