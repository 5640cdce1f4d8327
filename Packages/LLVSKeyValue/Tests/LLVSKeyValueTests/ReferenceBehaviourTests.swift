import Foundation
import LLVSExchange
import LLVSKeyValue
import LLVSTesting
import Testing

/// KeyValueCRDT's own tests of public behaviour, ported to this API, and the reference API
/// this database adds: deletes as `.null` versions, statistics, `backup(to:)`,
/// `merge(source:dryRun:)`, incompatible application data, `eraseVersionHistory()`,
/// `close()` and observation. Each runs in memory and on a database directory.
@Suite struct ReferenceBehaviourTests {
    /// Where a test's databases live: in memory, or as directories on disk.
    enum Location: String, CaseIterable, CustomTestStringConvertible {
        case memory, directory
        var testDescription: String { rawValue }
    }

    /// Opens databases at one location, keeping their directory alive.
    final class Databases {
        let location: Location
        let directory: TemporaryDirectory
        private var count = 0

        init(_ location: Location) throws {
            self.location = location
            directory = try TemporaryDirectory()
        }

        func make(_ author: Author) throws -> KeyValueDatabase {
            count += 1
            return try KeyValueDatabase(fileURL: location == .memory ? nil : directory.file("db\(count)"), author: author)
        }
    }

    @Test(arguments: Location.allCases)
    func mergeIsOneWayAndDominanceFollowsIt(_ location: Location) throws {
        let databases = try Databases(location)
        let alice = try databases.make(.alice), bob = try databases.make(.bob)
        try alice.writeText("alice", to: "alice")
        try alice.writeText("alice shared", to: "shared")
        try bob.writeText("bob", to: "bob")
        try bob.writeText("bob shared", to: "shared")
        #expect(try !alice.dominates(other: bob) && !bob.dominates(other: alice))
        try alice.merge(source: bob)
        #expect(try alice.dominates(other: bob) && !bob.dominates(other: alice))
        #expect(try alice.dominates(other: alice))
        #expect(try alice.read(key: "bob").text == "bob")
        #expect(try alice.read(key: "shared").count == 2)
        #expect(Set(try alice.keys) == [ScopedKey(key: "alice"), ScopedKey(key: "bob"), ScopedKey(key: "shared")])
        #expect(try bob.read(key: "alice").text == nil, "merge is one-way")
        // KeyValueCRDT's spellings of writeJSON and search.
        try alice.writeJson(#"{"a": 21}"#, to: "json")
        #expect(try alice.read(key: "json").json == #"{"a": 21}"#)
        try alice.writeText("Shall I compare thee to a summer's day?", to: "shakespeare")
        #expect(try alice.searchText(for: "summer") == [ScopedKey(key: "shakespeare")])
    }

    @Test(arguments: Location.allCases)
    func aDeleteReadsAsANullVersion(_ location: Location) throws {
        let database = try Databases(location).make(.alice)
        try database.writeText("Hello, world!", to: "key")
        try database.delete(key: "key")
        #expect(try database.read(key: "key").isDeleted)
        #expect(try database.read(key: "key").map(\.value) == [.null])
        #expect(try database.read(key: "never").isDeleted == false, "deleted is not the same as absent")
        #expect(try database.keys.isEmpty)
        #expect(try database.bulkRead()[ScopedKey(key: "key")]?.map(\.value) == [.null])
    }

    @Test(arguments: Location.allCases)
    func aCreateDeleteConflictKeepsBothVersionsInEitherMergeOrder(_ location: Location) throws {
        let databases = try Databases(location)
        let alice = try databases.make(.alice), bob = try databases.make(.bob)
        try alice.writeText("v1", to: "test")
        try bob.merge(source: alice)
        try bob.delete(key: "test")
        #expect(try bob.read(key: "test").isDeleted)
        try alice.writeText("v2", to: "test")
        try alice.merge(source: bob)
        #expect(try alice.read(key: "test").count == 2)
        try bob.merge(source: alice)
        #expect(try bob.read(key: "test").count == 2)
        #expect(try alice.statistics.entryCount == bob.statistics.entryCount)
        #expect(try alice.statistics.tombstoneCount == 1)
        // One key with two versions: listed once, two entries; a delete by someone who saw
        // both leaves no key and one entry.
        #expect(try alice.keys.count == 1)
        #expect(try alice.statistics.entryCount == 2)
        try alice.delete(key: "test")
        #expect(try alice.keys.count == 0)
        #expect(try alice.statistics.entryCount == 1)
    }

    @Test(arguments: Location.allCases)
    func backupCopiesAndClobbers(_ location: Location) throws {
        let databases = try Databases(location)
        let crdt = try databases.make(.alice)
        try crdt.bulkWrite([ScopedKey(key: "alice"): .text("Alice"), ScopedKey(key: "shared"): .json("42")])
        let backup = try databases.make(.bob)
        try backup.writeText("Hi bob", to: "bob")
        try crdt.backup(to: backup)
        #expect(try backup.read(key: "shared").json == "42")
        #expect(try backup.read(key: "bob").count == 0, "the destination's own values are overwritten")
        #expect(try crdt.dominates(other: backup) && backup.dominates(other: crdt))
        #expect(try crdt.merge(source: backup, dryRun: true).isEmpty, "the copy holds nothing the original lacks")
        #expect(try backup.merge(source: crdt, dryRun: true).isEmpty)
        if location == .directory, let url = backup.fileURL {
            try backup.close()
            let reopened = try KeyValueDatabase(fileURL: url, author: .bob)
            #expect(try reopened.read(key: "bob").count == 0, "the overwrite is in the history: reopening does not bring it back")
            #expect(try reopened.read(key: "alice").text == "Alice")
        }
        let directory = try TemporaryDirectory()
        try crdt.backup(to: directory.file("copy"))
        let copy = try KeyValueDatabase(fileURL: directory.file("copy"), author: .alice)
        #expect(try copy.bulkRead().mapValues { $0.map(\.value) } == crdt.bulkRead().mapValues { $0.map(\.value) })
        #expect(throws: KeyValueDatabaseError.backupDestinationNotEmpty(path: directory.file("copy").path)) {
            try crdt.backup(to: directory.file("copy"))
        }
    }

