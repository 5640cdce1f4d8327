import Foundation
import LLVSCore
import LLVSStoreTesting
@testable import LLVSStore
@testable import LLVSZones
import LLVSSupport
import Testing

/// `Store.addVersions`: many versions made elsewhere added at once, as an exchange's
/// retrieve adds them, with one durable write for the batch on the file backend.
@Suite(.serialized) struct StoreBatchTests {
    /// A history with branches, a merge (whose changes preserve data of both sides) and a
    /// removal, and each version's changes as a sender ships them.
    static func shippedHistory() throws -> (source: TestStore, shipped: [(version: Version, changes: [Value.Change])]) {
        let source = try TestStore(.memory)
        let store = source.store
        let v1 = try store.makeVersion(basedOnPredecessor: nil, inserting: (0..<20).map { value("k\($0)", "1") })
        let left = try store.makeVersion(basedOnPredecessor: v1.id, updating: [value("k1", "L")], removing: ["k2"])
        let right = try store.makeVersion(basedOnPredecessor: v1.id, inserting: [value("r", "R")], updating: [value("k3", "R")])
        let merged = try store.merge(version: left.id, with: right.id, resolvingWith: MostRecentBranchFavoringArbiter())
        let after = try store.makeVersion(basedOnPredecessor: merged.id, updating: [value("k4", "A")])
        let shipped = try [v1, left, right, merged, after].map { version in
            var shippedVersion = try #require(store.version(identifiedBy: version.id))
            shippedVersion.successors = .init()
            return (shippedVersion, try store.valueChanges(madeInVersionIdentifiedBy: version.id))
        }
        return (source, shipped)
    }

    @Test(arguments: Backend.allCases)
    func aBatchAddsWhatOneByOneAdds(_ backend: Backend) throws {
        let (source, shipped) = try Self.shippedHistory()
        let target = try TestStore(backend)
        #expect(try target.store.addVersions(shipped) == Array(repeating: true, count: shipped.count))
        #expect(try target.store.addVersions(shipped) == Array(repeating: false, count: shipped.count), "a second time adds nothing")
        let head = try #require(shipped.last?.version.id)
        for reopened in [target.store, try target.reopened()] {
            #expect(reopened.queryHistory { $0.count } == shipped.count)
            for id in (0..<20).map({ "k\($0)" }) + ["r"] {
                #expect(try reopened.text(id, at: head) == source.store.text(id, at: head), "\(id)")
            }
        }
    }

    /// A batch that fails midway leaves no version of it on the file backend, in memory or
    /// on disk, and the store goes on working.
    @Test func aFailedFileBatchLeavesNoneOfItsVersions() throws {
        let (_, shipped) = try Self.shippedHistory()
        let target = try TestStore(.file)
        var broken = shipped
        broken[3].version = Version(id: "orphan", predecessors: .init(idOfFirst: "nowhere"), timestamp: 1)
        #expect(throws: StoreError.self) { try target.store.addVersions(broken) }
        #expect(target.store.queryHistory { $0.count } == 0)
        #expect(try target.reopened().queryHistory { $0.count } == 0)
        #expect(try target.store.addVersions(shipped).allSatisfy { $0 })
        #expect(try target.reopened().queryHistory { $0.count } == shipped.count)
    }
}

/// The test that counts syncs sets the process-wide sync hook, as the power-loss tests do:
/// it belongs to their serialized suite, so that the two never set the hook at once.
extension FilePowerLossTests {
    /// On the file backend, a batch of versions costs one sync, not one per version: its
    /// packs go ahead without waiting, then one commit record of every record.
    @Test func aFileBatchSyncsItsPackSegmentOnce() throws {
        let (_, shipped) = try StoreBatchTests.shippedHistory()
        let target = try TestStore(.file)
        // A first version creates and preallocates the segments, so that only the batch's
        // own syncs are counted below.
        _ = try target.store.makeVersion(basedOnPredecessor: nil, inserting: [value("x", "x")])
        let syncs = Locked(0)
        // Only this store's syncs: other tests run meanwhile, and the hook sees every sync.
        let root = target.directory.url.resolvingSymlinksInPath().path
        POSIXFile.syncObserver.withLock { observer in
            observer = { _, path in
                guard let path, URL(fileURLWithPath: path).resolvingSymlinksInPath().path.hasPrefix(root) else { return }
                syncs.withLock { $0 += 1 }
            }
        }
        defer { POSIXFile.syncObserver.withLock { $0 = nil } }
        try target.store.addVersions(shipped)
        POSIXFile.syncObserver.withLock { $0 = nil }
        #expect(syncs.withLock { $0 } == 1, "the pack segment, once for \(shipped.count) versions")
        #expect(try target.reopened().queryHistory { $0.count } == shipped.count + 1)
    }
}
