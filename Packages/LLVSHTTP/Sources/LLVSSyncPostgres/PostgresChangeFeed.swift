import Foundation
import Logging
import LLVSSupport
import LLVSSyncProtocol
import LLVSSyncStorage
import PostgresNIO

/// PostgreSQL's `LISTEN`/`NOTIFY` as the `LLVSSyncStorage.SyncChangeFeed` of server
/// instances sharing one database: a push through any instance wakes the long polls
/// waiting on every other within milliseconds.
///
/// - Each instance holds one listening connection on the channel ``channel``, in a pool of
///   its own (so a lost one never goes back to the pool the storage's queries use), and
///   makes it again when it is lost, then asks for every waited store to be read again
///   (`LLVSSyncStorage.SyncChangeEvent.resynchronize`).
/// - Announcements are sent after the push committed, outside its transaction (a
///   `NOTIFY` inside it would hold PostgreSQL's notification lock until commit), coalesced
///   per store over ``coalescingInterval``, all in one statement. The payload is the store's
///   latest sequence and its name (`"42 notes"`), never data: at most about 120 bytes of
///   PostgreSQL's 8,000.
/// - A lost notification costs at most one `storagePollInterval`: the instances still poll
///   the waited stores' cursors (``pollsStorage``), one query per interval for all of them.
public final class PostgresChangeFeed: SyncChangeFeed {
    /// `postgres`.
    public let kind = "postgres"
    /// True: the poll is the safety net for a lost notification.
    public let pollsStorage = true
    /// The notification channel.
    public static let channel = "llvs_sync_changes"
    /// How long announcements gather before they are sent together.
    public let coalescingInterval: Duration

    let storage: PostgresSyncStorage
    private let pending = Locked<(stores: [SyncStoreName: Int64], flushing: Bool)>(([:], false))
    private let notificationCount = Locked(0)

    /// A feed over the database of `storage`.
    public init(storage: PostgresSyncStorage, coalescingInterval: Duration = .milliseconds(5)) {
        self.storage = storage
        self.coalescingInterval = coalescingInterval
    }

    /// How many notification statements this feed has sent (each carries every store that
    /// changed during one ``coalescingInterval``).
    public var sentStatementCount: Int { notificationCount.withLock { $0 } }

    /// Queues `store` for the next notification, sent after ``coalescingInterval``.
    public func announce(_ store: SyncStoreName, sequence: Int64) async {
        let startsFlush = pending.withLock { state -> Bool in
            state.stores[store] = max(state.stores[store] ?? 0, sequence)
            guard !state.flushing else { return false }
            state.flushing = true
            return true
        }
        guard startsFlush else { return }
        Task {
            try? await Task.sleep(for: coalescingInterval)
            let batch = pending.withLock { state -> [SyncStoreName: Int64] in
                defer { state = ([:], false) }
                return state.stores
            }
            await send(batch)
        }
    }

    private func send(_ batch: [SyncStoreName: Int64]) async {
        let payloads = batch.map { Self.payload(store: $0.key, sequence: $0.value) }
        guard !payloads.isEmpty else { return }
        do {
            notificationCount.withLock { $0 += 1 }
            try await storage.client.query("SELECT pg_notify(\(Self.channel), payload) FROM unnest(\(payloads)::TEXT[]) AS payload",
                                           logger: storage.logger)
        } catch {
            // The other instances find the push at their next poll.
            storage.logger.warning("a change notification was not sent", metadata: ["error": "\(PostgresSyncStorage.describe(error))"])
        }
    }

