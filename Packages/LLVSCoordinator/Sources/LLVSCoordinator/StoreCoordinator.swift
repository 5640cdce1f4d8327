import Foundation
import LLVSCore
import LLVSExchange
import LLVSMerge
import LLVSStore
import LLVSSupport
import LLVSZones

/// The simplest way to use LLVS in an app: wraps a `LLVSStore.Store`, tracks the version
/// the app reads from and saves on (``currentVersion``, kept across launches), exchanges
/// versions with other replicas through an `LLVSExchange.Exchange`, merges what arrives
/// with a `LLVSMerge.MergeArbiter`, uploads snapshots by a `LLVSExchange.SnapshotPolicy`
/// and bootstraps a new replica from one.
///
/// ```swift
/// let coordinator = try StoreCoordinator()
/// coordinator.exchange = FileSystemExchange(rootDirectoryURL: sharedURL, store: coordinator.store)
/// try coordinator.save(updating: [Value(idString: "MESSAGE", data: Data("Hello".utf8))])
/// coordinator.exchange { _ in coordinator.merge() }
/// ```
///
/// **The empty root.** A store the coordinator finds empty gets one initial version,
/// ``emptyRootVersionID``: no predecessors, no values, timestamp 0. It is identical on every
/// replica, so replicas that start empty share it as a common ancestor, and "the store is
/// empty" (the condition of ``bootstrapFromSnapshot()``) means it holds no version but that
/// one. A store that already holds versions at the first launch starts at its most recent head.
///
/// **State file.** The current version, the exchange's restoration state and the snapshot
/// bookkeeping are written atomically to `coordinator.json` in the cache directory whenever
/// they change. A missing, unreadable or corrupt file, or one naming a version the store
/// does not hold, never stops the coordinator: it starts at the store's most recent head (or
/// the empty root), rewrites the file, and reports the problem in ``recoveredStateProblem``.
///
/// The coordinator is `Sendable`: every method may be called from any thread or task.
/// Saves and merges are serialized with each other; exchanges and snapshot bootstraps run
/// one at a time, in the order they were requested.
public final class StoreCoordinator: Sendable {
    /// The identifier of the empty root version every replica's coordinator creates in an
    /// empty store: `LLVS-EMPTY-ROOT`, with no predecessors, no values and timestamp 0.
    public static let emptyRootVersionID = Version.ID("LLVS-EMPTY-ROOT")

    /// The wrapped store. Versions made on it directly are seen by the coordinator once
    /// merged (``merge(metadata:headSelection:)``).
    public let store: Store

    /// The directory holding the store.
    public let storeDirectoryURL: URL

    /// The directory holding the coordinator's state file and snapshot staging.
    public let cacheDirectoryURL: URL

    /// When snapshots are uploaded after an exchange.
    public let snapshotPolicy: SnapshotPolicy

    /// What was wrong with the state file when this coordinator started (nil when it was
    /// fine or absent): the coordinator then started at the store's most recent head.
    public let recoveredStateProblem: String?

    struct State: Sendable {
        var persisted: CoordinatorState
        var exchange: (any Exchange)?
        var mergeArbiter: any MergeArbiter & Sendable = MostRecentChangeFavoringArbiter()
        var defaultMetadataForNewVersions: Version.Metadata = [:]
        var observers: [UUID: AsyncStream<Version.ID>.Continuation] = [:]
        var lastSnapshotError: (any Error)?
        var lastBootstrapSkipReason: String?
        var logHandler: (@Sendable (String) -> Void)?
        var lastMergeError: (any Error)?
        var lastPersistenceError: (any Error)?
        /// Incremented whenever ``persisted`` changes, so older states are never written
        /// over newer ones.
        var generation: UInt64 = 0
    }

    let state: Locked<State>
    /// Serializes saves and merges (reading the base version, writing, moving the current version).
    ///
    /// A plain lock rather than `Locked<Void>`: the thread sanitizer's exclusivity checks
    /// misattribute accesses to a zero-sized guarded state and report a race on it.
    let writes = NSLock()
    /// The generation last written to the state file; its lock serializes the writes.
    let writtenGeneration = Locked<UInt64>(0)
    /// Exchanges and bootstraps, one at a time.
    let turns = SerialTurns()
    let stateFileURL: URL

    /// Opens (creating if needed) a store in the default location: on Linux
    /// `$XDG_DATA_HOME/LLVS/DefaultStore` (or `~/.local/share/…`) with its state in
    /// `$XDG_CACHE_HOME/LLVS/CoordinatorCache` (or `~/.cache/…`); on Apple platforms in
    /// Application Support and Caches. For more than one store, use
    /// ``init(withStoreDirectoryAt:cacheDirectoryAt:snapshotPolicy:storage:)``.
    ///
    /// - Throws: ``StoreCoordinatorError`` when no default location exists or a directory
    ///   or the state file cannot be written; the store's `StoreError` when it cannot be opened.
    public convenience init(snapshotPolicy: SnapshotPolicy = .disabled) throws {
        try self.init(withStoreDirectoryAt: try Self.defaultStoreDirectoryURL(),
                      cacheDirectoryAt: try Self.defaultCacheDirectoryURL(),
                      snapshotPolicy: snapshotPolicy)
    }

