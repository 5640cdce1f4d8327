import Foundation
import GRDB
import LLVSCore
import LLVSZones

/// The SQLite storage backend: a store's value data, map nodes and version records in one
/// database file, `<root>/llvs-store.sqlite`, opened with GRDB in WAL mode — any number of
/// concurrent readers, one writer at a time across threads and processes, every batch of
/// writes in a single transaction, statements prepared once and reused.
///
/// ```swift
/// let store = try Store(rootDirectoryURL: url, storage: SQLiteStorage())
/// ```
///
/// The schema is created and upgraded by GRDB's `DatabaseMigrator` (SPEC.md, "SQLite
/// storage"). A file that is not an SQLite database, or one written by a newer LLVS (an
/// unknown schema migration), is refused with ``ZoneError/unsupportedFormat(path:found:)``.
public struct SQLiteStorage: Storage {
    /// The database file's name inside the store directory.
    public static let databaseFileName = "llvs-store.sqlite"

    /// How long a writer waits for another process's write transaction before failing.
    public var busyTimeout: TimeInterval

    /// Creates the backend; writers wait up to `busyTimeout` seconds for one another.
    public init(busyTimeout: TimeInterval = 30) {
        self.busyTimeout = busyTimeout
    }

    /// Opens (creating if needed) the database of the store at `rootDirectoryURL`.
    ///
    /// - Throws: ``ZoneError/unsupportedFormat(path:found:)`` for a file that is not an
    ///   SQLite database or has an unknown schema; ``ZoneError/io(operation:path:reason:)``
    ///   when the directory or file cannot be created or opened.
    public func makeZones(rootDirectoryURL: URL) throws -> StoreZones {
        let database = try SQLiteDatabase.open(rootDirectoryURL: rootDirectoryURL.standardizedFileURL, busyTimeout: busyTimeout)
        return StoreZones(values: SQLiteZone(database: database, zone: .values),
                          maps: SQLiteZone(database: database, zone: .maps),
                          versions: SQLiteVersionLog(database: database),
                          committer: SQLiteVersionCommitter(database: database),
                          close: { try database.close() })
    }
}
