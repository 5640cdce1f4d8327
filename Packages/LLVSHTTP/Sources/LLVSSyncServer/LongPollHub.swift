import Foundation
import Logging
import LLVSSupport
import LLVSSyncProtocol
import LLVSSyncStorage

/// What the long polls of one server instance wait on: the latest cursor of each store (and
/// blind store) a poll is waiting for, read from the storage once per change and shared by
/// every poll waiting on that store, never once per client.
///
/// A store's cursor is read again when this instance stores versions in it
/// (``changed(_:)``), when the ``SyncChangeFeed`` announces another instance did, and, where
/// the feed polls (``SyncChangeFeed/pollsStorage``), every poll interval for all the stores
/// waited on at once (``pollWaitedStores()``: one storage query for all of them where the
/// storage can). A store nobody has waited on for ``retention`` costs nothing.
///
/// Every storage read the hub makes is bounded by ``storageTimeLimit``: a read that never
/// answers (a database connection lost in a way its driver never reports) fails the polls
/// that joined it with ``StorageTimeLimitExceeded`` (a long poll then reads again while its
/// time lasts), and the next read starts afresh, instead of holding every poll of the store,
/// or the storage poll itself, for ever.
final class LongPollHub: Sendable {
    /// What a long poll watches: a store's versions, or a blind store's blobs.
    struct Key: Hashable, Sendable {
        enum Kind: Hashable, Sendable { case versions, blobs }
        var store: SyncStoreName
        var kind: Kind
    }

    private struct Watch {
        /// The last cursor read, while it is known to be current (nil: read it again).
        var cursor: SyncCursor?
        /// Set anew by every change (from one counter for the whole hub, so that an entry
        /// forgotten and made again never repeats one), so that a read begun before a change
        /// is not kept and a wait after it returns at once.
        var generation: Int
        /// The read under way, which later callers join.
        var reading: (generation: Int, task: Task<SyncCursor, any Error>)?
        var waiters: [UUID: AsyncStream<Void>.Continuation] = [:]
        /// When a poll last began or ended waiting on the key: it is kept, and polled, for
        /// ``LongPollHub/retention`` after, so that a client polling again (after a timeout
        /// or a wake) finds its cursor known instead of reading it.
        var lastWaited = ContinuousClock.now
    }

    private let watches = Locked<[Key: Watch]>([:])
    /// The last generation given out (locked inside `watches`' lock, never the reverse).
    private let generations = Locked(0)

    private func nextGeneration() -> Int {
        generations.withLock { last in
            last += 1
            return last
        }
    }
    private let storage: any SyncStorage
    private let counter = Locked(0)
    /// How long a store nobody waits on any more is remembered (and polled with the others).
    let retention: Duration
    /// How long one storage read may take before it counts as failed.
    let storageTimeLimit: Duration

    /// A hub over `storage`, remembering a store for `retention` after its last poll ended,
    /// giving each storage read up to `storageTimeLimit`.
    init(storage: any SyncStorage, retention: Duration = .seconds(30), storageTimeLimit: Duration = .seconds(2)) {
        self.storage = storage
        self.retention = retention
        self.storageTimeLimit = storageTimeLimit
    }

    /// How many storage reads the hub has made (for tests and metrics).
    var readCount: Int { counter.withLock { $0 } }

