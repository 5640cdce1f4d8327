import Foundation
import GRDB
import GRDBSQLite
import LLVSCore

/// The full-text index of a database's text values: an SQLite FTS5 table (in a file beside
/// the store, or in memory), derived from the store and rebuildable from it.
///
/// The index records the store version it reflects. Every update names the version it
/// starts from; an index found at another version (say, after a crash between a store
/// write and its index update) is brought up to date from the store's differences. That is
/// why a file index runs in WAL mode with `synchronous = NORMAL`: its commits skip the
/// fsync, and a power loss can only take it back to an earlier version, never corrupt it.
///
/// Scopes, keys and the version are stored as BLOBs of their UTF-8 bytes (SPEC.md section
/// 1): GRDB binds a text as a C string, so as text `a\0b` would be stored, deleted and found
/// as `a`. An index of an earlier format (`PRAGMA user_version` below ``format``) is dropped
/// when opened, and rebuilt from the store like a missing one. The triggers of format 1 are
/// dropped at every open, so an index that an older build opened (and gave its triggers
/// back) is not indexed twice.
final class SearchIndex: Sendable {
    private let queue: DatabaseQueue

    /// Opens (creating) the index at `fileURL`, or in memory for nil.
    ///
    /// - Throws: ``KeyValueDatabaseError/searchIndex(reason:)``.
    init(fileURL: URL?) throws(KeyValueDatabaseError) {
        queue = try Self.guarded {
            var configuration = Configuration()
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL") }
            let queue = try fileURL.map { try DatabaseQueue(path: $0.path, configuration: configuration) } ?? DatabaseQueue()
            try queue.write { db in
                if try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0 < Self.format {
                    try db.execute(sql: """
                        DROP TRIGGER IF EXISTS kv_text_inserted; DROP TRIGGER IF EXISTS kv_text_deleted;
                        DROP TABLE IF EXISTS kv_text_fts; DROP TABLE IF EXISTS kv_text; DROP TABLE IF EXISTS kv_index_state;
                        PRAGMA user_version = \(Self.format);
                        """)
                }
                try db.execute(sql: """
                    CREATE TABLE IF NOT EXISTS kv_index_state (id INTEGER PRIMARY KEY CHECK (id = 1), version BLOB NOT NULL);
                    CREATE TABLE IF NOT EXISTS kv_text (id INTEGER PRIMARY KEY, scope BLOB NOT NULL, key BLOB NOT NULL, text TEXT NOT NULL);
                    CREATE INDEX IF NOT EXISTS kv_text_by_key ON kv_text (scope, key);
                    CREATE VIRTUAL TABLE IF NOT EXISTS kv_text_fts USING fts5 (text, content = 'kv_text', content_rowid = 'id',
                        tokenize = 'unicode61 remove_diacritics 2');
                    DROP TRIGGER IF EXISTS kv_text_inserted; DROP TRIGGER IF EXISTS kv_text_deleted;
                    """)
            }
            return queue
        }
    }

    /// The index format (`PRAGMA user_version`): 1 stores identifiers as BLOBs; 2 keeps
    /// `kv_text_fts` in step with `kv_text` by its own statements instead of triggers.
    ///
    /// Triggers cost a flush per statement: a statement that fires a trigger runs in a
    /// statement savepoint, and FTS5 writes its pending terms out as a new segment at every
    /// savepoint, so one key's update (a delete and an insert) made two or three segments,
    /// each merged later. Plain statements leave the terms pending until the transaction
    /// commits: one segment per update.
    static let format = 2

    /// Runs `sql` on the index file at `fileURL`, outside any index: the tests make indexes
    /// of the earlier format with it.
    static func execute(_ sql: String, inIndexAt fileURL: URL) throws {
        let queue = try DatabaseQueue(path: fileURL.path)
        try queue.write { db in try db.execute(sql: sql) }
        try queue.close()
    }

    /// An identifier as stored: the BLOB of its UTF-8 bytes.
    private static func blob(_ string: String) -> Data { Data(string.utf8) }

    /// An identifier read back from its BLOB (written from a Swift string, so valid UTF-8).
    private static func string(_ blob: Data) -> String { String(decoding: blob, as: UTF8.self) }

    /// Copies the index's write-ahead log into its file and empties the log.
    ///
    /// - Throws: ``KeyValueDatabaseError/searchIndex(reason:)``.
    func checkpoint() throws(KeyValueDatabaseError) {
        try Self.guarded { _ = try queue.writeWithoutTransaction { db in try db.checkpoint(.truncate) } }
    }

    /// Runs FTS5's `integrity-check`, which fails when `kv_text_fts` does not index exactly
    /// the texts of `kv_text` (the tests check the index's bookkeeping with it).
    ///
    /// - Throws: ``KeyValueDatabaseError/searchIndex(reason:)`` naming what is inconsistent.
    func checkIntegrity() throws(KeyValueDatabaseError) {
        try Self.guarded { try queue.write { db in try db.execute(sql: "INSERT INTO kv_text_fts (kv_text_fts) VALUES ('integrity-check')") } }
    }

