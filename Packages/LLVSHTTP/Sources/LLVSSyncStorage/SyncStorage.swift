import Foundation
import LLVSCore
import LLVSExchange
import LLVSSyncProtocol

/// Where a sync server keeps its stores: SQLite (``SQLiteSyncStorage``), PostgreSQL
/// (`LLVSSyncPostgres.PostgresSyncStorage`), or a live LLVS store for peer to peer
/// (``StoreSyncStorage``).
///
/// Each store is a list of versions in the order they were stored, numbered by a sequence
/// that grows by one per version *in commit order*, so a reader that has seen sequence `n`
/// has seen every version numbered below `n`: a cursor never skips a version committed
/// late. A push is atomic: every version in it is stored, or none.
public protocol SyncStorage: Sendable {
    /// `sqlite`, `postgres` or `store`, for the health endpoint and the logs.
    var kind: String { get }

    /// Checks that the storage answers.
    ///
    /// - Throws: ``SyncStorageError/unavailable(_:)``.
    func checkHealth() async throws

    /// The identifiers of the versions stored after `cursor` (from the beginning when the
    /// cursor is nil or belongs to another incarnation of the store), at most `limit`.
    ///
    /// - Throws: ``SyncStorageError/unavailable(_:)``.
    func listVersions(in store: SyncStoreName, after cursor: SyncCursor?, limit: Int) async throws -> SyncListingPage

    /// The cursor after the store's last version.
    ///
    /// - Throws: ``SyncStorageError/unavailable(_:)``.
    func latestCursor(in store: SyncStoreName) async throws -> SyncCursor

    /// The latest cursor of each of `stores`, read at once where the storage can (one query
    /// on PostgreSQL): what a server instance polls for the stores its clients wait on.
    ///
    /// - Throws: ``SyncStorageError/unavailable(_:)``.
    func latestCursors(in stores: [SyncStoreName]) async throws -> [SyncStoreName: SyncCursor]

    /// The change feed a server over this storage uses unless configured otherwise
    /// (``PollingChangeFeed`` by default; PostgreSQL's `LISTEN`/`NOTIFY` for
    /// `PostgresSyncStorage`).
    func makeChangeFeed() -> any SyncChangeFeed

    /// The records (canonical JSON of each `Version`) of the versions found among `ids`.
    ///
    /// - Throws: ``SyncStorageError/unavailable(_:)``.
    func versionRecords(in store: SyncStoreName, identifiedBy ids: [Version.ID]) async throws -> [Data]

    /// The changes (canonical JSON of each `[Value.Change]`) of the versions found among `ids`.
    ///
    /// - Throws: ``SyncStorageError/unavailable(_:)``.
    func valueChanges(in store: SyncStoreName, identifiedBy ids: [Version.ID]) async throws -> [(Version.ID, Data)]

    /// Stores the versions atomically, skipping those stored already.
    ///
    /// - Throws: ``SyncStorageError/unknownPredecessors(_:)``,
    ///   ``SyncStorageError/conflictingVersion(_:)`` or ``SyncStorageError/invalidInput(_:)``
    ///   (nothing is stored then), ``SyncStorageError/unavailable(_:)``.
    func push(_ versions: [StoredVersion], to store: SyncStoreName) async throws -> SyncPushOutcome

    /// The newest published snapshot's manifest (canonical JSON), or nil.
    ///
    /// - Throws: ``SyncStorageError/unavailable(_:)``, ``SyncStorageError/unsupported(_:)``.
    func snapshotManifest(in store: SyncStoreName) async throws -> Data?

    /// Stores one chunk of a snapshot being uploaded (replacing an earlier upload of it).
    ///
    /// - Throws: ``SyncStorageError/unavailable(_:)``, ``SyncStorageError/unsupported(_:)``.
    func storeSnapshotChunk(_ data: Data, index: Int, snapshotId: String, in store: SyncStoreName) async throws

    /// One chunk of a stored snapshot, or nil.
    ///
    /// - Throws: ``SyncStorageError/unavailable(_:)``, ``SyncStorageError/unsupported(_:)``.
    func snapshotChunk(index: Int, snapshotId: String, in store: SyncStoreName) async throws -> Data?

