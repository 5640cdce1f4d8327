import Foundation
import GRDB
import LLVSCore
import LLVSExchange
import LLVSSyncProtocol

/// The sync server's embedded storage: one SQLite database file (WAL mode) holding every
/// store. Several server processes may share the file; pushes take SQLite's write lock, so
/// sequence numbers follow commit order.
///
/// Tables (SPEC.md section 15): `llvs_stores(name, identity, last_sequence)`,
/// `llvs_versions(store, sequence, id, record, changes)` (`id` the BLOB of the version
/// identifier's UTF-8 bytes, so any identifier, NUL included, is kept byte for byte), `llvs_snapshots(store,
/// snapshot_id, previous_id, manifest)` and `llvs_snapshot_chunks(store, snapshot_id,
/// chunk_index, data)`; for blind stores, `llvs_blind_stores(name, identity, last_sequence,
/// write_token_hash)` and `llvs_blobs(store, sequence, name, data)`.
public final class SQLiteSyncStorage: BlobSyncStorage {
    /// `sqlite`.
    public let kind = "sqlite"
    /// The database file.
    public let fileURL: URL
    private let pool: DatabasePool

    /// Opens (creating if needed) the database at `fileURL`, creating its tables or
    /// migrating an older schema (`migrator`).
    ///
    /// - Throws: ``SyncStorageError/unavailable(_:)`` naming the file when it cannot be
    ///   opened, is not a sync server database, or was written by a newer version of the
    ///   server (it lists a migration this one does not know).
    public init(fileURL: URL) throws {
        self.fileURL = fileURL
        var configuration = Configuration()
        configuration.busyMode = .timeout(30)
        do {
            try FileManager.default.createDirectory(at: fileURL.deletingLastPathComponent(), withIntermediateDirectories: true)
            pool = try Self.openPool(path: fileURL.path, configuration: configuration)
        } catch {
            throw SyncStorageError.unavailable("cannot open \(fileURL.path): \(error)")
        }
        try Self.migrate(pool, fileURL: fileURL)
        // A push is acknowledged only once it is on stable storage: GRDB's pool leaves a WAL
        // database at `synchronous = NORMAL`, which syncs the log only at checkpoints.
        do {
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        } catch {
            throw SyncStorageError.unavailable("cannot configure \(fileURL.path): \(error)")
        }
    }

    /// A pool on `path`. Servers starting together on a file not yet in WAL mode race to
    /// switch it (`PRAGMA journal_mode = WAL` needs the file alone, and SQLite answers
    /// `SQLITE_BUSY` at once there, without the busy timeout): a busy open is tried again
    /// after a short random pause, for as long as the busy timeout would have waited.
    private static func openPool(path: String, configuration: Configuration) throws -> DatabasePool {
        let deadline = Date().addingTimeInterval(30)
        while true {
            do {
                return try DatabasePool(path: path, configuration: configuration)
            } catch let error as DatabaseError where error.resultCode.primaryResultCode == .SQLITE_BUSY && Date() < deadline {
                Thread.sleep(forTimeInterval: Double.random(in: 0.005...0.05))
            }
        }
    }