    @Test(arguments: Location.allCases)
    func aDryRunNamesTheKeysAMergeChangesAndChangesNothing(_ location: Location) throws {
        let databases = try Databases(location)
        let alice = try databases.make(.alice), bob = try databases.make(.bob)
        try alice.writeText("a", to: "same")
        try bob.merge(source: alice)
        try alice.writeText("alice", to: "alice")
        try bob.writeText("bob", to: "bob")
        try bob.writeText("b", to: "shared")
        try alice.writeText("a", to: "shared")
        let before = alice.currentVersionId, versions = alice.store.queryHistory { $0.count }
        let predicted = try alice.merge(source: bob, dryRun: true)
        #expect(predicted == [ScopedKey(key: "bob"), ScopedKey(key: "shared")])
        #expect(alice.currentVersionId == before && alice.store.queryHistory { $0.count } == versions, "a dry run writes nothing")
        #expect(try alice.merge(source: bob) == predicted)
        #expect(try alice.merge(source: bob).isEmpty, "merging again changes nothing")
    }

    @Test(arguments: Location.allCases)
    func incompatibleApplicationDataIsRefusedInBothDirections(_ location: Location) throws {
        let databases = try Databases(location)
        let version1 = ApplicationIdentifier(id: "org.example.notes", majorVersion: 1, minorVersion: 0)
        let version2 = ApplicationIdentifier(id: "org.example.notes", majorVersion: 2, minorVersion: 0)
        let other = ApplicationIdentifier(id: "org.example.other", majorVersion: 1, minorVersion: 0)
        func labelled(_ identifier: ApplicationIdentifier?, _ author: Author) throws -> KeyValueDatabase {
            let database = try databases.make(author)
            if let identifier { try database.setApplicationIdentifier(identifier) }
            try database.writeText("from \(author.name)", to: author.name)
            return database
        }
        for (first, second) in [(version1, version2), (version1, other), (version1, nil)] as [(ApplicationIdentifier, ApplicationIdentifier?)] {
            let a = try labelled(first, .alice), b = try labelled(second, .bob)
            for (receiver, source) in [(a, b), (b, a)] {
                let before = receiver.currentVersionId, versions = receiver.store.queryHistory { $0.count }
                #expect(throws: KeyValueDatabaseError.self) { try receiver.merge(source: source) }
                #expect(throws: KeyValueDatabaseError.self) { try receiver.merge(source: source, dryRun: true) }
                #expect(receiver.currentVersionId == before && receiver.store.queryHistory { $0.count } == versions, "nothing changed")
                #expect(try receiver.applicationIdentifier == (receiver === a ? first : second))
            }
        }
        // An empty database without an identifier takes the source's data and label.
        let fresh = try databases.make(.bob), labelledOne = try labelled(version2, .alice)
        try fresh.merge(source: labelledOne)
        #expect(try fresh.applicationIdentifier == version2)
        #expect(try fresh.read(key: "Alice").text == "from Alice")
    }

