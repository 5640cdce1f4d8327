import Foundation
import LLVSCoordinator
import LLVSCore
import LLVSExchange
import LLVSStore
import LLVSSupport
import LLVSTesting
import LLVSZones
import Testing

/// Snapshot uploads after exchanges, and bootstrapping a new replica from one.
@Suite struct CoordinatorSnapshotTests {
    /// Upload whenever at least one version was added (the `.auto` policy without its waits).
    static let eager = SnapshotPolicy(enabled: true, minimumInterval: 0, minimumNewVersions: 1)

    /// A replica that saved `count` versions and uploaded a snapshot of them.
    func replicaWithSnapshot(_ shared: URL, count: Int = 5) async throws -> SyncedReplica {
        let source = try SyncedReplica("source", sharedDirectory: shared, snapshotPolicy: Self.eager)
        for index in 0..<count { try source.post("message \(index)") }
        try source.post("kept", key: "OTHER")
        try await source.coordinator.exchange()
        #expect(source.coordinator.lastSnapshotError == nil)
        #expect(source.coordinator.lastSnapshotDate != nil)
        #expect(source.coordinator.versionCountAtLastSnapshot == count + 2)
        return source
    }

    func snapshotManifest(in shared: URL) throws -> SnapshotManifest {
        let data = try Data(contentsOf: shared.appendingPathComponent("snapshots/latest.json"))
        return try CanonicalJSON.decode(SnapshotManifest.self, from: data)
    }

    @Test func aFreshReplicaBootstrapsFromTheSnapshotThenSyncsIncrementally() async throws {
        let shared = try TemporaryDirectory(prefix: "llvs-coordinator-shared")
        let source = try await replicaWithSnapshot(shared.url)
        let manifest = try snapshotManifest(in: shared.url)
        #expect(manifest.latestVersionId == source.coordinator.currentVersion)

        // Later versions reach the directory without a new snapshot.
        try source.post("after the snapshot")
        try await source.exchange.send()
        #expect(try snapshotManifest(in: shared.url).snapshotId == manifest.snapshotId)

        let fresh = try SyncedReplica("fresh", sharedDirectory: shared.url)
        #expect(try await fresh.coordinator.bootstrapFromSnapshot())
        #expect(fresh.coordinator.currentVersion == manifest.latestVersionId)
        #expect(try fresh.text() == "message 4")
        #expect(try fresh.text("OTHER") == "kept")
        #expect(fresh.coordinator.lastSnapshotDate == manifest.createdAt)
        #expect(fresh.coordinator.store.queryHistory { $0.count } == manifest.versionCount)

        // Incremental sync brings what came after the snapshot.
        try await fresh.sync()
        #expect(try fresh.text() == "after the snapshot")
        #expect(versionIds(of: fresh.coordinator.store) == versionIds(of: source.coordinator.store))
        // A second bootstrap is a no-op: the store is no longer empty.
        #expect(try await !fresh.coordinator.bootstrapFromSnapshot())
    }

    @Test func theReferenceBootstrapSequenceWorksWithCompletionHandlers() async throws {
        let shared = try TemporaryDirectory(prefix: "llvs-coordinator-shared")
        let source = try await replicaWithSnapshot(shared.url)
        let fresh = try SyncedReplica("fresh", sharedDirectory: shared.url)
        let coordinator = fresh.coordinator
        let errors: [String] = await withCheckedContinuation { continuation in
            coordinator.bootstrapFromSnapshot { bootstrapError in
                coordinator.exchange { exchangeError in
                    coordinator.merge()
                    continuation.resume(returning: [bootstrapError, exchangeError].compactMap { $0.map { "\($0)" } })
                }
            }
        }
        #expect(errors.isEmpty)
        #expect(try fresh.text() == source.text())
        #expect(coordinator.currentVersion == source.coordinator.currentVersion)
    }