    /// The latest cursor of `key`: the one last read while nothing changed since, else one
    /// read shared with every caller asking meanwhile; and the change generation it belongs
    /// to, for ``wait(for:after:upTo:)``.
    ///
    /// - Throws: What the storage throws.
    func latest(_ key: Key) async throws -> (cursor: SyncCursor, generation: Int) {
        enum Next { case known(SyncCursor, Int), join(Task<SyncCursor, any Error>, Int) }
        let next = watches.withLock { table -> Next in
            var watch = table[key] ?? Watch(generation: nextGeneration())
            if let cursor = watch.cursor { return .known(cursor, watch.generation) }
            if let reading = watch.reading, reading.generation == watch.generation { return .join(reading.task, reading.generation) }
            let generation = watch.generation
            let task = Task { try await self.read(key) }
            watch.reading = (generation, task)
            table[key] = watch
            return .join(task, generation)
        }
        switch next {
        case .known(let cursor, let generation):
            return (cursor, generation)
        case .join(let task, let generation):
            let cursor: SyncCursor
            do {
                cursor = try await task.value
            } catch {
                // A failed read is not joined again: the next call reads anew.
                watches.withLock { table in
                    if table[key]?.reading?.generation == generation { table[key]?.reading = nil }
                }
                throw error
            }
            watches.withLock { table in
                // Kept only while no change came after the read began.
                guard var watch = table[key], watch.generation == generation else { return }
                watch.reading = nil
                watch.cursor = cursor
                table[key] = watch
            }
            return (cursor, generation)
        }
    }

    private func read(_ key: Key) async throws -> SyncCursor {
        counter.withLock { $0 += 1 }
        let storage = self.storage
        return try await withTimeLimit(storageTimeLimit, "reading the latest cursor of \(key.store)") {
            switch key.kind {
            case .versions: return try await storage.latestCursor(in: key.store)
            case .blobs:
                guard let blobs = storage as? any BlobSyncStorage else { return SyncListing.emptyStoreCursor }
                return try await blobs.latestBlobCursor(in: key.store)
            }
        }
    }

    /// Forgets what is known of `store` and wakes its waiting polls, which read it again
    /// (once, together).
    func changed(_ store: SyncStoreName) {
        let woken = watches.withLock { table -> [AsyncStream<Void>.Continuation] in
            var continuations: [AsyncStream<Void>.Continuation] = []
            for kind in [Key.Kind.versions, .blobs] {
                let key = Key(store: store, kind: kind)
                guard var watch = table[key] else { continue }
                watch.generation = nextGeneration()
                watch.cursor = nil
                watch.reading = nil
                continuations += watch.waiters.values
                table[key] = watch
            }
            return continuations
        }
        for continuation in woken { continuation.yield() }
    }

    /// Forgets everything known and wakes every waiting poll: announcements may have been lost.
    func resynchronize() {
        let stores = watches.withLock { Set($0.keys.map(\.store)) }
        for store in stores { changed(store) }
    }

    /// Returns after ``changed(_:)`` of the key's store, after `duration`, or when the task
    /// is cancelled; at once when the store changed after `generation` (a change between
    /// the caller's ``latest(_:)`` and this wait is not missed).
    func wait(for key: Key, after generation: Int, upTo duration: Duration) async {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        let registered = watches.withLock { table -> Bool in
            // A forgotten entry counts as changed: the caller reads again.
            guard table[key]?.generation == generation else { return false }
            table[key]?.waiters[id] = continuation
            table[key]?.lastWaited = .now
            return true
        }
        guard registered else { return }
        let timer = Task {
            try? await Task.sleep(for: duration)
            continuation.finish()
        }
        defer {
            timer.cancel()
            watches.withLock { table in
                table[key]?.waiters[id] = nil
                table[key]?.lastWaited = .now
            }
        }
        for await _ in stream { break }
    }

