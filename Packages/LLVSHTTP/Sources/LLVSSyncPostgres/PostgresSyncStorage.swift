import Foundation
import Logging
import LLVSCore
import LLVSExchange
import LLVSSyncProtocol
import LLVSSyncStorage
import NIOCore
import NIOSSL
import PostgresNIO

/// The sync server's storage in PostgreSQL, for deployments that outgrow one machine:
/// several stateless `llvs-server` processes over one database serve the same stores
/// consistently.
///
/// The tables are those of `LLVSSyncStorage.SQLiteSyncStorage` (SPEC.md section 15, blind
/// stores' tables included),
/// created on first use under an advisory lock so that servers starting together do not
/// race. A push runs in one transaction that first locks its store's row in `llvs_stores`
/// (`SELECT … FOR UPDATE`): pushes to one store are serialized across every server, so
/// sequence numbers follow commit order and a cursor never skips a version that commits
/// late. Pushes to different stores run in parallel.
public final class PostgresSyncStorage: BlobSyncStorage {
    /// `postgres`.
    public let kind = "postgres"
    let client: PostgresClient
    /// The change feed's listening connection, in a pool of its own (at most one
    /// connection, made when the feed first listens): a listening connection that is lost
    /// (a `pg_terminate_backend`, a restart) is never handed back to the pool the storage's
    /// queries use.
    let listeningClient: PostgresClient
    private let runner: Task<Void, Never>
    let logger: Logger
    private let description: String

    /// Connects to the database at `url` (`postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`,
    /// with `?sslmode=require` for TLS) and creates the tables if needed.
    ///
    /// - Throws: `LLVSSyncStorage.SyncStorageError.unavailable(_:)` for a malformed URL or
    ///   when the database cannot be reached.
    public init(url: String, logger: Logger = Logger(label: "llvs.postgres")) async throws {
        let configuration = try Self.configuration(url)
        self.logger = logger
        self.description = Self.redacted(url)
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        var listening = configuration
        listening.options.minimumConnections = 0
        listening.options.maximumConnections = 1
        let listeningClient = PostgresClient(configuration: listening, backgroundLogger: logger)
        self.client = client
        self.listeningClient = listeningClient
        self.runner = Task {
            await withDiscardingTaskGroup { group in
                group.addTask { await client.run() }
                group.addTask { await listeningClient.run() }
            }
        }
        do {
            try await client.query(PostgresQuery(unsafeSQL: Self.preparation), logger: logger)
        } catch {
            runner.cancel()
            throw SyncStorageError.unavailable("cannot prepare \(description): \(Self.describe(error))")
        }
    }

    deinit {
        runner.cancel()
    }

    /// Closes the connections (they also close when the storage is released).
    public func close() {
        runner.cancel()
    }

    static let schema = [
        "CREATE TABLE IF NOT EXISTS llvs_stores (name TEXT PRIMARY KEY, identity TEXT NOT NULL, last_sequence BIGINT NOT NULL)",
        """
        CREATE TABLE IF NOT EXISTS llvs_versions (store TEXT NOT NULL, sequence BIGINT NOT NULL, id BYTEA NOT NULL, record BYTEA NOT NULL,
            changes BYTEA NOT NULL, PRIMARY KEY (store, id), UNIQUE (store, sequence))
        """,
        "CREATE TABLE IF NOT EXISTS llvs_snapshots (store TEXT PRIMARY KEY, snapshot_id TEXT NOT NULL, previous_id TEXT, manifest BYTEA NOT NULL)",
        """
        CREATE TABLE IF NOT EXISTS llvs_snapshot_chunks (store TEXT NOT NULL, snapshot_id TEXT NOT NULL, chunk_index INTEGER NOT NULL,
            data BYTEA NOT NULL, PRIMARY KEY (store, snapshot_id, chunk_index))
        """,
        "CREATE TABLE IF NOT EXISTS llvs_blind_stores (name TEXT PRIMARY KEY, identity TEXT NOT NULL, last_sequence BIGINT NOT NULL, write_token_hash BYTEA)",
        """
        CREATE TABLE IF NOT EXISTS llvs_blobs (store TEXT NOT NULL, sequence BIGINT NOT NULL, name TEXT NOT NULL, data BYTEA NOT NULL,
            PRIMARY KEY (store, name), UNIQUE (store, sequence))
        """,
    ]

