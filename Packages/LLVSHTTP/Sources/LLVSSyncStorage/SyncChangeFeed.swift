import LLVSSyncProtocol

/// How the server instances sharing one storage tell each other that a store changed, so
/// that a push through one instance wakes the long polls waiting on every other.
///
/// An instance announces each store a push changed, after the push committed; it hears the
/// announcements of every instance (its own included) through ``run(_:)``. Three feeds:
///
/// - ``InProcessChangeFeed``: one instance; nothing crosses processes, and no storage is
///   polled while clients wait.
/// - ``PollingChangeFeed``: no announcements; each instance re-reads the latest cursors of
///   the stores its clients wait on every `storagePollInterval` (one read per store per
///   interval, shared by all of that store's waiting clients).
/// - `PostgresChangeFeed` (LLVSSyncPostgres): PostgreSQL's `LISTEN`/`NOTIFY`, with the same
///   polling as a safety net for a lost notification.
public protocol SyncChangeFeed: Sendable {
    /// A short name for logs and the health endpoint: `in-process`, `polling`, `postgres`.
    var kind: String { get }

    /// Whether instances poll the storage every `storagePollInterval` for the stores their
    /// clients wait on: true where other instances' pushes may go unannounced (always for
    /// ``PollingChangeFeed``; as a safety net for a lost notification otherwise).
    var pollsStorage: Bool { get }

    /// Tells every instance that `store`'s latest cursor is now at least `sequence`. Called
    /// after the push committed, never inside its transaction; never throws (a lost
    /// announcement costs a wake at the next poll).
    func announce(_ store: SyncStoreName, sequence: Int64) async

    /// Delivers announcements to `receive` until the task is cancelled, with
    /// ``SyncChangeEvent/resynchronize`` whenever some may have been missed (after the
    /// feed's connection was lost and made again).
    func run(_ receive: @escaping @Sendable (SyncChangeEvent) -> Void) async
}

/// What a ``SyncChangeFeed`` delivers.
public enum SyncChangeEvent: Sendable, Hashable {
    /// An instance announced that the store changed.
    case changed(SyncStoreName)
    /// Announcements may have been missed: every store waited on should be read again.
    case resynchronize
}

/// One server instance: its pushes wake its own long polls directly, so the feed carries
/// nothing and no storage is polled while clients wait.
public struct InProcessChangeFeed: SyncChangeFeed {
    /// `in-process`.
    public let kind = "in-process"
    /// False: no other instance writes the storage.
    public let pollsStorage = false

    /// A feed for a server that is the only writer of its storage.
    public init() {}

    /// Nothing: this instance's own long polls are woken by the server itself.
    public func announce(_ store: SyncStoreName, sequence: Int64) async {}

    /// Waits until the task is cancelled.
    public func run(_ receive: @escaping @Sendable (SyncChangeEvent) -> Void) async {
        await waitForCancellation()
    }
}

/// No announcements: every instance polls the storage for the stores its clients wait on,
/// once per `storagePollInterval`, whatever the number of clients.
public struct PollingChangeFeed: SyncChangeFeed {
    /// `polling`.
    public let kind = "polling"
    /// True.
    public let pollsStorage = true

    /// A feed for instances that learn of each other's pushes by polling alone.
    public init() {}

    /// Nothing: other instances find the push when they next poll.
    public func announce(_ store: SyncStoreName, sequence: Int64) async {}

    /// Waits until the task is cancelled.
    public func run(_ receive: @escaping @Sendable (SyncChangeEvent) -> Void) async {
        await waitForCancellation()
    }
}

/// Returns when the task is cancelled.
func waitForCancellation() async {
    while !Task.isCancelled {
        try? await Task.sleep(for: .seconds(3_600))
    }
}