    /// Reads the latest cursors of every store a poll waits on (one query for all where the
    /// storage can) and wakes the polls of those that moved.
    ///
    /// - Throws: What the storage throws.
    func pollWaitedStores() async throws {
        let now = ContinuousClock.now
        let keys = watches.withLock { table in
            // Stores nobody has waited on for `retention` are forgotten: the next poll of one
            // reads it afresh. The others stay known, so clients polling again read nothing.
            table = table.filter { !$0.value.waiters.isEmpty || $0.value.reading != nil || now - $0.value.lastWaited < retention }
            return Array(table.keys)
        }
        guard !keys.isEmpty else { return }
        var fresh: [Key: SyncCursor] = [:]
        let storage = self.storage
        let versionStores = keys.filter { $0.kind == .versions }.map(\.store)
        if !versionStores.isEmpty {
            counter.withLock { $0 += 1 }
            let cursors = try await withTimeLimit(storageTimeLimit, "polling the cursors of \(versionStores.count) waited stores") {
                try await storage.latestCursors(in: versionStores)
            }
            for (store, cursor) in cursors { fresh[Key(store: store, kind: .versions)] = cursor }
        }
        let blobStores = keys.filter { $0.kind == .blobs }.map(\.store)
        if !blobStores.isEmpty, let blobs = storage as? any BlobSyncStorage {
            counter.withLock { $0 += 1 }
            let cursors = try await withTimeLimit(storageTimeLimit, "polling the cursors of \(blobStores.count) waited blind stores") {
                try await blobs.latestBlobCursors(in: blobStores)
            }
            for (store, cursor) in cursors { fresh[Key(store: store, kind: .blobs)] = cursor }
        }
        // A store whose cursor is unknown (a change came during a read) is woken too.
        let moved = watches.withLock { table in
            fresh.filter { key, cursor in table[key].map { $0.cursor != cursor } ?? false }.map(\.key.store)
        }
        for store in Set(moved) { changed(store) }
    }

    /// Runs the feed and, where it polls, ``pollWaitedStores()`` every `interval`, until the
    /// task is cancelled.
    func run(feed: any SyncChangeFeed, pollInterval interval: Duration, logger: Logger) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await feed.run { [weak self] event in
                    switch event {
                    case .changed(let store): self?.changed(store)
                    case .resynchronize: self?.resynchronize()
                    }
                }
            }
            if feed.pollsStorage {
                group.addTask { [weak self] in
                    while !Task.isCancelled {
                        try? await Task.sleep(for: interval)
                        guard let hub = self else { return }
                        do {
                            try await hub.pollWaitedStores()
                        } catch {
                            logger.warning("polling the storage for waiting clients failed", metadata: ["error": "\(error)"])
                        }
                    }
                }
            }
            await group.waitForAll()
        }
    }
}

/// A storage read that did not answer within the hub's time limit.
struct StorageTimeLimitExceeded: Error, CustomStringConvertible {
    /// What was read.
    var what: String
    /// The limit it passed.
    var limit: Duration

    var description: String { "\(what): no answer from the storage within \(limit)" }

    /// The storage error a client is answered with when no read answers in its poll's time.
    var unavailable: SyncStorageError { .unavailable(description) }
}

/// The result of `operation`, or ``StorageTimeLimitExceeded`` naming `what` once `limit`
/// has passed without one. The operation is then cancelled and left to end on its own: one
/// that never returns (a continuation its driver never resumes) holds up no caller.
///
/// - Throws: What `operation` throws; ``StorageTimeLimitExceeded`` past `limit`;
///   `CancellationError` when the calling task is cancelled first.
func withTimeLimit<T: Sendable>(_ limit: Duration, _ what: String,
                                _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    let pending = Locked<CheckedContinuation<T, any Error>?>(nil)
    let tasks = Locked<[Task<Void, Never>]>([])
    /// Resumes the caller with the first outcome; later ones are dropped.
    @Sendable func finish(_ outcome: Result<T, any Error>) {
        guard let continuation = pending.withLock({ current -> CheckedContinuation<T, any Error>? in
            defer { current = nil }
            return current
        }) else { return }
        tasks.withLock { $0 }.forEach { $0.cancel() }
        continuation.resume(with: outcome)
    }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            pending.withLock { $0 = continuation }
            let work = Task {
                do { finish(.success(try await operation())) } catch { finish(.failure(error)) }
            }
            let timer = Task {
                try? await Task.sleep(for: limit)
                finish(.failure(StorageTimeLimitExceeded(what: what, limit: limit)))
            }
            tasks.withLock { $0 = [work, timer] }
            // An outcome that came before the tasks were recorded cancels them now.
            if pending.withLock({ $0 == nil }) { work.cancel(); timer.cancel() }
        }
    } onCancel: {
        finish(.failure(CancellationError()))
    }
}
