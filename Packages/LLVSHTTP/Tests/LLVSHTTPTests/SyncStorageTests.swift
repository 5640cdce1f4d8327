import Foundation
import LLVSCore
import LLVSExchange
import LLVSSyncProtocol
import LLVSSyncStorage
import LLVSTesting
import Testing

/// Pushes of hand-made versions, for the storage tests.
func storedVersion(_ id: String, _ predecessors: [String] = [], timestamp: Double = 1, value: String = "x") throws -> StoredVersion {
    let predecessorValue: Version.Predecessors? = predecessors.isEmpty ? nil
        : Version.Predecessors(idOfFirst: Version.ID(predecessors[0]), idOfSecond: predecessors.count > 1 ? Version.ID(predecessors[1]) : nil)
    let version = Version(id: Version.ID(id), predecessors: predecessorValue, timestamp: timestamp)
    return try StoredVersion(VersionChangesMessage(version: version, valueChanges: [.update(Value(idString: "k", data: Data(value.utf8)))]))
}

/// Every server storage keeps the same contract: atomic pushes, sequences in commit order,
/// cursors, repeated pushes, snapshots.
@Suite("Server storage")
struct SyncStorageTests {
    @Test("Pushes are listed in order, once, and a cursor lists only what is new", arguments: StorageKind.available)
    func listing(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory(prefix: "llvs-storage")
        let storage = try await makeStorage(kind, in: directory)
        let store = uniqueStoreName()
        let empty = try await storage.listVersions(in: store, after: nil, limit: 10)
        #expect(empty.versionIds.isEmpty && empty.isCompleteListing && !empty.hasMore)

        let first = try await storage.push([storedVersion("a"), storedVersion("b", ["a"])], to: store)
        #expect(first.added == ["a", "b"])
        #expect(first.cursor.sequence == 2)
        let again = try await storage.push([storedVersion("b", ["a"]), storedVersion("c", ["b"])], to: store)
        #expect(again.added == ["c"] && again.alreadyPresentCount == 1)

        let all = try await storage.listVersions(in: store, after: nil, limit: 2)
        #expect(all.versionIds == ["a", "b"] && all.hasMore && all.isCompleteListing)
        let rest = try await storage.listVersions(in: store, after: all.cursor, limit: 2)
        #expect(rest.versionIds == ["c"] && !rest.hasMore && !rest.isCompleteListing)
        let none = try await storage.listVersions(in: store, after: rest.cursor, limit: 2)
        #expect(none.versionIds.isEmpty && none.cursor == rest.cursor)
        let foreign = try await storage.listVersions(in: store, after: SyncCursor(storeIdentity: "elsewhere", sequence: 2), limit: 10)
        #expect(foreign.versionIds == ["a", "b", "c"] && foreign.isCompleteListing)
        // A cursor of this store past its end (a store restored from an older copy of its
        // database): a complete listing from the start, never an empty page that keeps it.
        let pastTheEnd = SyncCursor(storeIdentity: rest.cursor.storeIdentity, sequence: 999)
        let restarted = try await storage.listVersions(in: store, after: pastTheEnd, limit: 10)
        #expect(restarted.versionIds == ["a", "b", "c"] && restarted.isCompleteListing && restarted.cursor == rest.cursor)
        #expect(try await storage.latestCursor(in: store) == rest.cursor)

        let records = try await storage.versionRecords(in: store, identifiedBy: ["c", "a", "missing"])
        let decoded = try records.map { try CanonicalJSON.decode(Version.self, from: $0).id }
        #expect(Set(decoded) == ["a", "c"])
        let changes = try await storage.valueChanges(in: store, identifiedBy: ["b"])
        #expect(changes.count == 1)
        #expect(try CanonicalJSON.decode([Value.Change].self, from: changes[0].1).count == 1)
    }

    @Test("A push with an unknown predecessor or a conflicting record stores nothing", arguments: StorageKind.available)
    func atomicRefusals(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory(prefix: "llvs-storage")
        let storage = try await makeStorage(kind, in: directory)
        let store = uniqueStoreName()
        _ = try await storage.push([storedVersion("a")], to: store)
        await #expect(throws: SyncStorageError.unknownPredecessors(["y": ["x"]])) {
            try await storage.push([storedVersion("b", ["a"]), storedVersion("y", ["x"])], to: store)
        }
        await #expect(throws: SyncStorageError.conflictingVersion("a")) {
            try await storage.push([storedVersion("c", ["a"]), storedVersion("a", timestamp: 2)], to: store)
        }
        let listing = try await storage.listVersions(in: store, after: nil, limit: 100)
        #expect(listing.versionIds == ["a"])
        #expect(try await storage.latestCursor(in: store).sequence == 1)
    }

    @Test("Concurrent pushes to one store get distinct sequences in commit order", arguments: StorageKind.available)
    func concurrentPushes(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory(prefix: "llvs-storage")
        let storage = try await makeStorage(kind, in: directory)
        let store = uniqueStoreName()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    for index in 0..<10 {
                        let id = "w\(writer)-\(index)"
                        _ = try await storage.push([storedVersion(id, index == 0 ? [] : ["w\(writer)-\(index - 1)"])], to: store)
                    }
                }
            }
            try await group.waitForAll()
        }
        let listing = try await storage.listVersions(in: store, after: nil, limit: 1_000)
        #expect(listing.versionIds.count == 80)
        #expect(Set(listing.versionIds).count == 80)
        #expect(listing.cursor.sequence == 80)
        for writer in 0..<8 {
            let own = listing.versionIds.filter { $0.rawValue.hasPrefix("w\(writer)-") }
            #expect(own == (0..<10).map { Version.ID("w\(writer)-\($0)") }, "a version must be listed after its predecessor")
        }
    }

    @Test("Snapshots: chunks, checked publication, the previous one kept and older ones removed", arguments: StorageKind.available)
    func snapshots(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory(prefix: "llvs-storage")
        let storage = try await makeStorage(kind, in: directory)
        let store = uniqueStoreName()
        #expect(try await storage.snapshotManifest(in: store) == nil)
        for (index, id) in ["s1", "s2", "s3"].enumerated() {
            let chunk = Data("chunk \(index)".utf8)
            try await storage.storeSnapshotChunk(chunk, index: 0, snapshotId: id, in: store)
            try await storage.publishSnapshot(SnapshotManifestFixture.manifest(id: id, chunk: chunk), in: store)
            let manifest = try CanonicalJSON.decode(SnapshotManifest.self, from: try #require(try await storage.snapshotManifest(in: store)))
            #expect(manifest.snapshotId == id)
        }
        #expect(try await storage.snapshotChunk(index: 0, snapshotId: "s3", in: store) == Data("chunk 2".utf8))
        #expect(try await storage.snapshotChunk(index: 0, snapshotId: "s2", in: store) != nil, "the previous snapshot is kept")
        #expect(try await storage.snapshotChunk(index: 0, snapshotId: "s1", in: store) == nil, "older snapshots are removed")
        await #expect(throws: SyncStorageError.self) {
            try await storage.publishSnapshot(SnapshotManifestFixture.manifest(id: "s4", chunk: Data("never uploaded".utf8)), in: store)
        }
    }
}
