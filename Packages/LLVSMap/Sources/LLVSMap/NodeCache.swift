import LLVSCore
import LLVSSupport

/// Decoded nodes by hash, bounded by the heap they occupy: when the current generation
/// outgrows half the byte limit it becomes the previous one (the older one is dropped);
/// hits in the previous generation move back to the current one. An approximate LRU with
/// O(1) operations (plus the size of a node, counted once when it is inserted). The
/// generation dropped is kept for ``takeDropped()``, so that the caller frees its nodes
/// after letting go of the cache's lock (freeing thousands of nodes takes milliseconds).
struct NodeCache: Sendable {
    let byteLimit: Int
    private var current: [Digest: MapNode] = [:]
    private var previous: [Digest: MapNode] = [:]
    private var dropped: [Digest: MapNode] = [:]
    private var currentBytes = 0
    private var previousBytes = 0

    init(byteLimit: Int) {
        self.byteLimit = max(1, byteLimit)
    }

    /// The bytes of heap both generations hold, as ``MapNode/residentByteCount`` counts them.
    var residentByteCount: Int { currentBytes + previousBytes }

    mutating func node(_ hash: Digest) -> MapNode? {
        if let node = current[hash] { return node }
        guard let node = previous.removeValue(forKey: hash) else { return nil }
        previousBytes -= node.residentByteCount
        insert(node, for: hash)
        return node
    }

    mutating func insert(_ node: MapNode, for hash: Digest) {
        let size = node.residentByteCount
        if currentBytes + size > byteLimit / 2, !current.isEmpty {
            swap(&dropped, &previous)
            previous = current
            previousBytes = currentBytes
            current = [:]
            currentBytes = 0
        }
        if let replaced = current.updateValue(node, forKey: hash) { currentBytes -= replaced.residentByteCount }
        currentBytes += size
    }

    /// The generation the last inserts dropped, no longer held by the cache.
    mutating func takeDropped() -> [Digest: MapNode] {
        var taken: [Digest: MapNode] = [:]
        swap(&taken, &dropped)
        return taken
    }
}

/// The decoded-node cache of a ``Map``, split by node hash into shards of its own lock each,
/// so that a writer building a version and readers rarely wait for one another. Each shard
/// holds about an equal part of the budget.
final class ShardedNodeCache: Sendable {
    /// How many shards (the first hex digit of a node's hash picks its shard).
    static let shardCount = 16
    private let shards: [Locked<NodeCache>]

    /// A cache of about `byteLimit` bytes of decoded nodes in all.
    init(byteLimit: Int) {
        shards = (0..<Self.shardCount).map { _ in Locked(NodeCache(byteLimit: max(1, byteLimit / Self.shardCount))) }
    }

    /// The heap every shard holds, as ``NodeCache/residentByteCount`` counts it.
    var residentByteCount: Int { shards.reduce(0) { $0 + $1.withLock { $0.residentByteCount } } }

    /// The cached node with `hash`, if any.
    func node(_ hash: Digest) -> MapNode? {
        let (node, dropped) = shards[hash.nibble(at: 0)].withLock { cache in (cache.node(hash), cache.takeDropped()) }
        _ = consume dropped
        return node
    }

    /// Caches `node` under `hash`.
    func insert(_ node: MapNode, for hash: Digest) {
        let dropped = shards[hash.nibble(at: 0)].withLock { cache in
            cache.insert(node, for: hash)
            return cache.takeDropped()
        }
        _ = consume dropped
    }
}

extension MapNode {
    /// An estimate of the heap a decoded node occupies: its array, each entry or child, the
    /// identifier strings too long to be stored inline, and its place in a cache.
    var residentByteCount: Int {
        switch self {
        case .leaf(let entries):
            return 96 + entries.reduce(entries.count * MemoryLayout<LeafEntry>.stride) {
                $0 + $1.reference.valueId.storage.heapByteCount + $1.reference.storedVersionId.storage.heapByteCount
            }
        case .interior(_, let children):
            return 96 + children.reduce(children.count * MemoryLayout<NodeReference>.stride) { $0 + $1.location.storage.heapByteCount }
        }
    }
}
