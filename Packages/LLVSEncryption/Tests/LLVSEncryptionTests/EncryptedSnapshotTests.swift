import Foundation
import LLVSCore
import LLVSEncryption
import LLVSEncryptionTesting
import LLVSExchange
import LLVSStore
import LLVSTesting
import Testing

/// Sealed snapshots: a store restored from one holds what the sender held, every chunk has
/// one size, nothing is in the clear, and a chunk or manifest changed on the other side is
/// refused before anything is restored.
@Suite struct EncryptedSnapshotTests {
    let root: TemporaryDirectory

    init() throws {
        root = try TemporaryDirectory(prefix: "llvs-sealed-snapshot")
    }

    func makeStore() throws -> Store {
        try Store(rootDirectoryURL: root.url.appendingPathComponent("store-\(UUID().uuidString)"))
    }

    static func versionIds(_ store: Store) -> Set<Version.ID> { store.queryHistory { Set($0.allVersionIdentifiers) } }

    /// A sender with the leak corpus and a sealed snapshot of it in `blobs`.
    func sealedSnapshot(keys: EncryptionKeys) throws -> (Store, [Version], MemoryBlobTransport) {
        let sender = try makeStore()
        let versions = try LeakCheck.makeCorpus(in: sender)
        return (sender, versions, MemoryBlobTransport())
    }

    @Test func aSealedSnapshotRestoresTheStoreInChunksOfOneSize() async throws {
        let keys = EncryptionKeys(storeKey: StoreEncryptionKey())
        let (sender, versions, blobs) = try sealedSnapshot(keys: keys)
        let exchange = EncryptedExchange(blobs: blobs, store: sender, keys: keys)
        try await exchange.send()
        let manifest = try #require(try await exchange.sendSnapshot(chunkSize: 4_096))
        #expect(manifest.chunkCount > 2)
        let chunks = blobs.names.filter { $0.hasPrefix("snapshot-") && $0.utf8.count > 25 }
        #expect(chunks.count == manifest.chunkCount)
        let sizes: Set<Int> = Set(chunks.compactMap { (name: String) -> Int? in blobs[name]?.count })
        #expect(sizes.count == 1, "every chunk has one size")

        let needles = try LeakCheck.needles(of: versions, in: sender)
        let everything = blobs.names.compactMap { blobs[$0] }.reduce(Data(), +)
        let hits = LeakCheck.hits(of: needles, in: everything, location: "the blobs")
        #expect(hits.isEmpty, "\(hits.count) leaks, first \(hits.prefix(5))")

        let receiver = try makeStore()
        let restoring = EncryptedExchange(blobs: blobs, store: receiver, keys: keys)
        let restored = try #require(try await restoring.restoreSnapshot())
        #expect(restored.snapshotId == manifest.snapshotId)
        #expect(Self.versionIds(receiver) == Self.versionIds(sender))
        #expect(try await restoring.retrieve().isEmpty, "the versions in the snapshot are not fetched again")
        let head = try #require(sender.mostRecentHead?.id)
        #expect(try receiver.valueReferences(at: head).map(\.valueId).sorted() == sender.valueReferences(at: head).map(\.valueId).sorted())

        // Another store's keys open nothing.
        let stranger = EncryptedExchange(blobs: blobs, store: try makeStore(), keys: EncryptionKeys(storeKey: StoreEncryptionKey()))
        await #expect(throws: EncryptionError.self, "another store's keys open no part") {
            try await stranger.retrieveSnapshotManifest()
        }
    }

    /// Through carriers in a shared directory (both formats) a sealed snapshot restores a new
    /// store, the directory holds nothing of the corpus in the clear, and the receiver then
    /// fetches no version again.
    @Test(arguments: FileSystemExchange.DirectoryFormat.allCases)
    func aSealedSnapshotRestoresThroughASharedDirectory(format: FileSystemExchange.DirectoryFormat) async throws {
        let keys = EncryptionKeys(storeKey: StoreEncryptionKey())
        let sender = try makeStore()
        let versions = try LeakCheck.makeCorpus(in: sender)
        let shared = root.url.appendingPathComponent("shared-\(format)")
        let exchange = EncryptedExchange(sealing: FileSystemExchange(rootDirectoryURL: shared, store: sender, newDirectoryFormat: format), keys: keys)
        try await exchange.send()
        let manifest = try #require(try await exchange.sendSnapshot(chunkSize: 4_096))
        #expect(manifest.chunkCount > 2)
        let hits = try LeakCheck.hits(of: try LeakCheck.needles(of: versions, in: sender), under: shared)
        #expect(hits.isEmpty, "\(hits.count) leaks, first \(hits.prefix(5))")

        let receiver = try makeStore()
        let restoring = EncryptedExchange(sealing: FileSystemExchange(rootDirectoryURL: shared, store: receiver), keys: keys)
        #expect(try await restoring.restoreSnapshot()?.snapshotId == manifest.snapshotId)
        #expect(Self.versionIds(receiver) == Self.versionIds(sender))
        #expect(try await restoring.retrieve().isEmpty, "the versions in the snapshot are not fetched again")
    }

    enum Tampering: String, CaseIterable, Sendable {
        case flippedBit, swappedChunks, cutChunk, manifestOfAnotherSnapshot
    }

    @Test(arguments: Tampering.allCases)
    func aChangedSnapshotIsRefusedAndNothingIsRestored(_ tampering: Tampering) async throws {
        let keys = EncryptionKeys(storeKey: StoreEncryptionKey())
        let (sender, _, blobs) = try sealedSnapshot(keys: keys)
        let exchange = EncryptedExchange(blobs: blobs, store: sender, keys: keys)
        let first = try #require(try await exchange.sendSnapshot(chunkSize: 4_096))
        let chunks = blobs.names.filter { $0.hasPrefix("snapshot-") && $0.utf8.count > 25 }
        switch tampering {
        case .flippedBit:
            var blob = try #require(blobs[chunks[1]])
            blob[blob.count / 2] ^= 0x10
            blobs[chunks[1]] = blob
        case .swappedChunks:
            (blobs[chunks[0]], blobs[chunks[1]]) = (blobs[chunks[1]], blobs[chunks[0]])
        case .cutChunk:
            blobs[chunks[2]] = blobs[chunks[2]]?.dropLast(1)
        case .manifestOfAnotherSnapshot:
            try sender.makeVersion(basedOnPredecessor: sender.mostRecentHead?.id, inserting: [Value(idString: "later", data: Data("x".utf8))])
            let second = try #require(try await exchange.sendSnapshot(chunkSize: 4_096))
            let manifests = blobs.names.filter { $0.hasPrefix("snapshot-") && $0.utf8.count == 25 }
            #expect(manifests.count == 2 && first.snapshotId != second.snapshotId)
            blobs[manifests[1]] = blobs[manifests[0]]
        }
        let receiver = try makeStore()
        await #expect(throws: EncryptionError.self) {
            try await EncryptedExchange(blobs: blobs, store: receiver, keys: keys).restoreSnapshot()
        }
        #expect(Self.versionIds(receiver).isEmpty)
    }
}

