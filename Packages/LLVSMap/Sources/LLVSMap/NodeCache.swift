/// Decoded nodes by hash, bounded by the heap they occupy: when the current generation
/// outgrows half the byte limit it becomes the previous one (the older one is dropped);
/// hits in the previous generation move back to the current one. An approximate LRU with
/// O(1) operations (plus the size of a node, counted once when it is inserted).
struct NodeCache: Sendable {
    let byteLimit: Int
    private var current: [Digest: MapNode] = [:]
    private var previous: [Digest: MapNode] = [:]
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
            previous = current
            previousBytes = currentBytes
            current = [:]
            currentBytes = 0
        }
        if let replaced = current.updateValue(node, forKey: hash) { currentBytes -= replaced.residentByteCount }
        currentBytes += size
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