    /// Listens on ``channel`` until the task is cancelled, listening again (after a short
    /// wait, `ListenRetry`) whenever the connection is lost.
    public func run(_ receive: @escaping @Sendable (SyncChangeEvent) -> Void) async {
        let listenedBefore = Locked(false)
        var retry = ListenRetry()
        while !Task.isCancelled {
            let listened = Locked(false)
            do {
                try await storage.listeningClient.withConnection { connection in
                    try await connection.listen(on: Self.channel) { notifications in
                        listened.withLock { $0 = true }
                        // Listening again: what was announced meanwhile is read now.
                        if listenedBefore.withLock({ before in defer { before = true }; return before }) { receive(.resynchronize) }
                        for try await notification in notifications {
                            if let store = Self.store(inPayload: notification.payload) { receive(.changed(store)) }
                        }
                    }
                }
                retry.listenEnded()
            } catch {
                if Task.isCancelled { break }
                retry.connectionLost(afterListening: listened.withLock { $0 })
                storage.logger.warning("the change feed's listening connection was lost", metadata: [
                    "error": "\(PostgresSyncStorage.describe(error))"])
            }
            try? await Task.sleep(for: retry.delay)
        }
    }

    /// How long the feed waits before listening again: 100 ms after a connection that was
    /// listening is lost (killed by an operator, a failover), doubling with each attempt
    /// after that fails before it listens (the database is down), up to 5 s. A listen that
    /// ends without error waits 50 ms.
    struct ListenRetry: Sendable {
        /// Losses since the feed last listened.
        private(set) var failures = 0

        /// The wait before the next attempt.
        var delay: Duration { .milliseconds(min(50 << min(failures, 7), 5_000)) }

        /// A listen ended without error.
        mutating func listenEnded() { failures = 0 }

        /// The attempt failed; `afterListening` when its connection had been listening.
        mutating func connectionLost(afterListening: Bool) { failures = afterListening ? 1 : failures + 1 }
    }

    /// `"<sequence> <store>"`.
    static func payload(store: SyncStoreName, sequence: Int64) -> String { "\(sequence) \(store.rawValue)" }

    /// The store of a payload; nil for one this feed did not write.
    static func store(inPayload payload: String) -> SyncStoreName? {
        guard let space = payload.firstIndex(of: " "), Int64(payload[..<space]) != nil else { return nil }
        return SyncStoreName(rawValue: String(payload[payload.index(after: space)...]))
    }
}

extension PostgresSyncStorage {
    /// A ``PostgresChangeFeed`` over this database.
    public func makeChangeFeed() -> any SyncChangeFeed { PostgresChangeFeed(storage: self) }

    /// The latest cursors of `stores`, in one query.
    ///
    /// - Throws: `LLVSSyncStorage.SyncStorageError.unavailable(_:)`.
    public func latestCursors(in stores: [SyncStoreName]) async throws -> [SyncStoreName: SyncCursor] {
        try await latestCursors(in: stores, table: "llvs_stores")
    }

    /// The latest blob cursors of `stores`, in one query.
    ///
    /// - Throws: `LLVSSyncStorage.SyncStorageError.unavailable(_:)`.
    public func latestBlobCursors(in stores: [SyncStoreName]) async throws -> [SyncStoreName: SyncCursor] {
        try await latestCursors(in: stores, table: "llvs_blind_stores")
    }

    private func latestCursors(in stores: [SyncStoreName], table: String) async throws -> [SyncStoreName: SyncCursor] {
        guard !stores.isEmpty else { return [:] }
        let names = stores.map(\.rawValue)
        let found = try await guarded {
            let rows = table == "llvs_stores"
                ? try await client.query("SELECT name, identity, last_sequence FROM llvs_stores WHERE name = ANY(\(names)::TEXT[])", logger: logger)
                : try await client.query("SELECT name, identity, last_sequence FROM llvs_blind_stores WHERE name = ANY(\(names)::TEXT[])",
                                         logger: logger)
            var found: [SyncStoreName: SyncCursor] = [:]
            for try await (name, identity, last) in rows.decode((String, String, Int64).self) {
                if let store = SyncStoreName(rawValue: name) { found[store] = SyncCursor(storeIdentity: identity, sequence: last) }
            }
            return found
        }
        // A store never pushed to has the empty store's cursor.
        return Dictionary(stores.map { ($0, found[$0] ?? SyncListing.emptyStoreCursor) }, uniquingKeysWith: { first, _ in first })
    }
}
