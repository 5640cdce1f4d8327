/// Decoded nodes by hash, bounded by count: when the current generation reaches half the
/// limit it becomes the previous one (the older one is dropped); hits in the previous
/// generation move back to the current one. An approximate LRU with O(1) operations.
struct NodeCache: Sendable {
    let limit: Int
    private var current: [Digest: MapNode] = [:]
    private var previous: [Digest: MapNode] = [:]

    init(limit: Int) {
        self.limit = max(2, limit)
    }

    mutating func node(_ hash: Digest) -> MapNode? {
        if let node = current[hash] { return node }
        guard let node = previous.removeValue(forKey: hash) else { return nil }
        insert(node, for: hash)
        return node
    }

    mutating func insert(_ node: MapNode, for hash: Digest) {
        if current.count >= limit / 2 {
            previous = current
            current = [:]
            current.reserveCapacity(limit / 2)
        }
        current[hash] = node
    }
}
