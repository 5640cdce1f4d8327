import Foundation
import LLVSKeyValue
import Testing

/// The multi-value register as databases see it: what survives a merge, what supersedes
/// what, and that it holds for any merge order.
@Suite struct MergeSemanticsTests {
    @Test func aWriteBySomeoneWhoSawTheConflictSupersedesIt() throws {
        let alice = try KeyValueDatabase(fileURL: nil, author: .alice)
        let bob = try KeyValueDatabase(fileURL: nil, author: .bob)
        try alice.writeText("A", to: "k")
        try bob.writeText("B", to: "k")
        try alice.merge(source: bob)
        #expect(try alice.read(key: "k").count == 2)
        try alice.writeText("resolved", to: "k")
        #expect(try alice.read(key: "k").text == "resolved")
        try bob.merge(source: alice)
        #expect(try bob.read(key: "k").text == "resolved", "Bob's value was seen and superseded")
        #expect(try bob.read(key: "k").first?.authorID == Author.alice.id)
    }

    @Test func aDeleteIsKeptBesideAConcurrentWriteAndWinsOverWhatItSaw() throws {
        let alice = try KeyValueDatabase(fileURL: nil, author: .alice)
        let bob = try KeyValueDatabase(fileURL: nil, author: .bob)
        try alice.writeText("base", to: "k")
        try alice.writeText("other", to: "gone")
        try bob.merge(source: alice)
        try alice.delete(key: "k")
        try bob.writeText("edited", to: "k")
        try bob.delete(key: "gone")
        try alice.merge(source: bob)
        try bob.merge(source: alice)
        for database in [alice, bob] {
            let versions = try database.read(key: "k")
            #expect(Set(versions.map(\.value)) == [.null, .text("edited")], "the delete is one of the key's versions")
            #expect(throws: KeyValueDatabaseError.versionConflict(count: 2)) { try versions.text }
            #expect(Set(versions.map(\.authorID)) == [Author.alice.id, Author.bob.id])
            #expect(try database.read(key: "gone").isDeleted)
            #expect(try database.keys() == [ScopedKey(key: "k")], "a key with a live value is listed")
            let statistics = try database.statistics
            #expect(statistics.entryCount == 3 && statistics.tombstoneCount == 2)
        }
    }

    @Test func oneAuthorOnTwoDatabasesStillKeepsBothConcurrentWrites() throws {
        let phone = try KeyValueDatabase(fileURL: nil, author: .alice)
        let laptop = try KeyValueDatabase(fileURL: nil, author: .alice)
        try phone.writeText("from the phone", to: "k")
        try laptop.writeText("from the laptop", to: "k")
        try phone.merge(source: laptop)
        #expect(Set(try phone.read(key: "k").compactMap(\.value.text)) == ["from the phone", "from the laptop"])
    }

    @Test func aCrissCrossHistoryDoesNotResurrectSupersededValues() throws {
        let alice = try KeyValueDatabase(fileURL: nil, author: .alice)
        let bob = try KeyValueDatabase(fileURL: nil, author: .bob)
        try alice.writeText("A", to: "k")
        try bob.writeText("B", to: "k")
        // Each merges the other: two different merge versions of the same two writes.
        let bobBefore = try KeyValueDatabase(fileURL: nil, author: .bob)
        try bobBefore.merge(source: bob)
        try bob.merge(source: alice)
        try alice.merge(source: bobBefore)
        try alice.writeText("after", to: "k")
        try bob.writeText("bob again", to: "other")
        try bob.merge(source: alice)
        try alice.merge(source: bob)
        for database in [alice, bob] {
            #expect(try database.read(key: "k").text == "after")
            #expect(try database.read(key: "other").text == "bob again")
        }
        #expect(alice.currentVersionId == bob.currentVersionId, "the same merges make the same version")
    }

    @Test func mergingIsIdempotentAndOneWay() throws {
        let alice = try KeyValueDatabase(fileURL: nil, author: .alice)
        let bob = try KeyValueDatabase(fileURL: nil, author: .bob)
        try alice.writeText("A", to: "k")
        try bob.writeText("B", to: "k")
        try alice.merge(source: bob)
        let afterFirst = alice.currentVersionId
        try alice.merge(source: bob)
        try alice.merge(source: alice)
        #expect(alice.currentVersionId == afterFirst)
        #expect(try bob.read(key: "k").text == "B")
        let empty = try KeyValueDatabase(fileURL: nil, author: .bob)
        try alice.merge(source: empty)
        #expect(alice.currentVersionId == afterFirst, "merging an empty database changes nothing")
        try empty.merge(source: alice)
        #expect(empty.currentVersionId == afterFirst, "an empty database takes the source's version")
    }

    @Test func concurrentWritersOnOneInstanceLoseNothing() async throws {
        let database = try KeyValueDatabase(fileURL: nil, author: .alice)
        await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<25 { try database.writeText("\(task)-\(index)", to: "t\(task)-\(index)") }
                }
            }
        }
        #expect(try database.keys().count == 200)
        #expect(database.store.queryHistory { $0.headIdentifiers.count } == 1, "every write was based on the one before")
    }
}