    @Test func bootstrapDoesNothingWithoutAnEmptyStoreASnapshotOrSnapshotSupport() async throws {
        let shared = try TemporaryDirectory(prefix: "llvs-coordinator-shared")
        // No snapshot in the directory yet.
        let early = try SyncedReplica("early", sharedDirectory: shared.url)
        #expect(try await !early.coordinator.bootstrapFromSnapshot())
        #expect(versionIds(of: early.coordinator.store) == [StoreCoordinator.emptyRootVersionID])

        _ = try await replicaWithSnapshot(shared.url)
        // A store that is not empty.
        let busy = try SyncedReplica("busy", sharedDirectory: shared.url)
        let own = try #require(try busy.post("local work"))
        #expect(try await !busy.coordinator.bootstrapFromSnapshot())
        #expect(versionIds(of: busy.coordinator.store) == [StoreCoordinator.emptyRootVersionID, own.id])
        #expect(try busy.text() == "local work")

        // No exchange, an exchange without snapshots, a storage without snapshots.
        let directories = try CoordinatorDirectories("plain")
        let plain = try directories.makeCoordinator()
        #expect(try await !plain.bootstrapFromSnapshot())
        plain.exchange = MemoryExchange(space: MemoryExchangeSpace(), store: plain.store)
        #expect(try await !plain.bootstrapFromSnapshot())
        let memoryDirectories = try CoordinatorDirectories("memory")
        let memory = try memoryDirectories.makeCoordinator(storage: MemoryStorage())
        memory.exchange = FileSystemExchange(rootDirectoryURL: shared.url, store: memory.store)
        #expect(try await !memory.bootstrapFromSnapshot())
        #expect(versionIds(of: memory.store) == [StoreCoordinator.emptyRootVersionID])
        #expect(memory.lastBootstrapSkipReason?.contains("cannot restore snapshots") == true)
    }

    /// A snapshot in a format the storage cannot restore is skipped quietly, with the
    /// reason recorded and logged, and a full sync then brings everything.
    @Test func aSnapshotOfAnotherFormatFallsBackToAFullSync() async throws {
        let shared = try TemporaryDirectory(prefix: "llvs-coordinator-shared")
        let source = try await replicaWithSnapshot(shared.url)
        var manifest = try snapshotManifest(in: shared.url)
        manifest.format = "some-future-archive-9"
        try CanonicalJSON.encode(manifest).write(to: shared.url.appendingPathComponent("snapshots/latest.json"))
        let fresh = try SyncedReplica("fresh", sharedDirectory: shared.url)
        let logged = Locked<[String]>([])
        fresh.coordinator.logHandler = { message in logged.withLock { $0.append(message) } }
        #expect(try await !fresh.coordinator.bootstrapFromSnapshot(), "no error: the bootstrap steps aside")
        #expect(fresh.coordinator.lastBootstrapSkipReason?.contains("some-future-archive-9") == true)
        #expect(logged.withLock { $0 }.count == 1 && logged.withLock { $0 }[0].contains("a full sync follows"))
        #expect(versionIds(of: fresh.coordinator.store) == [StoreCoordinator.emptyRootVersionID], "nothing was restored")
        try await fresh.sync()
        #expect(versionIds(of: fresh.coordinator.store) == versionIds(of: source.coordinator.store))
        #expect(try fresh.text("OTHER") == "kept")
    }

    /// A replica whose policy says an upload is due looks at the exchange's latest
    /// snapshot first: one another replica has just sent, of as many versions, is not sent
    /// again, and counts as this replica's last snapshot.
    @Test func aFreshSnapshotFromAnotherReplicaIsNotUploadedAgain() async throws {
        let shared = try TemporaryDirectory(prefix: "llvs-coordinator-shared")
        let everyTwo = SnapshotPolicy(enabled: true, minimumInterval: 0, minimumNewVersions: 2)
        let first = try SyncedReplica("first", sharedDirectory: shared.url, snapshotPolicy: everyTwo)
        for index in 0..<3 { try first.post("message \(index)") }
        try await first.coordinator.exchange()
        let uploaded = try snapshotManifest(in: shared.url)
        let second = try SyncedReplica("second", sharedDirectory: shared.url, snapshotPolicy: everyTwo)
        try await second.sync()
        #expect(second.coordinator.lastSnapshotError == nil)
        #expect(try snapshotManifest(in: shared.url).snapshotId == uploaded.snapshotId, "no second upload")
        #expect(second.coordinator.lastSnapshotDate == uploaded.createdAt)
        #expect(second.coordinator.versionCountAtLastSnapshot == uploaded.versionCount)
        // Once it has enough versions of its own beyond that snapshot, it uploads.
        try second.post("a")
        try second.post("b")
        try await second.coordinator.exchange()
        #expect(try snapshotManifest(in: shared.url).snapshotId != uploaded.snapshotId)
    }