/// Blobs in memory, in the order put, that a test can change in place.
final class MemoryBlobTransport: SealedBlobTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var order: [String] = []
    private var stored: [String: Data] = [:]

    var maximumBatchByteCount: Int { 1 << 20 }
    var newBlobsAvailable: AsyncStream<Void> { AsyncStream { $0.finish() } }

    var names: [String] { lock.withLock { order } }

    subscript(name: String) -> Data? {
        get { lock.withLock { stored[name] } }
        set { lock.withLock { stored[name] = newValue } }
    }

    func listBlobs(after cursor: ExchangeCursor?) async throws -> SealedBlobPage {
        lock.withLock {
            let start = min(cursor.flatMap { Int(String(decoding: $0.rawValue, as: UTF8.self)) } ?? 0, order.count)
            let names = Array(order[start...])
            return SealedBlobPage(names: names, sizes: Dictionary(uniqueKeysWithValues: names.map { ($0, Int64(stored[$0]?.count ?? 0)) }),
                                  cursor: ExchangeCursor(rawValue: Data("\(order.count)".utf8)), isCompleteListing: start == 0)
        }
    }

    func blobSizes(named names: [String]) async throws -> [String: Int64] { [:] }

    func blobs(named names: [String]) async throws -> [String: Data] {
        lock.withLock { Dictionary(uniqueKeysWithValues: names.compactMap { name in stored[name].map { (name, $0) } }) }
    }

    func put(_ blobs: [(name: String, data: Data)], writeToken: Data?) async throws -> [String] {
        lock.withLock {
            var differing: [String] = []
            for (name, data) in blobs {
                if let held = stored[name] {
                    if held != data { differing.append(name) }
                } else {
                    stored[name] = data
                    order.append(name)
                }
            }
            return differing
        }
    }
}
