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
                try db.execute(sql: """
                    CREATE TABLE IF NOT EXISTS kv_index_state (id INTEGER PRIMARY KEY CHECK (id = 1), version TEXT NOT NULL);
                    CREATE TABLE IF NOT EXISTS kv_text (id INTEGER PRIMARY KEY, scope TEXT NOT NULL, key TEXT NOT NULL, text TEXT NOT NULL);
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
            try queue.read { db in try String.fetchOne(db, sql: "SELECT version FROM kv_index_state WHERE id = 1") }.map(Version.ID.init)
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
                let current = try String.fetchOne(db, sql: "SELECT version FROM kv_index_state WHERE id = 1")
                if replacingAll {
                    try db.execute(sql: "DELETE FROM kv_text")
                } else if current != previous?.rawValue {
                    return false
                }
                let delete = try db.makeStatement(sql: "DELETE FROM kv_text WHERE scope = ? AND key = ?")
                let insert = try db.makeStatement(sql: "INSERT INTO kv_text (scope, key, text) VALUES (?, ?, ?)")
                for (key, texts) in entries {
                    if !replacingAll { try delete.execute(arguments: [key.scope, key.key]) }
                    for text in texts { try insert.execute(arguments: [key.scope, key.key, text]) }
                }
                try db.execute(sql: "INSERT INTO kv_index_state (id, version) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET version = excluded.version",
                               arguments: [version.rawValue])
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
                    """, arguments: [query]).map { ScopedKey(scope: $0["scope"], key: $0["key"]) }
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