    /// Opens (creating if needed) the store at `storeURL`, keeping the coordinator's state
    /// in `cacheURL`. Both directories are created if missing.
    ///
    /// - Parameters:
    ///   - storeURL: The store's directory.
    ///   - cacheURL: The directory for the state file and snapshot staging (not inside the
    ///     store directory).
    ///   - snapshotPolicy: When to upload snapshots after exchanges (`.disabled` by default).
    ///   - storage: The store's storage backend (`FileStorage()` by default).
    /// - Throws: ``StoreCoordinatorError/cannotCreateDirectory(path:reason:)``,
    ///   ``StoreCoordinatorError/cannotWriteState(path:reason:)``, or the store's
    ///   `StoreError` when it cannot be opened or the empty root cannot be added.
    public init(withStoreDirectoryAt storeURL: URL, cacheDirectoryAt cacheURL: URL,
                snapshotPolicy: SnapshotPolicy = .disabled, storage: any Storage = FileStorage()) throws {
        for directory in [storeURL, cacheURL] {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw StoreCoordinatorError.cannotCreateDirectory(path: directory.path, reason: "\(error)")
            }
        }
        let store = try Store(rootDirectoryURL: storeURL, storage: storage)
        self.store = store
        self.storeDirectoryURL = storeURL
        self.cacheDirectoryURL = cacheURL
        self.snapshotPolicy = snapshotPolicy
        self.stateFileURL = cacheURL.appendingPathComponent(CoordinatorState.fileName)

