import Foundation
import LLVSCore
@testable import LLVSMap
import Testing

/// The decoded-node cache holds about its byte budget, counting each node's heap.
@Suite struct NodeCacheTests {
    /// A leaf of `count` entries with identifiers long enough to live on the heap.
    static func leaf(_ seed: Int, entries count: Int) -> MapNode {
        .leaf((0..<count).map { index in
            LeafEntry(Value.Reference(valueId: .init("value-\(seed)-\(index)-with-a-long-name"), storedVersionId: .init("version-\(seed)-long-enough")))
        })
    }

    @Test func theCacheStaysWithinItsByteBudgetAndKeepsRecentNodes() {
        let budget = 256 << 10
        var cache = NodeCache(byteLimit: budget)
        let nodeSize = Self.leaf(0, entries: 32).residentByteCount
        #expect(nodeSize > 32 * MemoryLayout<LeafEntry>.stride, "strings on the heap are counted: \(nodeSize)")
        for seed in 0..<2_000 {
            let node = Self.leaf(seed, entries: 32)
            cache.insert(node, for: Digest.of(Value.ID("\(seed)")))
            #expect(cache.residentByteCount <= budget + nodeSize)
        }
        #expect(cache.node(Digest.of(Value.ID("1999"))) != nil, "the newest node is kept")
        #expect(cache.node(Digest.of(Value.ID("0"))) == nil, "the oldest is gone")
    }

    @Test func aNodeLargerThanTheBudgetIsStillCachedAlone() {
        var cache = NodeCache(byteLimit: 1_024)
        cache.insert(Self.leaf(1, entries: 100), for: Digest.of(Value.ID("big")))
        #expect(cache.node(Digest.of(Value.ID("big"))) != nil)
        cache.insert(Self.leaf(2, entries: 100), for: Digest.of(Value.ID("next")))
        #expect(cache.residentByteCount < 3 * Self.leaf(1, entries: 100).residentByteCount)
    }

    /// A generation the cache drops is handed over by `takeDropped()` (once), so the
    /// sharded cache frees its nodes after letting the shard's lock go.
    @Test func aDroppedGenerationIsHandedOverOnce() {
        var cache = NodeCache(byteLimit: 8 << 10)
        #expect(cache.takeDropped().isEmpty)
        var seed = 0
        while cache.takeDropped().isEmpty, seed < 1_000 {
            cache.insert(Self.leaf(seed, entries: 8), for: Digest.of(Value.ID("\(seed)")))
            seed += 1
        }
        #expect(seed < 1_000, "no generation was ever dropped")
        #expect(cache.takeDropped().isEmpty, "handed over only once")
        let sharded = ShardedNodeCache(byteLimit: 64 << 10)
        for seed in 0..<2_000 { sharded.insert(Self.leaf(seed, entries: 8), for: Digest.of(Value.ID("\(seed)"))) }
        #expect(sharded.residentByteCount <= (64 << 10) + 16 * Self.leaf(0, entries: 8).residentByteCount)
        #expect(sharded.node(Digest.of(Value.ID("1999"))) != nil, "the newest node is kept")
    }
}
