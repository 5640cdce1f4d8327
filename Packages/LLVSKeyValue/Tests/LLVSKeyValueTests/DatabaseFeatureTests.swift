import Foundation
import LLVSCore
import LLVSExchange
import LLVSKeyValue
import LLVSTesting
import LLVSStore
import Testing

/// Persistence, the full-text index, history, statistics, sync and the typed errors.
@Suite struct DatabaseFeatureTests {
    @Test func aDatabaseInAFileReopensWithItsValuesAndIndex() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("db")
        do {
            let database = try KeyValueDatabase(fileURL: url, author: .alice)
            try database.writeText("persistent searchable words", to: "note", scope: "s")
        }
        let reopened = try KeyValueDatabase(fileURL: url, author: .alice)
        #expect(try reopened.read(key: "note", scope: "s").text == "persistent searchable words")
        #expect(try reopened.search(for: "searchable") == [ScopedKey(scope: "s", key: "note")])
        #expect(FileManager.default.fileExists(atPath: url.appendingPathComponent(KeyValueDatabase.searchIndexFileName).path))
    }

    /// Every store a database opens — in a directory or in memory, and the one that
    /// replaces it when the history is erased — has the database's cache budget.
    @Test(arguments: [true, false])
    func everyStoreOfADatabaseHasItsCacheBudget(inDirectory: Bool) throws {
        let directory = try TemporaryDirectory()
        let database = try KeyValueDatabase(fileURL: inDirectory ? directory.file("db") : nil, author: .alice)
        #expect(database.store.cacheByteLimit == KeyValueDatabase.storeCacheByteLimit)
        try database.writeText("words", to: "a")
        try database.eraseVersionHistory()
        #expect(database.store.cacheByteLimit == KeyValueDatabase.storeCacheByteLimit)
        #expect(try database.read(key: "a").text == "words")
        if inDirectory {
            let reopened = try KeyValueDatabase(fileURL: directory.file("db"), author: .alice)
            #expect(reopened.store.cacheByteLimit == KeyValueDatabase.storeCacheByteLimit)
        }
        #expect(KeyValueDatabase.storeCacheByteLimit < Store.defaultCacheByteLimit)
    }

    @Test func aLostOrStaleIndexIsRebuiltFromTheStore() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("db")
        let indexURL = url.appendingPathComponent(KeyValueDatabase.searchIndexFileName)
        do {
            let database = try KeyValueDatabase(fileURL: url, author: .alice)
            try database.writeText("first words", to: "a")
            _ = try database.search(for: "words")  // writes the queued text: the index is at this version
        }
        let staleIndex = try Data(contentsOf: indexURL)
        do {
            let database = try KeyValueDatabase(fileURL: url, author: .alice)
            try database.writeText("second words", to: "b")
            try database.delete(key: "a")
        }
        // An index left behind at an older version (as after a crash between the store's
        // commit and the index's) catches up from the store's differences…
        try staleIndex.write(to: indexURL)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: indexURL.path + suffix) }
        let caughtUp = try KeyValueDatabase(fileURL: url, author: .alice)
        #expect(try caughtUp.search(for: "words") == [ScopedKey(key: "b")])
        // …and a missing one is rebuilt.
        try FileManager.default.removeItem(at: indexURL)
        let rebuilt = try KeyValueDatabase(fileURL: url, author: .alice)
        #expect(try rebuilt.search(for: "words") == [ScopedKey(key: "b")])
    }

    @Test func searchFollowsMergesDeletesAndConcurrentValues() throws {
        let alice = try KeyValueDatabase(fileURL: nil, author: .alice)
        let bob = try KeyValueDatabase(fileURL: nil, author: .bob)
        try alice.writeText("apple pie", to: "recipe")
        try bob.writeText("banana bread", to: "recipe")
        try bob.writeText("Crème brûlée", to: "dessert")
        try alice.merge(source: bob)
        #expect(try alice.search(for: "apple") == [ScopedKey(key: "recipe")])
        #expect(try alice.search(for: "banana") == [ScopedKey(key: "recipe")], "each concurrent value is indexed")
        #expect(try alice.search(for: "apple OR banana") == [ScopedKey(key: "recipe")], "a key is listed once")
        #expect(try alice.search(for: "creme brulee") == [ScopedKey(key: "dessert")], "diacritics are ignored")
        try alice.delete(key: "dessert")
        #expect(try alice.search(for: "creme").isEmpty)
        #expect(throws: KeyValueDatabaseError.self) { try alice.search(for: "\"unbalanced") }
    }

    @Test func everyKeyKeepsItsFullHistory() throws {
        let database = try KeyValueDatabase(fileURL: nil, author: .alice)
        try database.writeText("one", to: "k")
        let afterOne = database.currentVersionId
        try database.writeText("two", to: "k")
        try database.writeText("unrelated", to: "other")
        try database.delete(key: "k")
        let history = try database.history(key: "k")
        #expect(history.map { $0.versions.compactMap(\.value.text) } == [[], ["two"], ["one"]])
        #expect(try database.read(key: "k", at: afterOne).text == "one")
        #expect(try database.read(key: "k").isDeleted)
        #expect(try database.read(key: "k").text == nil)
    }

    @Test func statisticsCountKeysValuesConflictsAndAuthors() throws {
        let alice = try KeyValueDatabase(fileURL: nil, author: .alice)
        let bob = try KeyValueDatabase(fileURL: nil, author: .bob)
        try alice.bulkWrite([ScopedKey(scope: "s", key: "a"): .text("1"), ScopedKey(key: "b"): .text("2"), ScopedKey(key: "c"): .text("3")])
        try bob.writeText("x", to: "b")
        try alice.delete(key: "c")
        try alice.merge(source: bob)
        let statistics = try alice.statistics
        #expect(statistics.keyCount == 2)
        #expect(statistics.entryCount == 4, "a, b's two concurrent values, and c's delete")
        #expect(statistics.conflictedKeyCount == 1)
        #expect(statistics.tombstoneCount == 1)
        #expect(statistics.scopeCount == 2)
        #expect(statistics.authorCount == 2)
        #expect(statistics.headCount == 1)
        #expect(try alice.authors() == [Author.alice, Author.bob])
    }

    @Test func scopesWithSlashesAndPercentSignsRoundTrip() throws {
        let database = try KeyValueDatabase(fileURL: nil, author: .alice)
        try database.writeText("1", to: "k/ey", scope: "a/b")
        try database.writeText("2", to: "k", scope: "a%2Fb")
        try database.writeText("3", to: "b/k", scope: "a")
        #expect(try database.keys() == [ScopedKey(scope: "a", key: "b/k"), ScopedKey(scope: "a%2Fb", key: "k"), ScopedKey(scope: "a/b", key: "k/ey")])
        #expect(try database.read(key: "k", scope: "a%2Fb").text == "2")
        #expect(try database.keys(scope: "a/b").map(\.key) == ["k/ey"])
    }

    @Test func syncThroughAnExchange() async throws {
        let directory = try TemporaryDirectory()
        let alice = try KeyValueDatabase(fileURL: directory.file("alice"), author: .alice)
        let bob = try KeyValueDatabase(fileURL: directory.file("bob"), author: .bob)
        let shared = directory.file("shared")
        try alice.writeText("A", to: "k")
        try bob.writeText("B", to: "k")
        try await alice.sync(with: FileSystemExchange(rootDirectoryURL: shared, store: alice.store))
        try await bob.sync(with: FileSystemExchange(rootDirectoryURL: shared, store: bob.store))
        try await alice.sync(with: FileSystemExchange(rootDirectoryURL: shared, store: alice.store))
        #expect(alice.currentVersionId == bob.currentVersionId)
        #expect(Set(try alice.read(key: "k").compactMap(\.value.text)) == ["A", "B"])
        #expect(try bob.search(for: "A") == [ScopedKey(key: "k")])
        await #expect(throws: KeyValueDatabaseError.exchangeOfAnotherStore) {
            try await alice.sync(with: FileSystemExchange(rootDirectoryURL: shared, store: bob.store))
        }
    }

    @Test func badInputGetsTypedErrorsAndWritesNothing() throws {
        let database = try KeyValueDatabase(fileURL: nil, author: .alice)
        try database.writeText("kept", to: "k")
        let before = database.currentVersionId
        #expect(throws: KeyValueDatabaseError.self) { try database.writeJSON("{not json", to: "k") }
        #expect(throws: KeyValueDatabaseError.self) {
            try database.bulkWrite { writer in
                writer.writeText("never", to: "other")
                try writer.writeJSON("[1,", to: "broken")
            }
        }
        #expect(database.currentVersionId == before)
        #expect(try database.read(key: "k").text == "kept")
        #expect(try database.read(key: "other").isEmpty)
    }

    @Test func aCorruptStoredValueIsNamed() throws {
        let database = try KeyValueDatabase(fileURL: nil, author: .alice)
        try database.writeText("fine", to: "fine")
        // Another program writes bytes that are no register under the database's key space.
        let corrupt = Value(id: Value.ID("kv/scope/broken"), data: Data("garbage".utf8))
        try database.store.makeVersion(basedOnPredecessor: database.currentVersionId, inserting: [corrupt])
        try database.mergeHeads()
        let reopened = try KeyValueDatabase(fileURL: nil, author: .alice)
        try reopened.merge(source: database)
        #expect(try reopened.search(for: "garbage").isEmpty, "the index leaves corrupt data out")
        #expect(throws: KeyValueDatabaseError.self) { try reopened.keys() }
        #expect(throws: KeyValueDatabaseError.self) { try reopened.read(key: "broken", scope: "scope") }
        do {
            _ = try reopened.read(key: "broken", scope: "scope")
        } catch let error as KeyValueDatabaseError {
            #expect(error.description.contains("scope/broken"))
        }
        #expect(try reopened.read(key: "fine").text == "fine")
    }
}
