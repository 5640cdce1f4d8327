import Foundation
import GRDB
import LLVSZones

/// The opened database of one store, shared by its zones and version log.
final class SQLiteDatabase: Sendable {
    let pool: DatabasePool
    let path: String

    private init(pool: DatabasePool, path: String) {
        self.pool = pool
        self.path = path
    }

    /// The page size of new databases: SQLite's default, 4 KiB. Since schema `v3` items are
    /// rows of a rowid table, whose leaf pages hold rows of up to 4,061 bytes without an
    /// overflow page (map nodes are about 1.2 KB), and a commit appends its rows: each page
    /// a commit writes to the write-ahead log is mostly new rows, so small pages mean few
    /// bytes to sync (W1: about 76 KB a version, where 16 KiB pages wrote 213 KB).
    /// Databases made with another page size keep it.
    static let pageSize = 4_096

    /// The schema, one GRDB migration per change (SPEC.md, "SQLite storage"). Never edit a
    /// registered migration: add a new one.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            // zone: 0 values, 1 maps. Items are never updated or deleted.
            try db.execute(sql: """
                CREATE TABLE zone_item (
                    zone INTEGER NOT NULL,
                    version TEXT NOT NULL,
                    key TEXT NOT NULL,
                    data BLOB NOT NULL,
                    PRIMARY KEY (zone, version, key)
                ) WITHOUT ROWID;
                CREATE TABLE version_record (
                    sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                    record BLOB NOT NULL
                );
                """)
        }
        migrator.registerMigration("v2") { db in try migrateToChecksummedBlobs(db) }
        migrator.registerMigration("v3") { db in try migrateToInsertionOrder(db) }
        return migrator
    }

    /// Migration `v2`: identifiers become BLOBs of their UTF-8 bytes (GRDB binds a `String`
    /// as C text, which ends at the first NUL, so `"a\0b"` and `"a"` were one key), and every
    /// item and version record gets a checksum (``SQLiteRowChecksum``) that reads verify.
    /// Existing rows are copied with their checksums computed now.
    static func migrateToChecksummedBlobs(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE zone_item_v2 (
                zone INTEGER NOT NULL,
                version BLOB NOT NULL,
                key BLOB NOT NULL,
                data BLOB NOT NULL,
                checksum BLOB NOT NULL,
                PRIMARY KEY (zone, version, key)
            ) WITHOUT ROWID;
            """)
        let insertItem = try db.makeStatement(sql: "INSERT OR IGNORE INTO zone_item_v2 (zone, version, key, data, checksum) VALUES (?, ?, ?, ?, ?)")
        let items = try Row.fetchCursor(db, sql: """
            SELECT zone, CAST(version AS BLOB) AS version, CAST(key AS BLOB) AS key, data
            FROM zone_item ORDER BY zone, version, key
            """)
        while let row = try items.next() {
            guard let zone = row.integer(at: 0).flatMap({ Int(exactly: $0) }), let version = row.bytes(at: 1), let key = row.bytes(at: 2),
                  let data = row.bytes(at: 3) else {
                throw ZoneError.corrupt(path: "zone_item", reason: "a row of the v1 schema has a missing or mistyped column")
            }
            let checksum = SQLiteRowChecksum.item(zone: zone, version: version, key: key, data: data)
            try insertItem.execute(arguments: [zone, version, key, data, checksum])
        }
        try db.execute(sql: """
            DROP TABLE zone_item;
            ALTER TABLE zone_item_v2 RENAME TO zone_item;
            ALTER TABLE version_record ADD COLUMN checksum BLOB NOT NULL DEFAULT x'';
            """)
        let updateRecord = try db.makeStatement(sql: "UPDATE version_record SET checksum = ? WHERE sequence = ?")
        let records = try Row.fetchCursor(db, sql: "SELECT sequence, record FROM version_record ORDER BY sequence")
        while let row = try records.next() {
            guard let sequence = row.integer(at: 0), let record = row.bytes(at: 1) else {
                throw ZoneError.corrupt(path: "version_record", reason: "a row of the v1 schema has a missing or mistyped column")
            }
            try updateRecord.execute(arguments: [SQLiteRowChecksum.record(record), sequence])
        }
    }

    /// Migration `v3`: items move into a table ordered by insertion (a rowid, `sequence`)
    /// with a unique index on their address. In `v2` the address itself ordered the table,
    /// and it starts with the random version identifier, so every commit inserted its rows
    /// in the middle of the B-tree, splitting pages there and rewriting their parents; now
    /// a commit appends its rows at the end of the table and only its index entries (about
    /// 100 bytes each) land at a random place: one place, as the index leads with the
    /// version, so a version's value and map-node entries sit together (led by the zone,
    /// they were two places, and a W1 commit wrote 9 index pages instead of 5). Rows and
    /// checksums are copied unchanged, a version's rows together. The version log loses
    /// `AUTOINCREMENT`, which updated a page of `sqlite_sequence` at every commit: records
    /// are never deleted, so SQLite's next rowid (one more than the largest) is the same
    /// sequence; records keep their sequence numbers.
    static func migrateToInsertionOrder(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE zone_item_v3 (
                sequence INTEGER PRIMARY KEY,
                zone INTEGER NOT NULL,
                version BLOB NOT NULL,
                key BLOB NOT NULL,
                data BLOB NOT NULL,
                checksum BLOB NOT NULL
            );
            INSERT INTO zone_item_v3 (zone, version, key, data, checksum)
                SELECT zone, version, key, data, checksum FROM zone_item ORDER BY version, zone, key;
            DROP TABLE zone_item;
            ALTER TABLE zone_item_v3 RENAME TO zone_item;
            CREATE UNIQUE INDEX zone_item_address ON zone_item (version, zone, key);
            CREATE TABLE version_record_v3 (
                sequence INTEGER PRIMARY KEY,
                record BLOB NOT NULL,
                checksum BLOB NOT NULL
            );
            INSERT INTO version_record_v3 (sequence, record, checksum)
                SELECT sequence, record, checksum FROM version_record ORDER BY sequence;
            DROP TABLE version_record;
            ALTER TABLE version_record_v3 RENAME TO version_record;
            """)
    }

    /// Opens (creating and migrating if needed) the database in `rootDirectoryURL`.
    /// Each connection caches up to `pageCacheByteLimit` bytes of pages, rounded down to
    /// whole KiB, at least 1 KiB (SQLite keeps the few pages a statement needs whatever
    /// the limit) and at most 2^31 − 1 KiB (SQLite reads a larger `cache_size` as 0).
    static func open(rootDirectoryURL: URL, busyTimeout: TimeInterval, durability: SQLiteStorage.Durability = .full,
                     pageCacheByteLimit: Int = SQLiteStorage.defaultPageCacheByteLimit) throws -> SQLiteDatabase {
        let path = rootDirectoryURL.appendingPathComponent(SQLiteStorage.databaseFileName).path
        do {
            try FileManager.default.createDirectory(at: rootDirectoryURL, withIntermediateDirectories: true)
        } catch {
            throw ZoneError.io(operation: "create directory", path: rootDirectoryURL.path, reason: "\(error)")
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.label = "LLVS store"
        configuration.prepareDatabase { db in
            // A negative `cache_size` is a limit in KiB.
            try db.execute(sql: "PRAGMA cache_size = -\(min(Int(Int32.max), max(1, pageCacheByteLimit / 1_024)))")
            // Applies to a new database only (before its first table and before WAL mode).
            try db.execute(sql: "PRAGMA page_size = \(pageSize)")
        }
        let pool: DatabasePool
        do {
            pool = try openPool(path: path, configuration: configuration, busyTimeout: busyTimeout)
        } catch {
            throw describe(error, path: path, operation: "open")
        }
        let migrator = Self.migrator
        do {
            let superseded = try pool.read { db in try migrator.hasBeenSuperseded(db) }
            if superseded {
                let applied = try pool.read { db in try migrator.appliedIdentifiers(db) }
                throw ZoneError.unsupportedFormat(path: path, found: "schema migrations \(applied.sorted()) from a newer LLVS")
            }
            try migrate(pool, with: migrator)
            // After the pool's setup, which leaves the writer at GRDB's `NORMAL`.
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = \(durability.synchronousPragma)") }
        } catch let error as ZoneError {
            throw error
        } catch {
            throw describe(error, path: path, operation: "open")
        }
        return SQLiteDatabase(pool: pool, path: path)
    }

    /// Opens the connection pool, which switches the database to WAL mode. Switching needs
    /// an exclusive lock, and SQLite answers `SQLITE_BUSY` at once, without waiting in the
    /// busy handler, when another process or connection opening the same new database holds
    /// a lock it would need (waiting could deadlock). Such an open is tried again after a
    /// short random pause until `busyTimeout` has passed; any other error is thrown at once.
    private static func openPool(path: String, configuration: Configuration, busyTimeout: TimeInterval) throws -> DatabasePool {
        let deadline = Date().addingTimeInterval(max(0, busyTimeout))
        while true {
            do {
                return try DatabasePool(path: path, configuration: configuration)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
                guard Date() < deadline else { throw error }
                Thread.sleep(forTimeInterval: Double.random(in: 0.002...0.02))
            }
        }
    }

    /// Applies the migrations. Processes opening a new database at the same moment race:
    /// each reads "nothing applied", and the one whose transaction comes second fails
    /// (its tables exist by then). A failed attempt is therefore accepted when another
    /// process has completed the migrations meanwhile, and retried otherwise.
    private static func migrate(_ pool: DatabasePool, with migrator: DatabaseMigrator) throws {
        var attempt = 0
        while true {
            do {
                try migrator.migrate(pool)
                return
            } catch {
                if try pool.read({ db in try migrator.hasCompletedMigrations(db) }) { return }
                attempt += 1
                if attempt >= 5 { throw error }
            }
        }
    }

    /// The zone error for an SQLite failure: a file that is not a database is an
    /// unsupported format, anything else an I/O failure naming the file.
    static func describe(_ error: any Error, path: String, operation: String) -> ZoneError {
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_NOTADB:
                return .unsupportedFormat(path: path, found: "a file that is not an SQLite database")
            case .SQLITE_CORRUPT:
                return .corrupt(path: path, reason: error.message ?? "SQLite reports a malformed database")
            default:
                return .io(operation: operation, path: path, reason: error.description)
            }
        }
        return .io(operation: operation, path: path, reason: "\(error)")
    }

    /// Runs a read, converting errors.
    func read<T>(_ operation: String, _ body: (Database) throws -> T) throws -> T {
        try converting(operation) { try pool.read(body) }
    }

    /// Runs statements outside an implicit transaction (VACUUM, ATTACH), converting errors.
    func writeWithoutTransaction<T>(_ operation: String, _ body: (Database) throws -> T) throws -> T {
        try converting(operation) { try pool.writeWithoutTransaction(body) }
    }

    /// Runs a write transaction, converting errors.
    func write<T>(_ operation: String, _ body: (Database) throws -> T) throws -> T {
        try converting(operation) { try pool.write(body) }
    }

    /// Copies the write-ahead log into the database file and empties it, then closes every
    /// connection (GRDB's readers are read-only and cannot checkpoint as they close, so the
    /// writer does it first). Later operations fail with a ``ZoneError``.
    ///
    /// - Throws: ``ZoneError/io(operation:path:reason:)`` when a reader keeps the log from
    ///   being emptied or a statement is still running; the database then stays open.
    func close() throws {
        try converting("close") {
            _ = try pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
            try pool.close()
        }
    }

    /// Copies the write-ahead log into the database and truncates it, if no reader is in
    /// the way, on the writer's queue after the writes queued there already and before any
    /// later one, without making the caller wait: the commit that filled the log is durable
    /// in it, and the copy of a large one takes a while (W8's 400 MB: about a second). Best
    /// effort: the log is correct either way, only larger on disk. ``close()`` and every
    /// later write of this process run after it. It also turns the writer's automatic
    /// checkpoint back on (a large commit turns it off), at SQLite's default of
    /// ``autocheckpointPages``.
    func truncateWriteAheadLogSoon() {
        pool.asyncWriteWithoutTransaction { db in
            _ = try? db.checkpoint(.truncate)
            try? db.execute(sql: "PRAGMA wal_autocheckpoint = \(Self.autocheckpointPages)")
        }
    }

    /// The writer checkpoints the write-ahead log after a commit that leaves it longer than
    /// this many pages: SQLite's default.
    static let autocheckpointPages = 1_000

    /// Runs `body`, turning GRDB's errors into ``ZoneError``s naming the database file.
    private func converting<T>(_ operation: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as ZoneError {
            throw error
        } catch {
            throw Self.describe(error, path: path, operation: operation)
        }
    }
}