    /// The store version the index reflects, or nil for an empty index.
    ///
    /// - Throws: ``KeyValueDatabaseError/searchIndex(reason:)``.
    func indexedVersion() throws(KeyValueDatabaseError) -> Version.ID? {
        try Self.guarded {
            try queue.unsafeRead { db in try Data.fetchOne(try db.cachedStatement(sql: "SELECT version FROM kv_index_state WHERE id = 1")) }
                .map { Version.ID(Self.string($0)) }
        }
    }

    /// Replaces the texts of each listed key and records `version`, in one transaction —
    /// only if the index is at `previous` (or everything, with `replacingAll`).
    ///
    /// - Complexity: One transaction; its statements are prepared once per connection and
    ///   reused (`cachedStatement`), so a one-key update costs a few B-tree writes, not a
    ///   parse of each statement.
    /// - Returns: False, changing nothing, when the index is at another version.
    /// - Throws: ``KeyValueDatabaseError/searchIndex(reason:)``.
    @discardableResult
    func update(_ entries: [(ScopedKey, [String])], from previous: Version.ID?, to version: Version.ID,
                replacingAll: Bool = false) throws(KeyValueDatabaseError) -> Bool {
        try Self.guarded {
            try queue.write { db in
                let current = try Data.fetchOne(try db.cachedStatement(sql: "SELECT version FROM kv_index_state WHERE id = 1"))
                if replacingAll {
                    try db.execute(sql: "DELETE FROM kv_text; INSERT INTO kv_text_fts (kv_text_fts) VALUES ('delete-all')")
                } else if current != previous.map({ Self.blob($0.rawValue) }) {
                    return false
                }
                // FTS5 writes its pending terms out as a segment whenever a row comes with a
                // rowid below the last one written: so every old row goes first, in rowid
                // order, then every new one (new rowids are above them).
                var forgotten: [(id: Int64, text: String)] = []
                if !replacingAll {
                    let existing = try db.cachedStatement(sql: "SELECT id, text FROM kv_text WHERE scope = ? AND key = ?")
                    for (key, _) in entries {
                        let rows = try Row.fetchCursor(existing, arguments: [Self.blob(key.scope), Self.blob(key.key)])
                        while let row = try rows.next() { forgotten.append((row[0], row[1])) }
                    }
                    forgotten.sort { $0.id < $1.id }
                }
                let unindex = try db.cachedStatement(sql: "INSERT INTO kv_text_fts (kv_text_fts, rowid, text) VALUES ('delete', ?, ?)")
                let delete = try db.cachedStatement(sql: "DELETE FROM kv_text WHERE id = ?")
                for (id, text) in forgotten {
                    // An external-content FTS5 table forgets a row given its old text.
                    try unindex.execute(arguments: [id, text])
                    try delete.execute(arguments: [id])
                }
                let insert = try db.cachedStatement(sql: "INSERT INTO kv_text (scope, key, text) VALUES (?, ?, ?)")
                let index = try db.cachedStatement(sql: "INSERT INTO kv_text_fts (rowid, text) VALUES (?, ?)")
                for (key, texts) in entries {
                    let scope = Self.blob(key.scope), key = Self.blob(key.key)
                    for text in texts {
                        try insert.execute(arguments: [scope, key, text])
                        try index.execute(arguments: [db.lastInsertedRowID, text])
                    }
                }
                try db.cachedStatement(sql: "INSERT INTO kv_index_state (id, version) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET version = excluded.version")
                    .execute(arguments: [Self.blob(version.rawValue)])
                return true
            }
        }
    }

