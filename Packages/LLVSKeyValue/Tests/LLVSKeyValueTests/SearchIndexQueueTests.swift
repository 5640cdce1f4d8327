import Foundation
import LLVSCore
import LLVSTesting
import PropertyBased
import Testing
@testable import LLVSKeyValue

/// The full-text index's write queue (``PendingIndexUpdate``), its one-transaction updates
/// and the order of search results: a search never misses a write made before it, and the
/// index stays exactly the texts of the current version.
///
/// Replay a property failure by adding the `.fixedSeed("…")` trait the failure message prints.
@Suite struct SearchIndexQueueTests {
    @Test func aSearchSeesEveryWriteMadeBeforeIt() throws {
        let database = try KeyValueDatabase(fileURL: nil, author: .alice)
        for index in 0..<12 {
            try database.writeText("common word\(index)", to: "k\(index)")
            if index % 5 == 0 { #expect(try database.search(for: "common").count == index + 1) }
        }
        try database.writeText("replaced", to: "k0")
        try database.delete(key: "k1")
        try database.bulkWrite { writer in
            writer.writeText("also replaced", to: "k2")
            try writer.writeJSON("\"json is not indexed\"", to: "k3")  // no text: k3 leaves the index
        }
        #expect(try database.search(for: "word0 OR word1 OR word2 OR word3").isEmpty)
        #expect(try database.search(for: "replaced") == [ScopedKey(key: "k0"), ScopedKey(key: "k2")])
        #expect(try database.search(for: "common").count == 8)
        try database.searchIndex.checkIntegrity()
    }

    @Test func queuedWritesMeetAMergeWithoutStaleTexts() throws {
        let alice = try KeyValueDatabase(fileURL: nil, author: .alice)
        let bob = try KeyValueDatabase(fileURL: nil, author: .bob)
        try alice.writeText("apple", to: "k")
        try alice.writeText("alone", to: "a")
        try bob.writeText("banana", to: "k")
        try alice.merge(source: bob)  // alice's writes are still queued: the merge writes them first
        #expect(try alice.search(for: "apple") == [ScopedKey(key: "k")])
        #expect(try alice.search(for: "banana") == [ScopedKey(key: "k")])
        #expect(try alice.search(for: "alone") == [ScopedKey(key: "a")])
        try alice.writeText("cherry", to: "k")
        try bob.writeText("date", to: "b")
        try alice.merge(source: bob)
        #expect(try alice.search(for: "apple OR banana").isEmpty, "the write superseded both concurrent texts")
        #expect(try alice.search(for: "cherry OR date") == [ScopedKey(key: "b"), ScopedKey(key: "k")])
        try alice.searchIndex.checkIntegrity()
    }

    @Test func closeWritesTheQueueAndAnUnclosedDatabaseCatchesUpWhenReopened() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("db")
        let indexURL = url.appendingPathComponent(KeyValueDatabase.searchIndexFileName)
        let closed = try KeyValueDatabase(fileURL: url, author: .alice)
        try closed.writeText("first", to: "a")
        try closed.close()
        #expect(try SearchIndex(fileURL: indexURL).indexedVersion() == closed.currentVersionId, "close wrote the queued text")
        do {
            let dropped = try KeyValueDatabase(fileURL: url, author: .alice)
            try dropped.writeText("second", to: "a")
            try dropped.writeText("third", to: "b")
        }
        let reopened = try KeyValueDatabase(fileURL: url, author: .alice)
        #expect(try reopened.search(for: "first").isEmpty)
        #expect(try reopened.search(for: "second OR third") == [ScopedKey(key: "a"), ScopedKey(key: "b")])
        try reopened.searchIndex.checkIntegrity()
    }

    @Test func aFullQueueIsWrittenWithoutASearch() throws {
        let database = try KeyValueDatabase(fileURL: nil, author: .alice)
        try database.writeText("before", to: "first")
        #expect(try database.searchIndex.indexedVersion() != database.currentVersionId, "one write waits in the queue")
        var values: [ScopedKey: KeyValueDatabase.Value] = [:]
        for index in 0..<PendingIndexUpdate.keyLimit { values[ScopedKey(key: "k\(index)")] = .text("bulk") }
        try database.bulkWrite(values)
        #expect(try database.searchIndex.indexedVersion() == database.currentVersionId, "the full queue went to the index")
        #expect(try database.search(for: "before") == [ScopedKey(key: "first")])
    }

    @Test func theQueueKeepsTheLastTextsOfEachKeyAndItsVersionRange() {
        var queue = PendingIndexUpdate()
        #expect(queue.isEmpty)
        #expect(queue.take() == nil)
        queue.add([(ScopedKey(key: "b"), ["one"]), (ScopedKey(key: "a"), ["x"])], from: "v1", to: "v2")
        queue.add([(ScopedKey(key: "b"), [])], from: "v2", to: "v3")
        #expect(!queue.isFull)
        let taken = queue.take()
        #expect(taken?.entries.map(\.0) == [ScopedKey(key: "a"), ScopedKey(key: "b")])
        #expect(taken?.entries.map(\.1) == [["x"], []])
        #expect(taken?.from == "v1" && taken?.to == "v3")
        #expect(queue.isEmpty)
        queue.add([(ScopedKey(key: "big"), [String(repeating: "x", count: PendingIndexUpdate.byteLimit)])], from: nil, to: "v4")
        #expect(queue.isFull, "the byte limit counts text")
        #expect(queue.take()?.from == nil)
    }

