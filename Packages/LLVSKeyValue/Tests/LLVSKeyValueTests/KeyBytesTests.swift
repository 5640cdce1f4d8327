import Foundation
import LLVSCore
import LLVSTesting
import Testing
@testable import LLVSKeyValue

/// Keys and scopes are bytes (SPEC.md section 1): a NUL, a combining mark or another
/// normalization makes another key, in the values, the key mapping and the search index.
@Suite struct KeyBytesTests {
    /// Keys that text columns and `String ==` merge or cut.
    static let keys: [ScopedKey] = [
        ScopedKey(key: "a\0b"), ScopedKey(key: "a"), ScopedKey(key: "\0"),
        ScopedKey(scope: "\0", key: "caf\u{E9}"), ScopedKey(scope: "\0", key: "cafe\u{301}"),
        ScopedKey(scope: "s", key: "\u{301}x"), ScopedKey(scope: "/\u{301}%", key: "../x"),
        ScopedKey(scope: "%2F", key: "\r\n\t"), ScopedKey(key: "\u{FFFF}🧪"),
    ]

    static func text(_ index: Int) -> String { "word\(index) shared" }

    @Test func keysWithNULAndOtherNormalizationsStayApart() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("db")
        do {
            let database = try KeyValueDatabase(fileURL: url, author: .alice)
            for (index, key) in Self.keys.enumerated() {
                try database.writeText(Self.text(index), to: key.key, scope: key.scope)
            }
            try expectEveryKeyApart(database)
            // Rewriting `a\0b` leaves `a` and its index entry alone.
            try database.writeText("replaced", to: "a\0b")
            #expect(try database.read(key: "a").text == Self.text(1))
            #expect(try database.search(for: "word1") == [ScopedKey(key: "a")])
            #expect(try database.search(for: "word0").isEmpty)
            try database.writeText(Self.text(0), to: "a\0b")
        }
        try expectEveryKeyApart(try KeyValueDatabase(fileURL: url, author: .alice))
    }

    @Test func anIndexOfTheEarlierFormatIsRebuilt() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("db")
        do {
            let database = try KeyValueDatabase(fileURL: url, author: .alice)
            for (index, key) in Self.keys.enumerated() {
                try database.writeText(Self.text(index), to: key.key, scope: key.scope)
            }
        }
        // The index as the earlier format made it (identifiers as text), with a stale row.
        let indexURL = url.appendingPathComponent(KeyValueDatabase.searchIndexFileName)
        try FileManager.default.removeItem(at: indexURL)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: indexURL.path + suffix) }
        try SearchIndex.execute("""
            CREATE TABLE kv_index_state (id INTEGER PRIMARY KEY CHECK (id = 1), version TEXT NOT NULL);
            CREATE TABLE kv_text (id INTEGER PRIMARY KEY, scope TEXT NOT NULL, key TEXT NOT NULL, text TEXT NOT NULL);
            CREATE INDEX kv_text_by_key ON kv_text (scope, key);
            CREATE VIRTUAL TABLE kv_text_fts USING fts5 (text, content = 'kv_text', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2');
            CREATE TRIGGER kv_text_inserted AFTER INSERT ON kv_text BEGIN INSERT INTO kv_text_fts (rowid, text) VALUES (new.id, new.text); END;
            INSERT INTO kv_text (scope, key, text) VALUES ('', 'stale', 'word0 shared');
            INSERT INTO kv_index_state VALUES (1, 'NOT-A-VERSION');
            """, inIndexAt: indexURL)
        try expectEveryKeyApart(try KeyValueDatabase(fileURL: url, author: .alice))
    }

    private func expectEveryKeyApart(_ database: KeyValueDatabase, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for (index, key) in Self.keys.enumerated() {
            #expect(try database.read(key: key.key, scope: key.scope).text == Self.text(index),
                    "\(key.description.debugDescription)", sourceLocation: sourceLocation)
            #expect(try database.search(for: "word\(index)") == [key], "\(key.description.debugDescription)", sourceLocation: sourceLocation)
        }
        // Selections by scope, key and key prefix compare bytes too.
        #expect(try database.keys(scope: "\0") == [ScopedKey(scope: "\0", key: "caf\u{E9}"), ScopedKey(scope: "\0", key: "cafe\u{301}")].sorted(),
                sourceLocation: sourceLocation)
        #expect(try database.keys(key: "caf\u{E9}") == [ScopedKey(scope: "\0", key: "caf\u{E9}")], sourceLocation: sourceLocation)
        #expect(try database.keys(key: "a") == [ScopedKey(key: "a")], sourceLocation: sourceLocation)
        #expect(Set(try database.bulkReadAllScopes(keyPrefix: "cafe").keys) == [ScopedKey(scope: "\0", key: "cafe\u{301}")],
                sourceLocation: sourceLocation)
        #expect(Set(try database.bulkReadAllScopes(keyPrefix: "a").keys) == [ScopedKey(key: "a"), ScopedKey(key: "a\0b")],
                sourceLocation: sourceLocation)
        #expect(Set(try database.bulkRead(scope: "s").keys) == [ScopedKey(scope: "s", key: "\u{301}x")], sourceLocation: sourceLocation)
        let found = try database.search(for: "shared")
        #expect(Set(found) == Set(Self.keys), sourceLocation: sourceLocation)
        #expect(found.count == Self.keys.count, sourceLocation: sourceLocation)
    }
}
