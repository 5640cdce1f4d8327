import Foundation
import LLVSKeyValue
import LLVSTesting
import Testing

/// Every example of the KeyValueCRDT README (reference/keyvaluecrdt-readme.md), on
/// databases in files (SQLite) unless the example opens one in memory.
@Suite struct ReadmeExampleTests {
    @Test func openingADatabase() throws {
        let directory = try TemporaryDirectory()
        let fileURL = directory.file("notes.kvdb")
        let database = try KeyValueDatabase(fileURL: fileURL, authorDescription: "Brian's iPhone")
        try database.writeText("kept", to: "key")
        #expect(database.author.name == "Brian's iPhone")
        // Reopening under the same description writes as the same author.
        let reopened = try KeyValueDatabase(fileURL: fileURL, authorDescription: "Brian's iPhone")
        #expect(reopened.author == database.author)
        #expect(try reopened.read(key: "key").text == "kept")
    }

    @Test func writingAndReadingText() throws {
        let directory = try TemporaryDirectory()
        let database = try KeyValueDatabase(fileURL: directory.file("db"), authorDescription: "Brian's iPhone")
        try database.writeText("Hello, world!", to: "key")
        #expect(try database.read(key: "key").text == "Hello, world!")
    }

    @Test func valuesKeepTheirType() throws {
        let directory = try TemporaryDirectory()
        let database = try KeyValueDatabase(fileURL: directory.file("db"), authorDescription: "Brian's iPhone")
        // Note this is storing valid JSON *as text* to the key
        try database.writeText("{\"value\": 42}", to: "key")
        #expect(try database.read(key: "key").text == "{\"value\": 42}")
        #expect(try database.read(key: "key").json == nil)
        #expect(try database.read(key: "key").blob == nil)

        try database.writeJSON("{\"value\": 42}", to: "key")
        #expect(try database.read(key: "key").json == "{\"value\": 42}")
        #expect(try database.read(key: "key").text == nil)
        try database.writeBlob(Data([1, 2, 3]), to: "key")
        #expect(try database.read(key: "key").blob == Data([1, 2, 3]))
        #expect(try database.read(key: "key").json == nil)
    }

    @Test func mergingWithoutConflicts() throws {
        let directory = try TemporaryDirectory()
        let aliceDatabase = try KeyValueDatabase(fileURL: directory.file("alice"), author: Author(id: UUID(), name: "Alice"))
        let bobDatabase = try KeyValueDatabase(fileURL: directory.file("bob"), author: Author(id: UUID(), name: "Bob"))

        try aliceDatabase.writeText("From Alice", to: "alice")
        try bobDatabase.writeText("From Bob", to: "bob")

        #expect(try aliceDatabase.read(key: "alice").text == "From Alice")
        #expect(try aliceDatabase.read(key: "bob").text == nil)

        try aliceDatabase.merge(source: bobDatabase)

        #expect(try aliceDatabase.read(key: "alice").text == "From Alice")
        #expect(try aliceDatabase.read(key: "bob").text == "From Bob")

        // Merge is one-way.
        #expect(try bobDatabase.read(key: "bob").text == "From Bob")
        #expect(try bobDatabase.read(key: "alice").text == nil)
    }

    @Test func mergingConflictingWritesKeepsBoth() throws {
        let directory = try TemporaryDirectory()
        let aliceDatabase = try KeyValueDatabase(fileURL: directory.file("alice"), authorDescription: "Alice's iPhone")
        let bobDatabase = try KeyValueDatabase(fileURL: directory.file("bob"), authorDescription: "Bob's iPhone")

        try aliceDatabase.writeText("From Alice", to: "shared")
        try bobDatabase.writeText("From Bob", to: "shared")

        #expect(try aliceDatabase.read(key: "shared").text == "From Alice")
        #expect(try bobDatabase.read(key: "shared").text == "From Bob")

        try aliceDatabase.merge(source: bobDatabase)

        #expect(try aliceDatabase.read(key: "shared").count == 2)
        #expect(throws: KeyValueCRDTError.self) { try aliceDatabase.read(key: "shared").text }
        let versions = try aliceDatabase.read(key: "shared")
        #expect(Set(versions.map(\.authorID)) == [aliceDatabase.author.id, bobDatabase.author.id])
        #expect(Set(versions.compactMap(\.value.text)) == ["From Alice", "From Bob"])
    }

    @Test func resolvingConflictsWithLastWriterWins() throws {
        let alice = try KeyValueDatabase(fileURL: nil, author: .alice)
        let bob = try KeyValueDatabase(fileURL: nil, author: .bob)
        try alice.writeText("older", to: "test")
        try bob.writeText("newer", to: "test")
        try alice.merge(source: bob)
        #expect(try alice.read(key: "test").count == 2)
        #expect(try alice.read(key: "test").resolved(with: .lastWriterWins)?.text == "newer")
        #expect(try alice.read(key: "missing").resolved(with: .lastWriterWins) == nil)

        // A custom resolver.
        struct LongestText: Resolver {
            func resolveVersions(_ versions: [KeyValueDatabase.Version]) -> KeyValueDatabase.Value? {
                versions.compactMap(\.value.text).max { $0.count < $1.count }.map(KeyValueDatabase.Value.text)
            }
        }
        #expect(try alice.read(key: "test").resolved(with: LongestText())?.text == "older")
    }