    /// The keys whose text matches `query` (FTS5 syntax), best match first: by FTS5's rank
    /// (bm25) of the key's best-matching text, then by scope and key (bytes).
    ///
    /// - Complexity: One FTS5 query, prepared once per connection, returning one row per
    ///   matching text; the rows are ordered and grouped by key here, on their bytes (which
    ///   SQLite's `GROUP BY` and `ORDER BY` did through two temporary B-trees):
    ///   O(m log m) for m matching texts.
    /// - Throws: ``KeyValueDatabaseError/invalidSearchQuery(_:reason:)`` for a malformed
    ///   query, ``KeyValueDatabaseError/searchIndex(reason:)`` otherwise.
    func search(_ query: String) throws(KeyValueDatabaseError) -> [ScopedKey] {
        do {
            var hits = SearchHits()
            // One statement reads a consistent state by itself; `read` would wrap it in a
            // transaction and `PRAGMA query_only` (toggled on and off again), whose
            // `OP_Expire` makes SQLite prepare every statement of the connection again,
            // FTS5's own included.
            try queue.unsafeRead { db in
                let statement = try db.cachedStatement(sql: """
                    SELECT kv_text.scope, kv_text.key, kv_text_fts.rank
                    FROM kv_text_fts JOIN kv_text ON kv_text.id = kv_text_fts.rowid
                    WHERE kv_text_fts MATCH ?
                    """)
                // The columns are read through the C API while the cursor stands on their row:
                // GRDB's `withUnsafeData` wraps each in a `Data`, two allocations per row.
                let rows = try Row.fetchCursor(statement, arguments: [query])
                let columns = statement.sqliteStatement
                while try rows.next() != nil {
                    let scope = hits.append(column: 0, of: columns)
                    let key = hits.append(column: 1, of: columns)
                    hits.add(scope: scope, key: key, rank: sqlite3_column_double(columns, 2))
                }
            }
            return hits.keysByRank()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_ERROR {
            throw .invalidSearchQuery(query, reason: error.message ?? "\(error)")
        } catch {
            throw .searchIndex(reason: "\(error)")
        }
    }

    /// Runs `body`, turning database failures into ``KeyValueDatabaseError/searchIndex(reason:)``.
    private static func guarded<T>(_ body: () throws -> T) throws(KeyValueDatabaseError) -> T {
        do {
            return try body()
        } catch let error as KeyValueDatabaseError {
            throw error
        } catch {
            throw .searchIndex(reason: "\(error)")
        }
    }
}

/// The rows of one search: each matching text's scope and key (their bytes, in one buffer)
/// and rank. Sorting them compares bytes in place, with no string made or retained per
/// comparison; strings are made once per key found.
struct SearchHits {
    /// A byte range of ``bytes``, with its first eight bytes (zero-padded) as a big-endian
    /// integer: spans whose prefixes differ are in the order of their prefixes.
    struct Span {
        var start: Int
        var count: Int
        var prefix: UInt64
    }

    /// One matching text.
    struct Hit {
        var scope: Span
        var key: Span
        /// FTS5's rank: lower is better.
        var rank: Double
    }

    private var bytes: [UInt8] = []
    private var hits: [Hit] = []

    /// Appends the bytes of the BLOB in `column` of the row `statement` stands on (none for
    /// NULL) to the buffer; returns where they are.
    mutating func append(column: Int32, of statement: OpaquePointer) -> Span {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let blob = sqlite3_column_blob(statement, column) else { return Span(start: bytes.count, count: 0, prefix: 0) }
        return append(UnsafeRawBufferPointer(start: blob, count: count))
    }

    /// Appends `source` to the buffer; returns where it is.
    mutating func append(_ source: UnsafeRawBufferPointer) -> Span {
        let start = bytes.count
        bytes.append(contentsOf: source)
        var prefix: UInt64 = 0
        for index in 0..<8 { prefix = prefix << 8 | UInt64(index < source.count ? source[index] : 0) }
        return Span(start: start, count: source.count, prefix: prefix)
    }

    /// Records a matching text of the key at `scope` and `key`.
    mutating func add(scope: Span, key: Span, rank: Double) {
        hits.append(Hit(scope: scope, key: key, rank: rank))
    }

    /// Each key once, by its best rank, then by scope and key (bytes).
    mutating func keysByRank() -> [ScopedKey] {
        bytes.withUnsafeBufferPointer { buffer in
            hits.sort { a, b in
                if a.rank != b.rank { return a.rank < b.rank }
                let scopes = Self.compare(a.scope, b.scope, in: buffer)
                return scopes != 0 ? scopes < 0 : Self.compare(a.key, b.key, in: buffer) < 0
            }
            var seen = Set<ScopedKey>(minimumCapacity: hits.count)
            var keys: [ScopedKey] = []
            keys.reserveCapacity(hits.count)
            for hit in hits {
                // A key with several matching texts comes first with its best one.
                let key = ScopedKey(scope: Self.string(hit.scope, in: buffer), key: Self.string(hit.key, in: buffer))
                if seen.insert(key).inserted { keys.append(key) }
            }
            return keys
        }
    }

    /// `memcmp` order of two spans, then shorter first.
    private static func compare(_ a: Span, _ b: Span, in buffer: UnsafeBufferPointer<UInt8>) -> Int {
        // Zero padding orders a prefix like the shorter-first rule, so differing prefixes
        // decide; equal ones may still hide a difference (`a` and `a\0`, or past byte 8).
        if a.prefix != b.prefix { return a.prefix < b.prefix ? -1 : 1 }
        let common = min(a.count, b.count)
        if common > 0, let base = buffer.baseAddress {
            let order = memcmp(base + a.start, base + b.start, common)
            if order != 0 { return Int(order) }
        }
        return a.count - b.count
    }

    /// The string whose UTF-8 bytes a span holds (written from a Swift string, so valid).
    private static func string(_ span: Span, in buffer: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: buffer[span.start..<(span.start + span.count)]), as: UTF8.self)
    }
}
