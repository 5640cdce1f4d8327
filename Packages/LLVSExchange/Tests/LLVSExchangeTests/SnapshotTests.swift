import Foundation
import LLVSCore
import LLVSExchange
import LLVSExchangeTesting
import LLVSStore
import LLVSSupport
import LLVSTesting
import LLVSZones
import Testing

/// Snapshots through the file-system exchange: bootstrap, then incremental sync; damage.
@Suite struct SnapshotTests {
    /// A source store with `count` versions, sent and snapshotted into `shared`.
    func publishedSource(_ count: Int, shared: TemporaryDirectory, chunkSize: Int = 1_000,
                         backend: Backend = .file) async throws -> (Replica, SnapshotManifest) {
        let source = try Replica("source", backend: backend)
        for step in 0..<count { try source.save(["k\(step % 7)": String(repeating: "\(step)", count: 50)]) }
        let exchange = FileSystemExchange(rootDirectoryURL: shared.url, store: source.store)
        try await exchange.send()
        let manifest = try #require(try await exchange.sendSnapshot(chunkSize: chunkSize))
        return (source, manifest)
    }

    @Test func sendingASnapshotReportsProgressChunkByChunk() async throws {
        let shared = try makeSharedDirectory()
        let source = try Replica("source", backend: .file)
        for step in 0..<20 { try source.save(["k\(step % 5)": String(repeating: "\(step)", count: 60)]) }
        let reports = Locked([ExchangeProgress]())
        let manifest = try #require(try await FileSystemExchange(rootDirectoryURL: shared.url, store: source.store)
            .sendSnapshot(chunkSize: 500) { report in reports.withLock { $0.append(report) } })
        let seen = reports.withLock { $0 }
        #expect(seen.count == manifest.chunkCount + 2, "a first report, one per chunk, and the last")
        #expect(seen.map(\.completedByteCount) == seen.map(\.completedByteCount).sorted(), "bytes only grow")
        #expect(seen.allSatisfy { $0.direction == .send && $0.totalByteCount == manifest.totalSize })
        #expect(seen.last?.completedByteCount == manifest.totalSize)
        #expect(seen.last?.completedVersionCount == 20)
    }

    @Test(arguments: [Backend.file, .sqlite])
    func aNewReplicaBootstrapsFromTheSnapshotThenSyncsIncrementally(backend: Backend) async throws {
        let shared = try makeSharedDirectory()
        let (source, manifest) = try await publishedSource(40, shared: shared, backend: backend)
        #expect(manifest.versionCount == 40)
        #expect(manifest.chunkCount > 3, "the archive is cut into several chunks")

        let fresh = try Replica("fresh", backend: backend)
        let exchange = FaultyExchange(FileSystemExchange(rootDirectoryURL: shared.url, store: fresh.store))
        let reports = Locked([ExchangeProgress]())
        let restored = try await (exchange.inner as? FileSystemExchange)?.restoreSnapshot { report in reports.withLock { $0.append(report) } }
        #expect(restored == manifest)
        #expect(fresh.versionIds == source.versionIds)
        #expect(try fresh.texts() == source.texts())
        #expect(reports.withLock { $0.last?.completedByteCount } == manifest.totalSize)

        // Later versions arrive by the normal exchange; what the snapshot brought is skipped.
        try source.save(["k0": "after the snapshot"])
        try await FileSystemExchange(rootDirectoryURL: shared.url, store: source.store).send()
        let added = try await exchange.retrieve()
        #expect(added.count == 1)
        #expect(try fresh.texts()["k0"] == "after the snapshot")
        // The restored store reopens with everything.
        #expect(try Store(rootDirectoryURL: fresh.directory.url, storage: backend.makeStorage()).queryHistory { $0.count } == 41)
    }

    @Test func aCorruptChunkIsDetectedAndTheStoreIsLeftUntouched() async throws {
        let shared = try makeSharedDirectory()
        let (_, manifest) = try await publishedSource(20, shared: shared)
        let chunk = shared.url.appendingPathComponent("snapshots/\(manifest.snapshotId)/chunk-000002")
        var bytes = try Data(contentsOf: chunk)
        bytes[bytes.count / 2] ^= 0x01
        try bytes.write(to: chunk)

        let fresh = try Replica("fresh")
        try fresh.save(["local": "kept"])
        let before = fileListing(fresh.directory.url)
        await #expect(throws: ExchangeError.corruptSnapshotChunk(snapshotId: manifest.snapshotId, index: 2)) {
            try await FileSystemExchange(rootDirectoryURL: shared.url, store: fresh.store).restoreSnapshot()
        }
        #expect(fileListing(fresh.directory.url) == before)
        #expect(fresh.versionIds.count == 1)

        try FileManager.default.removeItem(at: chunk)
        await #expect(throws: ExchangeError.corruptSnapshotChunk(snapshotId: manifest.snapshotId, index: 2)) {
            try await FileSystemExchange(rootDirectoryURL: shared.url, store: fresh.store).restoreSnapshot()
        }
    }

    @Test func aMalformedManifestIsRejectedWithItsPath() async throws {
        let shared = try makeSharedDirectory()
        _ = try await publishedSource(5, shared: shared)
        let url = shared.url.appendingPathComponent("snapshots/latest.json")
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        object["snapshotId"] = "../../versions"
        try JSONSerialization.data(withJSONObject: object).write(to: url)
        let fresh = try Replica("fresh")
        await #expect(throws: ExchangeError.invalidSnapshotManifest(location: url.path, reason: "snapshot id \"../../versions\" is not path-safe")) {
            try await FileSystemExchange(rootDirectoryURL: shared.url, store: fresh.store).restoreSnapshot()
        }
        try Data("not json".utf8).write(to: url)
        await #expect(throws: ExchangeError.self) {
            try await FileSystemExchange(rootDirectoryURL: shared.url, store: fresh.store).restoreSnapshot()
        }
        #expect(fresh.versionIds.isEmpty)
    }

    @Test func noSnapshotMeansNothingToRestore() async throws {
        let shared = try makeSharedDirectory()
        let fresh = try Replica("fresh")
        #expect(try await FileSystemExchange(rootDirectoryURL: shared.url, store: fresh.store).restoreSnapshot() == nil)
    }

    @Test func aStoreWithoutSnapshotSupportIsRefusedClearly() async throws {
        let shared = try makeSharedDirectory()
        _ = try await publishedSource(3, shared: shared)
        let directory = try TemporaryDirectory()
        let memoryStore = try Store(rootDirectoryURL: directory.url, storage: MemoryStorage())
        await #expect(throws: ExchangeError.snapshotNotRestorable(reason: "the store's storage MemoryStorage is not SnapshotCapable")) {
            try await FileSystemExchange(rootDirectoryURL: shared.url, store: memoryStore).restoreSnapshot()
        }
        await #expect(throws: StoreError.snapshotsUnsupported(storage: "MemoryStorage")) {
            try await FileSystemExchange(rootDirectoryURL: shared.url, store: memoryStore).sendSnapshot()
        }
    }

    @Test func aNewerSnapshotReplacesTheOldOneAndKeepsOnlyThePrevious() async throws {
        let shared = try makeSharedDirectory()
        let (source, first) = try await publishedSource(5, shared: shared)
        let exchange = FileSystemExchange(rootDirectoryURL: shared.url, store: source.store)
        try source.save(["more": "1"])
        let second = try #require(try await exchange.sendSnapshot())
        try source.save(["more": "2"])
        let third = try #require(try await exchange.sendSnapshot())
        #expect(try await exchange.retrieveSnapshotManifest() == third)
        let kept = Set(try FileManager.default.contentsOfDirectory(atPath: shared.url.appendingPathComponent("snapshots").path))
        #expect(kept == ["latest.json", second.snapshotId, third.snapshotId])
        #expect(!kept.contains(first.snapshotId))
    }
}
