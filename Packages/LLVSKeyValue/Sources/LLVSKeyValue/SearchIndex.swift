import Foundation
import GRDB
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
/// as `a`. An index of the earlier format (`PRAGMA user_version` 0, identifiers as text) is
/// dropped when opened, and rebuilt from the store like a missing one.
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
                    CREATE TRIGGER IF NOT EXISTS kv_text_inserted AFTER INSERT ON kv_text BEGIN
                        INSERT INTO kv_text_fts (rowid, text) VALUES (new.id, new.text);
                    END;
                    CREATE TRIGGER IF NOT EXISTS kv_text_deleted AFTER DELETE ON kv_text BEGIN
                        INSERT INTO kv_text_fts (kv_text_fts, rowid, text) VALUES ('delete', old.id, old.text);
                    END;
                    """)
            }
            return queue
        }
    }

    /// The index format (`PRAGMA user_version`): 1 stores identifiers as BLOBs.
    static let format = 1

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

    /// The store version the index reflects, or nil for an empty index.
    ///
    /// - Throws: ``KeyValueDatabaseError/searchIndex(reason:)``.
    func indexedVersion() throws(KeyValueDatabaseError) -> Version.ID? {
        try Self.guarded {
            try queue.read { db in try Data.fetchOne(db, sql: "SELECT version FROM kv_index_state WHERE id = 1") }
                .map { Version.ID(Self.string($0)) }
        }
    }

    /// Replaces the texts of each listed key and records `version`, in one transaction —
    /// only if the index is at `previous` (or everything, with `replacingAll`).
    ///
    /// - Returns: False, changing nothing, when the index is at another version.
    /// - Throws: ``KeyValueDatabaseError/searchIndex(reason:)``.
    @discardableResult
    func update(_ entries: [(ScopedKey, [String])], from previous: Version.ID?, to version: Version.ID,
                replacingAll: Bool = false) throws(KeyValueDatabaseError) -> Bool {
        try Self.guarded {
            try queue.write { db in
                let current = try Data.fetchOne(db, sql: "SELECT version FROM kv_index_state WHERE id = 1")
                if replacingAll {
                    try db.execute(sql: "DELETE FROM kv_text")
                } else if current != previous.map({ Self.blob($0.rawValue) }) {
                    return false
                }
                let delete = try db.makeStatement(sql: "DELETE FROM kv_text WHERE scope = ? AND key = ?")
                let insert = try db.makeStatement(sql: "INSERT INTO kv_text (scope, key, text) VALUES (?, ?, ?)")
                for (key, texts) in entries {
                    let scope = Self.blob(key.scope), key = Self.blob(key.key)
                    if !replacingAll { try delete.execute(arguments: [scope, key]) }
                    for text in texts { try insert.execute(arguments: [scope, key, text]) }
                }
                try db.execute(sql: "INSERT INTO kv_index_state (id, version) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET version = excluded.version",
                               arguments: [Self.blob(version.rawValue)])
                return true
            }
        }
    }

    /// The keys whose text matches `query` (FTS5 syntax), best match first.
    ///
    /// - Throws: ``KeyValueDatabaseError/invalidSearchQuery(_:reason:)`` for a malformed
    ///   query, ``KeyValueDatabaseError/searchIndex(reason:)`` otherwise.
    func search(_ query: String) throws(KeyValueDatabaseError) -> [ScopedKey] {
        do {
            return try queue.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT kv_text.scope AS scope, kv_text.key AS key, min(kv_text_fts.rank) AS best
                    FROM kv_text_fts JOIN kv_text ON kv_text.id = kv_text_fts.rowid
                    WHERE kv_text_fts MATCH ?
                    GROUP BY kv_text.scope, kv_text.key
                    ORDER BY best, kv_text.scope, kv_text.key
                    """, arguments: [query]).map {
                        ScopedKey(scope: Self.string(try $0.decode(Data.self, forColumn: "scope")),
                                  key: Self.string(try $0.decode(Data.self, forColumn: "key")))
                    }
            }
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