        let persisted: CoordinatorState
        var problem: String?
        var mustWrite = false
        switch CoordinatorState.load(from: stateFileURL) {
        case .state(let loaded) where store.historyIncludesVersions(identifiedBy: [loaded.currentVersion]):
            persisted = loaded
        case .state(let loaded):
            problem = "\(stateFileURL.path) names version \(loaded.currentVersion), which is not in the store"
            persisted = CoordinatorState(currentVersion: try Self.startingVersion(of: store))
            mustWrite = true
        case .unusable(let reason):
            problem = reason
            persisted = CoordinatorState(currentVersion: try Self.startingVersion(of: store))
            mustWrite = true
        case .missing:
            persisted = CoordinatorState(currentVersion: try Self.startingVersion(of: store))
            mustWrite = true
        }
        self.recoveredStateProblem = problem
        self.state = Locked(State(persisted: persisted))
        if mustWrite { try writeState() }
    }

    deinit {
        let observers = state.withLock { state in
            defer { state.observers = [:] }
            return Array(state.observers.values)
        }
        for observer in observers { observer.finish() }
    }

    /// The store's most recent head, or the empty root (added now) for an empty store.
    private static func startingVersion(of store: Store) throws -> Version.ID {
        if let head = store.mostRecentHead { return head.id }
        try store.addVersion(Version(id: emptyRootVersionID, predecessors: nil, timestamp: 0), storing: [])
        return emptyRootVersionID
    }

    // MARK: Properties

    /// The version the app reads from (``value(id:)``) and saves on (``save(_:in:metadata:)``).
    /// Moves on every save and on merges; kept across launches.
    public var currentVersion: Version.ID {
        state.withLock { $0.persisted.currentVersion }
    }

    /// A new stream of the current version: it first yields the current version, then every
    /// new one (after saves, merges and bootstraps), in order. The stream ends when the
    /// consumer stops iterating or the coordinator is released. The role of the reference
    /// LLVS's `currentVersionSubject`.
    public var currentVersions: AsyncStream<Version.ID> {
        AsyncStream(bufferingPolicy: .unbounded) { continuation in
            let id = UUID()
            state.withLock { state in
                state.observers[id] = continuation
                continuation.yield(state.persisted.currentVersion)
            }
            continuation.onTermination = { [weak self] _ in
                self?.state.withLock { _ = $0.observers.removeValue(forKey: id) }
            }
        }
    }

    /// The exchange ``exchange()`` syncs through, or nil (then exchanging does nothing).
    /// Setting an exchange gives it the restoration state remembered from the last
    /// exchange (if any), so syncs stay incremental across launches.
    public var exchange: (any Exchange)? {
        get { state.withLock { $0.exchange } }
        set {
            let restoration = state.withLock { state in
                state.exchange = newValue
                return state.persisted.exchangeRestorationState
            }
            if let restoration { newValue?.restorationState = restoration }
        }
    }

    /// The arbiter merges resolve conflicts with (`LLVSMerge.MostRecentChangeFavoringArbiter`
    /// by default). For replicas to converge it must be deterministic and the same on every
    /// replica.
    public var mergeArbiter: any MergeArbiter & Sendable {
        get { state.withLock { $0.mergeArbiter } }
        set { state.withLock { $0.mergeArbiter = newValue } }
    }

    /// The metadata of versions saved without explicit metadata. Merges do not take it
    /// (SPEC.md section 9, "The merge record": merges carry no replica-specific metadata,
    /// so replicas with different defaults still settle on one head).
    public var defaultMetadataForNewVersions: Version.Metadata {
        get { state.withLock { $0.defaultMetadataForNewVersions } }
        set { state.withLock { $0.defaultMetadataForNewVersions = newValue } }
    }

    /// The error of the last snapshot upload after an exchange, or nil if it succeeded (or
    /// none was tried). A failed upload never fails the exchange.
    public var lastSnapshotError: (any Error)? {
        state.withLock { $0.lastSnapshotError }
    }

    /// Why the last ``bootstrapFromSnapshot()`` restored nothing (no snapshot exchange or
    /// storage, a store that is not empty, no snapshot, or a snapshot format this storage
    /// cannot restore), or nil when it restored one or none was tried. The same reason goes
    /// to ``logHandler``.
    public var lastBootstrapSkipReason: String? {
        state.withLock { $0.lastBootstrapSkipReason }
    }

    /// Receives a sentence for each thing the coordinator decides on its own — a skipped
    /// bootstrap and why, a snapshot upload skipped because the exchange holds a fresh one —
    /// for the app to log (with swift-log, `os.Logger` or `print`). Nil, the default, drops
    /// them; the coordinator depends on no logging library.
    public var logHandler: (@Sendable (String) -> Void)? {
        get { state.withLock { $0.logHandler } }
        set { state.withLock { $0.logHandler = newValue } }
    }

    /// Passes `message` to ``logHandler``.
    func log(_ message: String) {
        state.withLock { $0.logHandler }?(message)
    }

    /// The error of the last ``merge(metadata:headSelection:)``, or nil if it succeeded.
    public var lastMergeError: (any Error)? {
        state.withLock { $0.lastMergeError }
    }

    /// The error of the last attempt to write the state file after a change, or nil if it
    /// succeeded. The change itself (a save, a merge) has been made; the file is written
    /// again on the next change.
    public var lastPersistenceError: (any Error)? {
        state.withLock { $0.lastPersistenceError }
    }

    /// When the last snapshot was uploaded (or bootstrapped from) by this coordinator, or nil.
    public var lastSnapshotDate: Date? {
        state.withLock { $0.persisted.lastSnapshotDate }
    }

    /// The number of versions in the store at the last snapshot (0 if none).
    public var versionCountAtLastSnapshot: Int {
        state.withLock { $0.persisted.versionCountAtLastSnapshot }
    }

    // MARK: State changes

    /// Moves the current version to `id` (under the caller's write lock), tells the
    /// observers and writes the state file.
    func moveCurrentVersion(to id: Version.ID) {
        let changed = state.withLock { state -> Bool in
            guard state.persisted.currentVersion != id else { return false }
            state.persisted.currentVersion = id
            state.generation += 1
            // Yielding under the lock keeps every stream in the order of the changes.
            for observer in state.observers.values { observer.yield(id) }
            return true
        }
        if changed { persist() }
    }

    /// Applies `change` to the persisted state and writes the state file.
    func updatePersisted(_ change: (inout CoordinatorState) -> Void) {
        state.withLock { state in
            change(&state.persisted)
            state.generation += 1
        }
        persist()
    }

    /// Writes the state file, recording a failure in ``lastPersistenceError``.
    func persist() {
        do {
            try writeState()
            state.withLock { $0.lastPersistenceError = nil }
        } catch {
            state.withLock { $0.lastPersistenceError = error }
        }
    }

    /// Writes the newest state to the state file unless a newer one was written already.
    ///
    /// - Throws: ``StoreCoordinatorError/cannotWriteState(path:reason:)``.
    private func writeState() throws {
        try writtenGeneration.withLock { (written) throws(StoreCoordinatorError) in
            let (snapshot, generation) = state.withLock { ($0.persisted, $0.generation) }
            guard generation > written || generation == 0 else { return }
            do {
                try DurableFile.write(try CanonicalJSON.encode(snapshot), to: stateFileURL)
            } catch {
                throw StoreCoordinatorError.cannotWriteState(path: stateFileURL.path, reason: "\(error)")
            }
            written = generation
        }
    }
}