    /// Publishes a snapshot whose chunks are stored, after checking each against the
    /// manifest's sizes and checksums. Keeps the previous snapshot (a replica may be
    /// downloading it) and removes older ones.
    ///
    /// - Throws: ``SyncStorageError/invalidSnapshot(_:)`` naming the first bad chunk,
    ///   ``SyncStorageError/unavailable(_:)``, ``SyncStorageError/unsupported(_:)``.
    func publishSnapshot(_ manifest: SnapshotManifest, in store: SyncStoreName) async throws
}

extension SyncStorage {
    /// Reads each store's latest cursor in turn.
    ///
    /// - Throws: ``SyncStorageError/unavailable(_:)``.
    public func latestCursors(in stores: [SyncStoreName]) async throws -> [SyncStoreName: SyncCursor] {
        var cursors: [SyncStoreName: SyncCursor] = [:]
        for store in stores { cursors[store] = try await latestCursor(in: store) }
        return cursors
    }

    /// ``PollingChangeFeed``.
    public func makeChangeFeed() -> any SyncChangeFeed { PollingChangeFeed() }
}

/// One page of a store's version list.
public struct SyncListingPage: Sendable, Hashable {
    /// The identifiers, in storage order.
    public var versionIds: [Version.ID]
    /// The cursor after the last identifier (or the one passed in, when none).
    public var cursor: SyncCursor
    /// True when the page starts at the beginning of the list.
    public var isCompleteListing: Bool
    /// True when more versions follow the page.
    public var hasMore: Bool

    /// Creates a page.
    public init(versionIds: [Version.ID], cursor: SyncCursor, isCompleteListing: Bool, hasMore: Bool) {
        self.versionIds = versionIds
        self.cursor = cursor
        self.isCompleteListing = isCompleteListing
        self.hasMore = hasMore
    }
}

/// What a push stored.
public struct SyncPushOutcome: Sendable, Hashable {
    /// The versions stored, in push order.
    public var added: [Version.ID]
    /// How many pushed versions were stored already.
    public var alreadyPresentCount: Int
    /// The store's cursor after the push.
    public var cursor: SyncCursor

    /// Creates an outcome.
    public init(added: [Version.ID], alreadyPresentCount: Int, cursor: SyncCursor) {
        self.added = added
        self.alreadyPresentCount = alreadyPresentCount
        self.cursor = cursor
    }
}

/// Why a storage operation failed.
public enum SyncStorageError: Error, Hashable, CustomStringConvertible {
    /// These versions' predecessors are neither stored nor earlier in the push.
    case unknownPredecessors([Version.ID: [Version.ID]])
    /// This version is stored already with a different record.
    case conflictingVersion(Version.ID)
    /// A snapshot cannot be published; the reason names the chunk or field.
    case invalidSnapshot(String)
    /// The storage does not offer this operation.
    case unsupported(String)
    /// The request holds something the storage cannot store (the reason names it); the
    /// same request would fail again, so it is the client's error (422 `invalidContent`).
    case invalidInput(String)
    /// A blind store's write without the write token of its current key epoch (the
    /// reason says which case).
    case writeTokenRejected(String)
    /// The database failed or cannot be reached.
    case unavailable(String)

    /// A sentence naming the problem.
    public var description: String {
        switch self {
        case .unknownPredecessors(let missing):
            let list = missing.sorted { $0.key < $1.key }.map { "\($0.key) needs \($0.value.map(\.rawValue).joined(separator: ", "))" }
            return "Predecessors are neither on the server nor earlier in the push: \(list.joined(separator: "; "))"
        case .conflictingVersion(let id):
            return "Version \(id) is stored already with a different record"
        case .invalidSnapshot(let reason):
            return "The snapshot cannot be published: \(reason)"
        case .unsupported(let what):
            return what
        case .invalidInput(let reason):
            return "The request cannot be stored: \(reason)"
        case .writeTokenRejected(let reason):
            return "The write is refused: \(reason)"
        case .unavailable(let reason):
            return "The storage is unavailable: \(reason)"
        }
    }
}