    @Test func aCorruptChunkFailsTheBootstrapAndLeavesTheStoreEmpty() async throws {
        let shared = try TemporaryDirectory(prefix: "llvs-coordinator-shared")
        _ = try await replicaWithSnapshot(shared.url)
        let manifest = try snapshotManifest(in: shared.url)
        let chunk = shared.url.appendingPathComponent("snapshots/\(manifest.snapshotId)/chunk-000000")
        var bytes = try Data(contentsOf: chunk)
        bytes[bytes.startIndex] ^= 0xFF
        try bytes.write(to: chunk)

        let fresh = try SyncedReplica("fresh", sharedDirectory: shared.url)
        await #expect(throws: ExchangeError.corruptSnapshotChunk(snapshotId: manifest.snapshotId, index: 0)) {
            try await fresh.coordinator.bootstrapFromSnapshot()
        }
        #expect(versionIds(of: fresh.coordinator.store) == [StoreCoordinator.emptyRootVersionID])
        #expect(fresh.coordinator.currentVersion == StoreCoordinator.emptyRootVersionID)
        let staged = try FileManager.default.contentsOfDirectory(atPath: fresh.directories.cache.url.path)
        #expect(staged == ["coordinator.json"], "the staged chunks were removed")
        // A full sync still works.
        try await fresh.sync()
        #expect(try fresh.text() == "message 4")
    }

    @Test func aFailedSnapshotUploadDoesNotFailTheExchange() async throws {
        let shared = try TemporaryDirectory(prefix: "llvs-coordinator-shared")
        // A file where the snapshots directory should be.
        try Data("in the way".utf8).write(to: shared.url.appendingPathComponent("snapshots"))
        let source = try SyncedReplica("source", sharedDirectory: shared.url, snapshotPolicy: Self.eager)
        try source.post("hello")
        try await source.coordinator.exchange()
        #expect(source.coordinator.lastSnapshotError != nil)
        #expect(source.coordinator.lastSnapshotDate == nil)
        let other = try SyncedReplica("other", sharedDirectory: shared.url)
        try await other.sync()
        #expect(try other.text() == "hello", "the versions were exchanged")
    }

    @Test func thePolicyDecidesWhenToUpload() async throws {
        let shared = try TemporaryDirectory(prefix: "llvs-coordinator-shared")
        let everyThree = SnapshotPolicy(enabled: true, minimumInterval: 0, minimumNewVersions: 3)
        let source = try SyncedReplica("source", sharedDirectory: shared.url, snapshotPolicy: everyThree)
        try await source.coordinator.exchange()
        #expect(source.coordinator.lastSnapshotDate == nil, "an empty store is not uploaded")
        try source.post("1")
        try await source.coordinator.exchange()
        #expect(source.coordinator.lastSnapshotDate == nil, "2 versions: not yet")
        try source.post("2")
        try await source.coordinator.exchange()
        #expect(source.coordinator.versionCountAtLastSnapshot == 3)
        try source.post("3")
        try await source.coordinator.exchange()
        #expect(source.coordinator.versionCountAtLastSnapshot == 3, "one new version: not yet")

        // The bookkeeping survives a relaunch.
        let reopened = try source.directories.makeCoordinator(snapshotPolicy: everyThree)
        #expect(reopened.versionCountAtLastSnapshot == 3)
        #expect(reopened.lastSnapshotDate == source.coordinator.lastSnapshotDate)

        let disabled = try SyncedReplica("disabled", sharedDirectory: shared.url)
        try disabled.post("x")
        try await disabled.coordinator.exchange()
        #expect(disabled.coordinator.lastSnapshotDate == nil)
    }
}