    /// The schema's migrations (SPEC.md section 15), recorded in GRDB's `grdb_migrations`:
    /// `v1` creates the tables with text identifiers (a database made before migrations
    /// were recorded has them already, and `v1` leaves them as they are); `v2` rebuilds
    /// `llvs_versions` with `id` as a BLOB of the identifier's UTF-8 bytes, so that every
    /// identifier, NUL included, is stored and compared byte for byte (GRDB binds a text
    /// as a C string, which ends at the first NUL); `v3` adds the blind stores' tables,
    /// `llvs_blind_stores` and `llvs_blobs`.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in try createVersion1Tables(db) }
        migrator.registerMigration("v2") { db in
            try db.execute(sql: """
                CREATE TABLE llvs_versions_v2 (
                    store TEXT NOT NULL, sequence INTEGER NOT NULL, id BLOB NOT NULL, record BLOB NOT NULL, changes BLOB NOT NULL,
                    PRIMARY KEY (store, id), UNIQUE (store, sequence));
                INSERT INTO llvs_versions_v2 (store, sequence, id, record, changes)
                    SELECT store, sequence, CAST(id AS BLOB), record, changes FROM llvs_versions;
                DROP TABLE llvs_versions;
                ALTER TABLE llvs_versions_v2 RENAME TO llvs_versions;
                """)
        }
        migrator.registerMigration("v3") { db in
            try db.execute(sql: """
                CREATE TABLE llvs_blind_stores (
                    name TEXT PRIMARY KEY NOT NULL, identity TEXT NOT NULL, last_sequence INTEGER NOT NULL, write_token_hash BLOB);
                CREATE TABLE llvs_blobs (
                    store TEXT NOT NULL, sequence INTEGER NOT NULL, name TEXT NOT NULL, data BLOB NOT NULL,
                    PRIMARY KEY (store, name), UNIQUE (store, sequence));
                """)
        }
        return migrator
    }

    /// Runs the migrations `pool` lacks, refusing a database from a newer server.
    private static func migrate(_ pool: DatabasePool, fileURL: URL) throws {
        let migrator = Self.migrator
        let superseded: Bool
        do {
            superseded = try pool.read { db in try migrator.hasBeenSuperseded(db) }
        } catch {
            throw SyncStorageError.unavailable("cannot read \(fileURL.path): \(error)")
        }
        guard !superseded else {
            throw SyncStorageError.unavailable("\(fileURL.path) was written by a newer version of the server (it lists migrations this one does not know)")
        }
        // Another server process sharing the file may run a migration between this one's
        // check and its write (GRDB checks outside each migration's transaction, and a
        // migration recorded twice rolls back): a new attempt finds it applied.
        for attempt in 1...3 {
            do {
                try migrator.migrate(pool)
                return
            } catch where attempt < 3 {
                continue
            } catch {
                throw SyncStorageError.unavailable("cannot migrate \(fileURL.path): \(error)")
            }
        }
    }

    /// The tables of schema `v1` (identifiers as text), as servers before `v2` made them.
    static func createVersion1Tables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS llvs_stores (
                name TEXT PRIMARY KEY NOT NULL, identity TEXT NOT NULL, last_sequence INTEGER NOT NULL);
            CREATE TABLE IF NOT EXISTS llvs_versions (
                store TEXT NOT NULL, sequence INTEGER NOT NULL, id TEXT NOT NULL, record BLOB NOT NULL, changes BLOB NOT NULL,
                PRIMARY KEY (store, id), UNIQUE (store, sequence));
            CREATE TABLE IF NOT EXISTS llvs_snapshots (
                store TEXT PRIMARY KEY NOT NULL, snapshot_id TEXT NOT NULL, previous_id TEXT, manifest BLOB NOT NULL);
            CREATE TABLE IF NOT EXISTS llvs_snapshot_chunks (
                store TEXT NOT NULL, snapshot_id TEXT NOT NULL, chunk_index INTEGER NOT NULL, data BLOB NOT NULL,
                PRIMARY KEY (store, snapshot_id, chunk_index));
            """)
    }

    /// Runs `sql` (several statements allowed) on the database at `fileURL`, outside any
    /// storage and its migrations: the tests build databases of older schemas with it.
    static func execute(_ sql: String, inDatabaseAt fileURL: URL) throws {
        let queue = try DatabaseQueue(path: fileURL.path)
        try queue.write { db in try db.execute(sql: sql) }
        try queue.close()
    }

    /// The writer's `PRAGMA synchronous` (2 is `FULL`), for the tests.
    func writerSynchronousMode() throws -> Int? {
        try pool.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
    }

    /// A version identifier as stored: the BLOB of its UTF-8 bytes.
    static func blob(_ id: Version.ID) -> Data { Data(id.rawValue.utf8) }

    /// A version identifier read back from its BLOB (every stored BLOB is valid UTF-8:
    /// it was written from a Swift string, or converted from a text column).
    static func identifier(_ blob: Data) -> Version.ID { Version.ID(String(decoding: blob, as: UTF8.self)) }

    /// Runs a read, mapping database errors to ``SyncStorageError/unavailable(_:)``.
    func read<T: Sendable>(_ body: @Sendable @escaping (Database) throws -> T) async throws -> T {
        do {
            return try await pool.read(body)
        } catch let error as SyncStorageError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw SyncStorageError.unavailable("\(fileURL.lastPathComponent): \(error)")
        }
    }

    /// Runs a write transaction, mapping database errors to ``SyncStorageError/unavailable(_:)``.
    func write<T: Sendable>(_ body: @Sendable @escaping (Database) throws -> T) async throws -> T {
        do {
            return try await pool.write(body)
        } catch let error as SyncStorageError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw SyncStorageError.unavailable("\(fileURL.lastPathComponent): \(error)")
        }
    }

    private static func storeRow(_ db: Database, _ store: SyncStoreName) throws -> (identity: String, last: Int64)? {
        try Row.fetchOne(db, sql: "SELECT identity, last_sequence FROM llvs_stores WHERE name = ?", arguments: [store.rawValue])
            .map { (try $0.decode(String.self, forColumn: "identity"), try $0.decode(Int64.self, forColumn: "last_sequence")) }
    }

    private static func ensureStore(_ db: Database, _ store: SyncStoreName) throws -> (identity: String, last: Int64) {
        if let row = try storeRow(db, store) { return row }
        let identity = UUID().uuidString
        try db.execute(sql: "INSERT INTO llvs_stores (name, identity, last_sequence) VALUES (?, ?, 0)", arguments: [store.rawValue, identity])
        return (identity, 0)
    }

    /// Answers without touching a store.
    ///
    /// - Throws: ``SyncStorageError/unavailable(_:)``.
    public func checkHealth() async throws {
        _ = try await read { db in try Int.fetchOne(db, sql: "SELECT 1") }
    }

    /// See ``SyncStorage/listVersions(in:after:limit:)``.
    ///
    /// - Throws: ``SyncStorageError/unavailable(_:)``.
    public func listVersions(in store: SyncStoreName, after cursor: SyncCursor?, limit: Int) async throws -> SyncListingPage {
        try await read { db in
            guard let row = try Self.storeRow(db, store) else { return SyncListing.emptyStorePage(after: cursor) }
            let start = SyncListing.startSequence(cursor, identity: row.identity, lastSequence: row.last)
            let rows = try Row.fetchAll(db, sql: """
                SELECT sequence, id FROM llvs_versions WHERE store = ? AND sequence > ? ORDER BY sequence LIMIT ?
                """, arguments: [store.rawValue, start, limit + 1])
            return SyncListing.page(try rows.map { (sequence: try $0.decode(Int64.self, forColumn: "sequence"),
                                                     id: Self.identifier(try $0.decode(Data.self, forColumn: "id"))) },
                                    identity: row.identity, start: start, limit: limit)
        }
    }

    /// See ``SyncStorage/latestCursor(in:)``.
    ///
    /// - Throws: ``SyncStorageError/unavailable(_:)``.
    public func latestCursor(in store: SyncStoreName) async throws -> SyncCursor {
        try await read { db in
            guard let row = try Self.storeRow(db, store) else { return SyncListing.emptyStoreCursor }
            return SyncCursor(storeIdentity: row.identity, sequence: row.last)
        }
    }

    /// See ``SyncStorage/versionRecords(in:identifiedBy:)``.
    ///
    /// - Throws: ``SyncStorageError/unavailable(_:)``.
    public func versionRecords(in store: SyncStoreName, identifiedBy ids: [Version.ID]) async throws -> [Data] {
        try await read { db in
            try Self.fetchColumn(db, "record", store: store, ids: ids).map(\.1)
        }
    }

    /// See ``SyncStorage/valueChanges(in:identifiedBy:)``.
    ///
    /// - Throws: ``SyncStorageError/unavailable(_:)``.
    public func valueChanges(in store: SyncStoreName, identifiedBy ids: [Version.ID]) async throws -> [(Version.ID, Data)] {
        try await read { db in
            try Self.fetchColumn(db, "changes", store: store, ids: ids)
        }
    }

    /// `column` (record or changes) of the stored versions among `ids`.
    private static func fetchColumn(_ db: Database, _ column: String, store: SyncStoreName, ids: [Version.ID]) throws -> [(Version.ID, Data)] {
        guard !ids.isEmpty else { return [] }
        var result: [(Version.ID, Data)] = []
        result.reserveCapacity(ids.count)
        for start in stride(from: 0, to: ids.count, by: 500) {
            let slice = ids[start..<min(start + 500, ids.count)]
            let placeholders = Array(repeating: "?", count: slice.count).joined(separator: ",")
            let arguments = StatementArguments([store.rawValue.databaseValue] + slice.map { Self.blob($0).databaseValue })
            let rows = try Row.fetchAll(db, sql: "SELECT id, \(column) FROM llvs_versions WHERE store = ? AND id IN (\(placeholders))", arguments: arguments)
            for row in rows {
                result.append((Self.identifier(try row.decode(Data.self, forColumn: "id")), try row.decode(Data.self, forColumn: column)))
            }
        }
        return result
    }

    /// See ``SyncStorage/push(_:to:)``.
    ///
    /// - Throws: ``SyncStorageError/unknownPredecessors(_:)``, ``SyncStorageError/conflictingVersion(_:)``,
    ///   ``SyncStorageError/unavailable(_:)``.
    public func push(_ versions: [StoredVersion], to store: SyncStoreName) async throws -> SyncPushOutcome {
        try await write { db in
            var row = try Self.ensureStore(db, store)
            let stored = try Self.fetchColumn(db, "record", store: store, ids: PushPlan.identifiersToLookUp(versions))
            let plan = try PushPlan(versions: versions, storedRecords: Dictionary(stored, uniquingKeysWith: { first, _ in first }))
            let statement = try db.cachedStatement(sql: "INSERT INTO llvs_versions (store, sequence, id, record, changes) VALUES (?, ?, ?, ?, ?)")
            for version in plan.toInsert {
                row.last += 1
                try statement.execute(arguments: [store.rawValue, row.last, Self.blob(version.id), version.record, version.changes])
            }
            try db.execute(sql: "UPDATE llvs_stores SET last_sequence = ? WHERE name = ?", arguments: [row.last, store.rawValue])
            return SyncPushOutcome(added: plan.toInsert.map(\.id), alreadyPresentCount: plan.alreadyPresentCount,
                                   cursor: SyncCursor(storeIdentity: row.identity, sequence: row.last))
        }
    }

    /// See ``SyncStorage/snapshotManifest(in:)``.
    ///
    /// - Throws: ``SyncStorageError/unavailable(_:)``.
    public func snapshotManifest(in store: SyncStoreName) async throws -> Data? {
        try await read { db in
            try Data.fetchOne(db, sql: "SELECT manifest FROM llvs_snapshots WHERE store = ?", arguments: [store.rawValue])
        }
    }

    /// See ``SyncStorage/storeSnapshotChunk(_:index:snapshotId:in:)``.
    ///
    /// - Throws: ``SyncStorageError/unavailable(_:)``.
    public func storeSnapshotChunk(_ data: Data, index: Int, snapshotId: String, in store: SyncStoreName) async throws {
        try await write { db in
            _ = try Self.ensureStore(db, store)
            try db.execute(sql: "INSERT OR REPLACE INTO llvs_snapshot_chunks (store, snapshot_id, chunk_index, data) VALUES (?, ?, ?, ?)",
                           arguments: [store.rawValue, snapshotId, index, data])
        }
    }

    /// See ``SyncStorage/snapshotChunk(index:snapshotId:in:)``.
    ///
    /// - Throws: ``SyncStorageError/unavailable(_:)``.
    public func snapshotChunk(index: Int, snapshotId: String, in store: SyncStoreName) async throws -> Data? {
        try await read { db in
            try Data.fetchOne(db, sql: "SELECT data FROM llvs_snapshot_chunks WHERE store = ? AND snapshot_id = ? AND chunk_index = ?",
                              arguments: [store.rawValue, snapshotId, index])
        }
    }

    /// See ``SyncStorage/publishSnapshot(_:in:)``.
    ///
    /// - Throws: ``SyncStorageError/invalidSnapshot(_:)``, ``SyncStorageError/unavailable(_:)``.
    public func publishSnapshot(_ manifest: SnapshotManifest, in store: SyncStoreName) async throws {
        try await SnapshotPublication.check(manifest) { index in
            try await self.snapshotChunk(index: index, snapshotId: manifest.snapshotId, in: store)
        }
        let encoded = try CanonicalJSON.encode(manifest)
        try await write { db in
            _ = try Self.ensureStore(db, store)
            let current = try String.fetchOne(db, sql: "SELECT snapshot_id FROM llvs_snapshots WHERE store = ?", arguments: [store.rawValue])
            let previous = current == manifest.snapshotId
                ? try String.fetchOne(db, sql: "SELECT previous_id FROM llvs_snapshots WHERE store = ?", arguments: [store.rawValue])
                : current
            try db.execute(sql: "INSERT OR REPLACE INTO llvs_snapshots (store, snapshot_id, previous_id, manifest) VALUES (?, ?, ?, ?)",
                           arguments: [store.rawValue, manifest.snapshotId, previous, encoded])
            try db.execute(sql: """
                DELETE FROM llvs_snapshot_chunks WHERE store = ? AND snapshot_id NOT IN (?, ?)
                """, arguments: [store.rawValue, manifest.snapshotId, previous ?? manifest.snapshotId])
        }
    }
}