    @Test func anIndexGivenBackItsTriggersByAnOlderBuildIsNotIndexedTwice() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("db")
        let indexURL = url.appendingPathComponent(KeyValueDatabase.searchIndexFileName)
        do {
            let database = try KeyValueDatabase(fileURL: url, author: .alice)
            try database.writeText("old words", to: "a")
            try database.close()
        }
        try SearchIndex.execute("""
            CREATE TRIGGER kv_text_inserted AFTER INSERT ON kv_text BEGIN
                INSERT INTO kv_text_fts (rowid, text) VALUES (new.id, new.text);
            END;
            CREATE TRIGGER kv_text_deleted AFTER DELETE ON kv_text BEGIN
                INSERT INTO kv_text_fts (kv_text_fts, rowid, text) VALUES ('delete', old.id, old.text);
            END;
            """, inIndexAt: indexURL)
        let reopened = try KeyValueDatabase(fileURL: url, author: .alice)
        try reopened.writeText("new words", to: "a")
        try reopened.writeText("more words", to: "b")
        #expect(try reopened.search(for: "words") == [ScopedKey(key: "a"), ScopedKey(key: "b")])
        try reopened.searchIndex.checkIntegrity()
    }

    @Test func resultsComeBestMatchFirstThenByScopeAndKeyOnceEach() throws {
        let alice = try KeyValueDatabase(fileURL: nil, author: .alice)
        let bob = try KeyValueDatabase(fileURL: nil, author: .bob)
        try alice.bulkWrite { writer in
            writer.writeText("fox", to: "short")
            writer.writeText("a fox among many other words in a long text", to: "long")
            writer.writeText("the same fox text", to: "b", scope: "s")
            writer.writeText("the same fox text", to: "a", scope: "s")
            writer.writeText("the same fox text", to: "z", scope: "")
        }
        try bob.writeText("a fox among many other words in a longer text, and more", to: "short")
        try alice.merge(source: bob)
        // `short` holds its best text ("fox") beside a long one, and is listed once, first;
        // equal texts rank equally and come by scope, then key, as bytes.
        #expect(try alice.search(for: "fox") == [ScopedKey(key: "short"), ScopedKey(key: "z"), ScopedKey(scope: "s", key: "a"),
                                                 ScopedKey(scope: "s", key: "b"), ScopedKey(key: "long")])
    }

    /// Short strings of NUL, ASCII, Latin-1 letters and combining marks (one to two UTF-8 bytes
    /// each, so prefixes and multi-byte orders are both exercised).
    static let part = Gen.unicodeScalar(in: "\u{0}"..."\u{36F}").map(Character.init).string(of: 0...4)

    @Test func scopedKeysCompareAndHashAsTheirUTF8Bytes() async {
        await propertyCheck(count: 1_000, input: zip(Self.part, Self.part, Self.part, Self.part)) { scopeA, keyA, scopeB, keyB in
            let a = ScopedKey(scope: scopeA, key: keyA), b = ScopedKey(scope: scopeB, key: keyB)
            let bytesEqual = Array(scopeA.utf8) == Array(scopeB.utf8) && Array(keyA.utf8) == Array(keyB.utf8)
            let bytesBefore = Array(scopeA.utf8) == Array(scopeB.utf8)
                ? keyA.utf8.lexicographicallyPrecedes(keyB.utf8) : scopeA.utf8.lexicographicallyPrecedes(scopeB.utf8)
            #expect((a == b) == bytesEqual)
            #expect((a < b) == bytesBefore)
            if bytesEqual { #expect(a.hashValue == b.hashValue) }
            let copy = ScopedKey(scope: String(decoding: Array(scopeA.utf8), as: UTF8.self), key: String(decoding: Array(keyA.utf8), as: UTF8.self))
            #expect(copy == a && copy.hashValue == a.hashValue, "a key read back from its bytes is the same key")
        }
    }

    /// Scopes and keys up to 24 UTF-8 bytes: longer than the eight-byte prefix that orders
    /// most comparisons, with NULs that only the full comparison tells apart from padding.
    static let longPart = Gen.unicodeScalar(in: "\u{0}"..."\u{36F}").map(Character.init).string(of: 0...12)

    /// ``SearchHits`` lists each key once, by its best rank, then by scope and key as bytes:
    /// the order of a plain reference sort, for hits with many equal ranks and shared prefixes.
    @Test func searchHitsOrderKeysByBestRankThenBytes() async {
        let hit = zip(Self.longPart, Self.longPart, Gen.int(in: 0...3))
        await propertyCheck(count: 500, input: hit.array(of: 0...40)) { drawn in
            var hits = SearchHits()
            for (scope, key, rank) in drawn {
                let scopeSpan = Array(scope.utf8).withUnsafeBytes { hits.append($0) }
                let keySpan = Array(key.utf8).withUnsafeBytes { hits.append($0) }
                hits.add(scope: scopeSpan, key: keySpan, rank: Double(rank))
            }
            var best: [ScopedKey: Int] = [:]
            for (scope, key, rank) in drawn { best[ScopedKey(scope: scope, key: key)] = min(rank, best[ScopedKey(scope: scope, key: key)] ?? rank) }
            let expected = best.sorted { a, b in
                if a.value != b.value { return a.value < b.value }
                let scopes = (Array(a.key.scope.utf8), Array(b.key.scope.utf8))
                if scopes.0 != scopes.1 { return scopes.0.lexicographicallyPrecedes(scopes.1) }
                return Array(a.key.key.utf8).lexicographicallyPrecedes(Array(b.key.key.utf8))
            }.map(\.key)
            #expect(hits.keysByRank() == expected)
        }
    }
}