    /// The schema's preparation, one statement (a `DO` block, so one round trip and one
    /// transaction): under the schema's advisory lock, which is held only while the database
    /// runs it (never while a client waits between statements), create the tables if needed,
    /// then convert a database made before identifiers were stored as bytes: `llvs_versions.id`
    /// was `TEXT` (which cannot hold NUL), and becomes `BYTEA` holding each identifier's
    /// UTF-8 bytes (`convert_to(id, 'UTF8')`), so every row is kept. Idempotent.
    static var preparation: String {
        """
        DO $llvs$ BEGIN
        PERFORM pg_advisory_xact_lock(742000001);
        \(schema.map { $0 + ";" }.joined(separator: "\n"))
        IF EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema()
                   AND table_name = 'llvs_versions' AND column_name = 'id' AND data_type <> 'bytea') THEN
            ALTER TABLE llvs_versions ALTER COLUMN id TYPE BYTEA USING convert_to(id, 'UTF8');
        END IF;
        END $llvs$
        """
    }

    /// Runs `statements` in order on one connection to the database at `url`, outside any
    /// storage and its schema: the tests create databases, and tables of older schemas, with it.
    static func execute(_ statements: [String], url: String, logger: Logger = Logger(label: "llvs.postgres")) async throws {
        let client = PostgresClient(configuration: try configuration(url), backgroundLogger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            try await client.withConnection { connection in
                for statement in statements { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
            }
        }
    }

    /// A version identifier as stored: its UTF-8 bytes (SPEC.md section 1), so that any
    /// identifier, NUL included, is kept and compared byte for byte.
    static func bytes(_ id: Version.ID) -> ByteBuffer { ByteBuffer(bytes: Array(id.rawValue.utf8)) }

    /// A version identifier read back from its bytes (written from a Swift string, so valid UTF-8).
    static func identifier(_ bytes: Data) -> Version.ID { Version.ID(String(decoding: bytes, as: UTF8.self)) }

    // MARK: URL

    static func configuration(_ url: String) throws -> PostgresClient.Configuration {
        guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme?.lowercased() ?? ""),
              let host = components.host, !host.isEmpty else {
            throw SyncStorageError.unavailable("\(redacted(url)) is not a postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE URL")
        }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        let mode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? "disable"
        let tls: PostgresClient.Configuration.TLS
        switch mode {
        case "disable": tls = .disable
        case "require": tls = .require(.makeClientConfiguration())
        case "prefer": tls = .prefer(.makeClientConfiguration())
        default: throw SyncStorageError.unavailable("sslmode \(mode) is not one of disable, prefer, require")
        }
        var configuration = PostgresClient.Configuration(
            host: host, port: components.port ?? 5432, username: components.user ?? "postgres",
            password: components.password, database: database.isEmpty ? nil : database, tls: tls)
        configuration.options.maximumConnections = 20
        return configuration
    }