    /// Versions that arrive through an exchange are checked as a merge is: a sync that
    /// brings another application's head merges nothing.
    @Test func aSyncBringingAnotherApplicationsDataMergesNothing() async throws {
        let directory = try TemporaryDirectory()
        let notes = try KeyValueDatabase(fileURL: nil, author: .alice), other = try KeyValueDatabase(fileURL: nil, author: .bob)
        try notes.setApplicationIdentifier(ApplicationIdentifier(id: "org.example.notes", majorVersion: 1, minorVersion: 0))
        try notes.writeText("mine", to: "k")
        try other.setApplicationIdentifier(ApplicationIdentifier(id: "org.example.other", majorVersion: 1, minorVersion: 0))
        try other.writeText("theirs", to: "k")
        let shared = directory.file("shared")
        try await other.sync(with: FileSystemExchange(rootDirectoryURL: shared, store: other.store))
        let before = notes.currentVersionId
        await #expect(throws: KeyValueDatabaseError.self) {
            try await notes.sync(with: FileSystemExchange(rootDirectoryURL: shared, store: notes.store))
        }
        #expect(notes.currentVersionId == before)
        #expect(try notes.read(key: "k").text == "mine")
        #expect(throws: KeyValueDatabaseError.self) { try notes.mergeHeads() }
        #expect(notes.currentVersionId == before)
    }

    @Test(arguments: Location.allCases)
    func erasingHistoryLeavesOneVersionWithTheCurrentValues(_ location: Location) throws {
        let databases = try Databases(location)
        let alice = try databases.make(.alice), bob = try databases.make(.bob)
        try alice.writeText("one", to: "k")
        try alice.writeText("two", to: "k")
        try alice.writeText("doomed", to: "gone")
        try alice.delete(key: "gone")
        try bob.merge(source: alice)
        try bob.writeText("from bob", to: "shared")
        try alice.writeText("from alice", to: "shared")
        try alice.merge(source: bob)
        let values = try alice.bulkRead(keys: [ScopedKey(key: "k"), ScopedKey(key: "shared")])
        try alice.eraseVersionHistory()
        #expect(alice.store.queryHistory { $0.count } == 1)
        #expect(try alice.bulkRead(keys: [ScopedKey(key: "k"), ScopedKey(key: "shared")]) == values, "every current version, with its author and time")
        #expect(try alice.read(key: "gone").isEmpty, "tombstones are dropped")
        #expect(try alice.statistics.tombstoneCount == 0)
        try alice.writeText("three", to: "k")
        #expect(try alice.read(key: "k").text == "three")
        if let url = alice.fileURL {
            try alice.close()
            let reopened = try KeyValueDatabase(fileURL: url, author: .alice)
            #expect(reopened.store.queryHistory { $0.count } == 2, "the old versions are gone from disk")
            #expect(try reopened.read(key: "k").text == "three")
            #expect(try reopened.search(for: "three") == [ScopedKey(key: "k")])
        } else {
            // A peer holding the old history merges the new root without a conflict.
            try bob.merge(source: alice)
            #expect(try bob.read(key: "k").text == "three")
            #expect(try bob.read(key: "shared").count == 2)
            #expect(try bob.read(key: "gone").isDeleted, "a delete the peer keeps stays a delete")
            #expect(try alice.read(key: "gone").isEmpty, "until the erased database takes the peer's merge")
            // Once the merge goes back, both read the same everywhere: the peer's delete too.
            try alice.merge(source: bob)
            for key in ["k", "shared", "gone"] {
                #expect(try alice.read(key: key) == bob.read(key: key), "\(key)")
            }
            #expect(try alice.read(key: "gone").isDeleted)
            #expect(try alice.keys == bob.keys)
        }
    }

    /// After `close()` the instance refuses reads as it refuses writes, on disk and in memory.
    @Test(arguments: Location.allCases)
    func aClosedDatabaseRefusesReadsAndWrites(_ location: Location) throws {
        let databases = try Databases(location)
        let alice = try databases.make(.alice)
        try alice.writeText("hello", to: "greeting")
        try alice.close()
        #expect(throws: KeyValueDatabaseError.closed) { try alice.read(key: "greeting") }
        #expect(throws: KeyValueDatabaseError.closed) { try alice.keys }
        #expect(throws: KeyValueDatabaseError.closed) { try alice.bulkRead() }
        #expect(throws: KeyValueDatabaseError.closed) { try alice.bulkRead(keys: [ScopedKey(key: "greeting")]) }
        #expect(throws: KeyValueDatabaseError.closed) { try alice.search(for: "hello") }
        #expect(throws: KeyValueDatabaseError.closed) { try alice.history(key: "greeting") }
        #expect(throws: KeyValueDatabaseError.closed) { try alice.statistics }
        #expect(throws: KeyValueDatabaseError.closed) { try alice.writeText("late", to: "greeting") }
        #expect(throws: KeyValueDatabaseError.closed) { try alice.delete(key: "greeting") }
    }

    @Test func closingLeavesACompleteDatabaseFileAndRefusesWrites() throws {
        let directory = try TemporaryDirectory()
        let database = try KeyValueDatabase(fileURL: directory.file("db"), authorDescription: "Alice")
        for index in 0..<20 { try database.writeText("value \(index)", to: "k\(index)") }
        try database.close()
        #expect(throws: KeyValueDatabaseError.closed) { try database.writeText("late", to: "k") }
        // Only the SQLite file is copied: what a synced folder carries.
        let copyDirectory = directory.file("copy")
        try FileManager.default.createDirectory(at: copyDirectory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: directory.file("db").appendingPathComponent("llvs-store.sqlite"),
                                         to: copyDirectory.appendingPathComponent("llvs-store.sqlite"))
        let copy = try KeyValueDatabase(fileURL: copyDirectory, authorDescription: "Alice")
        #expect(try copy.keys.count == 20)
        #expect(try copy.read(key: "k19").text == "value 19")
        #expect(try copy.search(for: "value") .count == 20, "the index is rebuilt from the store")
    }

    @Test(arguments: Location.allCases)
    func observersSeeLocalWritesAndMerges(_ location: Location) async throws {
        let databases = try Databases(location)
        let alice = try databases.make(.alice), bob = try databases.make(.bob)
        try alice.writeText("old", to: "title", scope: "item")
        var updates = alice.updatedValues.makeAsyncIterator()
        var items = alice.readValues(scope: "item").makeAsyncIterator()
        var prefixed = alice.readValues(keyPrefix: "ti").makeAsyncIterator()
        #expect(try await items.next()?[ScopedKey(scope: "item", key: "title")]?.map(\.value) == [.text("old")], "the current values come first")
        #expect(try await prefixed.next()?.count == 1)

        try alice.writeText("new", to: "title", scope: "item")
        #expect(await updates.next() == .init(key: ScopedKey(scope: "item", key: "title"), versions: try alice.read(key: "title", scope: "item")))
        #expect(try await items.next()?[ScopedKey(scope: "item", key: "title")]?.map(\.value) == [.text("new")])
        #expect(try await prefixed.next()?[ScopedKey(scope: "item", key: "title")]?.map(\.value) == [.text("new")])

        try alice.writeText("elsewhere", to: "other")
        try bob.writeText("from bob", to: "tip", scope: "item")
        try alice.merge(source: bob)
        #expect(await updates.next()?.key == ScopedKey(key: "other"))
        #expect(await updates.next() == .init(key: ScopedKey(scope: "item", key: "tip"), versions: [try #require(try bob.read(key: "tip", scope: "item").first)]))
        let afterMerge = try await items.next()
        #expect(afterMerge?.keys.sorted() == [ScopedKey(scope: "item", key: "tip"), ScopedKey(scope: "item", key: "title")], "a merge fires the stream; the unrelated key did not")
        #expect(try await prefixed.next()?.count == 2)
    }
}
