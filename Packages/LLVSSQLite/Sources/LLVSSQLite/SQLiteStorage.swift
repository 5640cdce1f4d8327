import Foundation
import GRDB
import LLVSCore
import LLVSZones

/// The SQLite storage backend: a store's value data, map nodes and version records in one
/// database file, `<root>/llvs-store.sqlite`, opened with GRDB in WAL mode — any number of
/// concurrent readers, one writer at a time across threads and processes, every batch of
/// writes in a single transaction, statements prepared once and reused. Every commit is
/// durable when it returns (unless ``durability`` says otherwise), and every row carries a
/// checksum that reads verify: a damaged row is a `ZoneError.corrupt(path:reason:)`
/// naming it, never wrong bytes. Identifiers are stored as their UTF-8 bytes, NUL included.
///
/// ```swift
/// let store = try Store(rootDirectoryURL: url, storage: SQLiteStorage())
/// ```
///
/// The schema is created and upgraded by GRDB's `DatabaseMigrator` (SPEC.md, "SQLite
/// storage"). A file that is not an SQLite database, or one written by a newer LLVS (an
/// unknown schema migration), is refused with `ZoneError.unsupportedFormat(path:found:)`.
public struct SQLiteStorage: Storage {
    /// The database file's name inside the store directory.
    public static let databaseFileName = "llvs-store.sqlite"

    /// When a commit reaches stable storage.
    public enum Durability: Sendable, Hashable {
        /// Every commit is on stable storage when it returns: SQLite syncs the write-ahead
        /// log at each commit (`PRAGMA synchronous = FULL`). A version whose write returned
        /// survives a power loss or an operating-system crash. The default.
        case full
        /// Commits return once SQLite has handed them to the operating system, and the
        /// write-ahead log is synced only at checkpoints (`PRAGMA synchronous = NORMAL`):
        /// faster, and a killed process still loses nothing, but a power loss or an
        /// operating-system crash may undo the latest commits. The database stays
        /// consistent either way: whole versions are lost, never parts of one.
        case relaxed

        var synchronousPragma: String {
            switch self {
            case .full: "FULL"
            case .relaxed: "NORMAL"
            }
        }
    }

    /// How long a writer waits for another process's write transaction before failing.
    public var busyTimeout: TimeInterval

    /// When a commit reaches stable storage; ``Durability/full`` unless a caller opts out.
    public var durability: Durability

    /// How many bytes of database pages each of the store's SQLite connections may cache:
    /// the writer, and each reader a read has used (GRDB opens readers as concurrent reads
    /// need them, up to 5). ``defaultPageCacheByteLimit`` unless the caller sets it.
    public var pageCacheByteLimit: Int

    /// The default ``pageCacheByteLimit``: 2 MiB a connection, SQLite's own default. With
    /// the 4 KiB pages and insertion-ordered items of schema `v3`, a larger cache does not
    /// pay for its memory: W1's serial versions and W2's reads of a fresh opening run as
    /// fast with 2 MiB as with 16 MiB (W2: 26 against 25 µs a cold read), and the W10
    /// process, with four databases open, peaks at 98 MB instead of 138 MB.
    public static let defaultPageCacheByteLimit = 2 << 20

    /// Creates the backend; writers wait up to `busyTimeout` seconds for one another,
    /// commits are as durable as `durability` says, and each connection caches up to
    /// `pageCacheByteLimit` bytes of pages (a limit under 1 KiB, negative ones included,
    /// counts as 1 KiB: SQLite then keeps only the few pages a statement needs; one over
    /// 2 TiB counts as 2 TiB).
    public init(busyTimeout: TimeInterval = 30, durability: Durability = .full,
                pageCacheByteLimit: Int = SQLiteStorage.defaultPageCacheByteLimit) {
        self.busyTimeout = busyTimeout
        self.durability = durability
        self.pageCacheByteLimit = pageCacheByteLimit
    }

    /// Opens (creating if needed) the database of the store at `rootDirectoryURL`.
    ///
    /// - Throws: `ZoneError.unsupportedFormat(path:found:)` for a file that is not an
    ///   SQLite database or has an unknown schema; `ZoneError.io(operation:path:reason:)`
    ///   when the directory or file cannot be created or opened.
    public func makeZones(rootDirectoryURL: URL) throws -> StoreZones {
        let database = try SQLiteDatabase.open(rootDirectoryURL: rootDirectoryURL.standardizedFileURL, busyTimeout: busyTimeout, durability: durability,
                                                pageCacheByteLimit: pageCacheByteLimit)
        return StoreZones(values: SQLiteZone(database: database, zone: .values),
                          maps: SQLiteZone(database: database, zone: .maps),
                          versions: SQLiteVersionLog(database: database),
                          committer: SQLiteVersionCommitter(database: database),
                          close: { try database.close() },
                          checkStoredBytes: { database.checkStoredBytes() })
    }
}