    /// The URL without its password, for messages and logs.
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return "the database URL" }
        if components.password != nil { components.password = "***" }
        return components.string ?? "the database URL"
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            return error.serverInfo?[.message] ?? "\(error.code)"
        }
        return "\(error)"
    }

    /// Runs `body`, mapping database errors to ``SyncStorageError/unavailable(_:)``.
    @discardableResult
    func guarded<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as SyncStorageError {
            throw error
        } catch let error as PostgresTransactionError where error.closureError is SyncStorageError {
            // A refused push rolled its transaction back; report the refusal itself.
            throw error.closureError as? SyncStorageError ?? SyncStorageError.unavailable("\(error)")
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            if let refusal = Self.refusal(error) { throw refusal }
            throw SyncStorageError.unavailable("\(description): \(Self.describe(error))")
        }
    }

    /// The refusal of a value PostgreSQL cannot take, when `error` (or the error of a
    /// transaction's body) is one: a data exception (SQLSTATE class 22, such as 22021, a
    /// NUL or byte sequence invalid in text, or 22P05, an untranslatable character) or a
    /// program limit (54000, such as an index row too large). Such a request fails
    /// whenever it is retried, so it is the client's error, not an unavailable storage.
    static func refusal(_ error: any Error) -> SyncStorageError? {
        let underlying = (error as? PostgresTransactionError)?.closureError ?? error
        guard let error = underlying as? PSQLError, let state = error.serverInfo?[.sqlState],
              state.hasPrefix("22") || state == "54000" else { return nil }
        return .invalidInput("PostgreSQL cannot store a value of this request (SQLSTATE \(state)): \(describe(error))")
    }

    private func storeRow(_ connection: PostgresConnection, _ store: SyncStoreName, locking: Bool = false) async throws -> (identity: String, last: Int64)? {
        let rows = locking
            ? try await connection.query("SELECT identity, last_sequence FROM llvs_stores WHERE name = \(store.rawValue) FOR UPDATE", logger: logger)
            : try await connection.query("SELECT identity, last_sequence FROM llvs_stores WHERE name = \(store.rawValue)", logger: logger)
        for try await (identity, last) in rows.decode((String, Int64).self) { return (identity, last) }
        return nil
    }

    private func ensureStore(_ connection: PostgresConnection, _ store: SyncStoreName) async throws -> (identity: String, last: Int64) {
        let identity = UUID().uuidString
        try await connection.query("""
            INSERT INTO llvs_stores (name, identity, last_sequence) VALUES (\(store.rawValue), \(identity), 0) ON CONFLICT (name) DO NOTHING
            """, logger: logger)
        guard let row = try await storeRow(connection, store, locking: true) else {
            throw SyncStorageError.unavailable("store \(store) vanished while being created")
        }
        return row
    }

    // MARK: SyncStorage

    /// Runs `SELECT 1`.
    ///
    /// - Throws: `LLVSSyncStorage.SyncStorageError.unavailable(_:)`.
    public func checkHealth() async throws {
        try await guarded { try await client.query("SELECT 1", logger: logger) }
    }

    /// See `LLVSSyncStorage.SyncStorage.listVersions(in:after:limit:)`.
    ///
    /// - Throws: `LLVSSyncStorage.SyncStorageError.unavailable(_:)`.
    public func listVersions(in store: SyncStoreName, after cursor: SyncCursor?, limit: Int) async throws -> SyncListingPage {
        try await guarded {
            try await client.withConnection { connection in
                guard let row = try await storeRow(connection, store) else { return SyncListing.emptyStorePage(after: cursor) }
                let start = SyncListing.startSequence(cursor, identity: row.identity, lastSequence: row.last)
                let rows = try await connection.query("""
                    SELECT sequence, id FROM llvs_versions WHERE store = \(store.rawValue) AND sequence > \(start)
                    ORDER BY sequence LIMIT \(limit + 1)
                    """, logger: logger)
                var listed: [(sequence: Int64, id: Version.ID)] = []
                for try await (sequence, id) in rows.decode((Int64, Data).self) { listed.append((sequence, Self.identifier(id))) }
                return SyncListing.page(listed, identity: row.identity, start: start, limit: limit)
            }
        }
    }

    /// See `LLVSSyncStorage.SyncStorage.latestCursor(in:)`.
    ///
    /// - Throws: `LLVSSyncStorage.SyncStorageError.unavailable(_:)`.
    public func latestCursor(in store: SyncStoreName) async throws -> SyncCursor {
        try await guarded {
            try await client.withConnection { connection in
                guard let row = try await storeRow(connection, store) else { return SyncListing.emptyStoreCursor }
                return SyncCursor(storeIdentity: row.identity, sequence: row.last)
            }
        }
    }

    /// See `LLVSSyncStorage.SyncStorage.versionRecords(in:identifiedBy:)`.
    ///
    /// - Throws: `LLVSSyncStorage.SyncStorageError.unavailable(_:)`.
    public func versionRecords(in store: SyncStoreName, identifiedBy ids: [Version.ID]) async throws -> [Data] {
        try await guarded {
            try await client.withConnection { connection in
                try await records(connection, store, ids).map(\.1)
            }
        }
    }

    private func records(_ connection: PostgresConnection, _ store: SyncStoreName, _ ids: [Version.ID]) async throws -> [(Version.ID, Data)] {
        guard !ids.isEmpty else { return [] }
        let rows = try await connection.query(
            "SELECT id, record FROM llvs_versions WHERE store = \(store.rawValue) AND id = ANY(\(ids.map(Self.bytes))::BYTEA[])", logger: logger)
        var result: [(Version.ID, Data)] = []
        for try await (id, record) in rows.decode((Data, Data).self) { result.append((Self.identifier(id), record)) }
        return result
    }

    /// See `LLVSSyncStorage.SyncStorage.valueChanges(in:identifiedBy:)`.
    ///
    /// - Throws: `LLVSSyncStorage.SyncStorageError.unavailable(_:)`.
    public func valueChanges(in store: SyncStoreName, identifiedBy ids: [Version.ID]) async throws -> [(Version.ID, Data)] {
        guard !ids.isEmpty else { return [] }
        return try await guarded {
            let rows = try await client.query(
                "SELECT id, changes FROM llvs_versions WHERE store = \(store.rawValue) AND id = ANY(\(ids.map(Self.bytes))::BYTEA[])", logger: logger)
            var result: [(Version.ID, Data)] = []
            for try await (id, changes) in rows.decode((Data, Data).self) { result.append((Self.identifier(id), changes)) }
            return result
        }
    }

    /// See `LLVSSyncStorage.SyncStorage.push(_:to:)`: one transaction holding the store's row lock.
    ///
    /// - Throws: `LLVSSyncStorage.SyncStorageError.unknownPredecessors(_:)`,
    ///   `LLVSSyncStorage.SyncStorageError.conflictingVersion(_:)`, `LLVSSyncStorage.SyncStorageError.unavailable(_:)`.
    public func push(_ versions: [StoredVersion], to store: SyncStoreName) async throws -> SyncPushOutcome {
        let logger = self.logger
        return try await guarded {
            try await client.withTransaction(logger: logger) { connection in
                let row = try await ensureStore(connection, store)
                let stored = try await records(connection, store, PushPlan.identifiersToLookUp(versions))
                let plan = try PushPlan(versions: versions, storedRecords: Dictionary(stored, uniquingKeysWith: { first, _ in first }))
                let last = row.last + Int64(plan.toInsert.count)
                if !plan.toInsert.isEmpty {
                    let sequences = (1...Int64(plan.toInsert.count)).map { row.last + $0 }
                    let ids = plan.toInsert.map { Self.bytes($0.id) }
                    let records = plan.toInsert.map { ByteBuffer(bytes: $0.record) }
                    let changes = plan.toInsert.map { ByteBuffer(bytes: $0.changes) }
                    try await connection.query("""
                        INSERT INTO llvs_versions (store, sequence, id, record, changes)
                        SELECT \(store.rawValue), * FROM unnest(\(sequences)::BIGINT[], \(ids)::BYTEA[], \(records)::BYTEA[], \(changes)::BYTEA[])
                        """, logger: logger)
                    try await connection.query("UPDATE llvs_stores SET last_sequence = \(last) WHERE name = \(store.rawValue)", logger: logger)
                }
                return SyncPushOutcome(added: plan.toInsert.map(\.id), alreadyPresentCount: plan.alreadyPresentCount,
                                       cursor: SyncCursor(storeIdentity: row.identity, sequence: last))
            }
        }
    }

    /// See `LLVSSyncStorage.SyncStorage.snapshotManifest(in:)`.
    ///
    /// - Throws: `LLVSSyncStorage.SyncStorageError.unavailable(_:)`.
    public func snapshotManifest(in store: SyncStoreName) async throws -> Data? {
        try await guarded {
            let rows = try await client.query("SELECT manifest FROM llvs_snapshots WHERE store = \(store.rawValue)", logger: logger)
            for try await manifest in rows.decode(Data.self) { return manifest }
            return nil
        }
    }

    /// See `LLVSSyncStorage.SyncStorage.storeSnapshotChunk(_:index:snapshotId:in:)`.
    ///
    /// - Throws: `LLVSSyncStorage.SyncStorageError.unavailable(_:)`.
    public func storeSnapshotChunk(_ data: Data, index: Int, snapshotId: String, in store: SyncStoreName) async throws {
        try await guarded {
            try await client.query("""
                INSERT INTO llvs_snapshot_chunks (store, snapshot_id, chunk_index, data) VALUES (\(store.rawValue), \(snapshotId), \(Int32(index)), \(data))
                ON CONFLICT (store, snapshot_id, chunk_index) DO UPDATE SET data = EXCLUDED.data
                """, logger: logger)
        }
    }

    /// See `LLVSSyncStorage.SyncStorage.snapshotChunk(index:snapshotId:in:)`.
    ///
    /// - Throws: `LLVSSyncStorage.SyncStorageError.unavailable(_:)`.
    public func snapshotChunk(index: Int, snapshotId: String, in store: SyncStoreName) async throws -> Data? {
        try await guarded {
            let rows = try await client.query("""
                SELECT data FROM llvs_snapshot_chunks WHERE store = \(store.rawValue) AND snapshot_id = \(snapshotId) AND chunk_index = \(Int32(index))
                """, logger: logger)
            for try await data in rows.decode(Data.self) { return data }
            return nil
        }
    }

    /// See `LLVSSyncStorage.SyncStorage.publishSnapshot(_:in:)`.
    ///
    /// - Throws: `LLVSSyncStorage.SyncStorageError.invalidSnapshot(_:)`, `LLVSSyncStorage.SyncStorageError.unavailable(_:)`.
    public func publishSnapshot(_ manifest: SnapshotManifest, in store: SyncStoreName) async throws {
        try await SnapshotPublication.check(manifest) { index in
            try await self.snapshotChunk(index: index, snapshotId: manifest.snapshotId, in: store)
        }
        let encoded = try CanonicalJSON.encode(manifest)
        let logger = self.logger
        try await guarded {
            try await client.withTransaction(logger: logger) { connection in
                _ = try await ensureStore(connection, store)
                var current: (id: String, previous: String?)?
                let rows = try await connection.query("SELECT snapshot_id, previous_id FROM llvs_snapshots WHERE store = \(store.rawValue)", logger: logger)
                for try await (id, previous) in rows.decode((String, String?).self) { current = (id, previous) }
                let previous = current?.id == manifest.snapshotId ? current?.previous : current?.id
                try await connection.query("""
                    INSERT INTO llvs_snapshots (store, snapshot_id, previous_id, manifest) VALUES (\(store.rawValue), \(manifest.snapshotId), \(previous), \(encoded))
                    ON CONFLICT (store) DO UPDATE SET snapshot_id = EXCLUDED.snapshot_id, previous_id = EXCLUDED.previous_id, manifest = EXCLUDED.manifest
                    """, logger: logger)
                let keep = [manifest.snapshotId, previous ?? manifest.snapshotId]
                try await connection.query("""
                    DELETE FROM llvs_snapshot_chunks WHERE store = \(store.rawValue) AND NOT (snapshot_id = ANY(\(keep)))
                    """, logger: logger)
            }
        }
    }
}
