import Foundation
import Testing
import LLVSCore
import LLVSSQLite
import LLVSStoreTesting
import LLVSTesting
import LLVSZones
@testable import LLVSStore

/// A snapshot archive whose bytes are sound (every checksum right) can still hold version
/// records a store cannot take: one that does not decode, one naming a predecessor nowhere
/// to be found, one giving a stored version another record. Restored as they are, the first
/// would leave a log the store can no longer open. `Store.restoreSnapshot` refuses each
/// before anything is written, on every backend that has snapshots, and the store opens and
/// reads as before.
@Suite struct StoreSnapshotRecordTests {
    static let backends: [StoreReplica.Backend] = [.file, .sqlite]

    /// An archive written by `backend`'s storage of a log holding `records` as they are
    /// (appended straight to the version log, past the store's checks).
    static func archive(of records: [Data], backend: StoreReplica.Backend) throws -> Data {
        let directory = try TemporaryDirectory()
        let storage = try #require(backend.makeStorage() as? any SnapshotCapable)
        let zones = try storage.makeZones(rootDirectoryURL: directory.url)
        try zones.versions.append(records)
        try zones.close?()
        var archive = Data()
        _ = try storage.writeSnapshot(ofStoreAt: directory.url) { archive.append($0) }
        return archive
    }

    /// The archive in one piece, then the end.
    static func source(_ archive: Data) -> () -> Data? {
        var pieces = [archive].makeIterator()
        return { pieces.next() }
    }

    static func record(_ id: Version.ID, after predecessor: Version.ID? = nil, timestamp: Double = 1_000) -> Data {
        VersionRecord(version: Version(id: id, predecessors: predecessor.map { .init(idOfFirst: $0) }, timestamp: timestamp), root: nil).encoded()
    }

    @Test(arguments: backends)
    func recordsThatCannotJoinTheStoreAreRefusedAndTheStoreStaysAsItWas(backend: StoreReplica.Backend) throws {
        let directory = try TemporaryDirectory()
        let store = try Store(rootDirectoryURL: directory.url, storage: backend.makeStorage())
        let mine = try store.makeVersion(basedOnPredecessor: nil, inserting: [value("k", "mine")])
        let held = try #require(store.version(identifiedBy: mine.id))
        let hostile: [(String, [Data], (StoreError) -> Bool)] = [
            ("a record that does not decode", [Self.record("fine"), Data([1, 2, 3])],
             { if case .corruptVersionRecord = $0 { true } else { false } }),
            ("a predecessor nowhere", [Self.record("orphan", after: "missing")],
             { $0 == .unknownPredecessor("missing", of: "orphan") }),
            ("another record for a stored version", [Self.record(mine.id, timestamp: held.timestamp + 1)],
             { $0 == .conflictingVersion(mine.id) }),
            ("two records for one identifier", [Self.record("twice"), Self.record("twice", timestamp: 5)],
             { $0 == .conflictingVersion("twice") }),
        ]
        for (name, records, expected) in hostile {
            let archive = try Self.archive(of: records, backend: backend)
            let error = try #require(throws: StoreError.self, "\(name)") {
                try store.restoreSnapshot(from: Self.source(archive))
            }
            #expect(expected(error), "\(name): \(error)")
            let reopened = try Store(rootDirectoryURL: directory.url, storage: backend.makeStorage())
            #expect(reopened.queryHistory { $0.allVersionIdentifiers } == [mine.id], "\(name)")
            #expect(try reopened.value(idString: "k", at: mine.id)?.data == Data("mine".utf8))
            try reopened.close()
        }
        // Sound records join: one building on the store's version, one the store holds already.
        let archive = try Self.archive(of: [Self.record("next", after: mine.id), VersionRecord(version: held, root: try store.root(of: mine.id)).encoded()],
                                       backend: backend)
        try store.restoreSnapshot(from: Self.source(archive))
        #expect(Set(store.queryHistory { $0.allVersionIdentifiers }) == [mine.id, "next"])
    }
}