    struct Upgrader: ApplicationDataUpgrader {
        let expectedApplicationIdentifier = ApplicationIdentifier(id: "org.brians-brain.library-notes", majorVersion: 1, minorVersion: 1)
        func upgradeApplicationData(in database: KeyValueDatabase) throws {
            try database.writeText("upgraded", to: "format")
        }
    }

    @Test func applicationDataVersioning() throws {
        let directory = try TemporaryDirectory()
        let fileURL = directory.file("notes")
        let database = try KeyValueDatabase(fileURL: fileURL, authorDescription: "Test", upgrader: Upgrader())
        #expect(try database.applicationIdentifier == Upgrader().expectedApplicationIdentifier)
        #expect(try database.read(key: "format").text == "upgraded", "a database without an identifier, new ones included, goes through the upgrader, as in KeyValueCRDT")
    }

    @Test func scopes() throws {
        let database = try KeyValueDatabase(fileURL: nil, author: .alice)

        try database.writeText("scope 1 text", to: "text", scope: "item 1")
        try database.writeBlob(Data(), to: "coverImage", scope: "item 1")
        try database.writeText("scope 2 text", to: "text", scope: "item 2")

        #expect(try database.read(key: "text", scope: "item 1").text == "scope 1 text")
        #expect(try database.read(key: "text", scope: "item 2").text == "scope 2 text")
        #expect(try database.read(key: "text").isEmpty, "the default scope is its own")
    }

    @Test func listingScopesAndKeys() throws {
        let database = try KeyValueDatabase(fileURL: nil, author: .alice)
        try database.writeText("scope 1 text", to: "text", scope: "item 1")
        try database.writeBlob(Data(), to: "coverImage", scope: "item 1")
        try database.writeText("scope 2 text", to: "text", scope: "item 2")
        try database.writeText("unscoped", to: "text")

        #expect(try database.keys() == [ScopedKey(key: "text"), ScopedKey(scope: "item 1", key: "coverImage"),
                                        ScopedKey(scope: "item 1", key: "text"), ScopedKey(scope: "item 2", key: "text")])
        #expect(try database.keys(scope: "item 1") == [ScopedKey(scope: "item 1", key: "coverImage"), ScopedKey(scope: "item 1", key: "text")])
        #expect(try database.keys(key: "text").map(\.scope) == ["", "item 1", "item 2"])
        #expect(try database.keys(scope: "item 2", key: "coverImage").isEmpty)
    }

    @Test func fullTextSearch() throws {
        let directory = try TemporaryDirectory()
        let database = try KeyValueDatabase(fileURL: directory.file("db"), author: .alice)
        try database.writeText("The quick brown fox", to: "a", scope: "notes")
        try database.writeText("A lazy dog sleeps", to: "b", scope: "notes")
        try database.writeJSON("{\"fox\": true}", to: "c")
        #expect(try database.search(for: "fox") == [ScopedKey(scope: "notes", key: "a")], "JSON is not indexed")
        #expect(try database.search(for: "dog OR quick").count == 2)
        #expect(try database.search(for: "sle*") == [ScopedKey(scope: "notes", key: "b")])
    }

    @Test func bulkOperations() throws {
        let database = try KeyValueDatabase(fileURL: nil, author: .alice)
        let before = database.store.queryHistory { $0.count }
        try database.bulkWrite([
            ScopedKey(scope: "item", key: "title"): .text("Title"),
            ScopedKey(scope: "item", key: "meta"): .json("{\"pages\": 3}"),
            ScopedKey(key: "cover"): .blob(Data([7])),
        ])
        #expect(database.store.queryHistory { $0.count } == before + 1, "one version for the whole bulk write")
        let read = try database.bulkRead()
        #expect(read.count == 3)
        #expect(try read[ScopedKey(scope: "item", key: "title")]?.text == "Title")
        #expect(try database.bulkRead { $0.scope == "item" }.keys.sorted() == [ScopedKey(scope: "item", key: "meta"), ScopedKey(scope: "item", key: "title")])
        try database.delete(key: "cover")
        let named = try database.bulkRead(keys: [ScopedKey(scope: "item", key: "meta"), ScopedKey(key: "cover"), ScopedKey(key: "never")])
        #expect(try named[ScopedKey(scope: "item", key: "meta")]?.json == "{\"pages\": 3}")
        #expect(try named[ScopedKey(key: "cover")]?.isDeleted == true, "a deleted key reads as its delete, a .null version")
        #expect(named[ScopedKey(key: "never")]?.isEmpty == true)
    }
}
