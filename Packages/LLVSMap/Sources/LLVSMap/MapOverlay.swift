import LLVSCore
import LLVSSupport

/// Map nodes that live only in memory: the maps of virtual versions (the virtual ancestor
/// a criss-cross merge computes) that are read during one merge and never stored.
public final class MapOverlay: Sendable {
    private let nodes = Locked<[Digest: MapNode]>([:])

    /// Creates an empty overlay.
    public init() {}

    /// Keeps the nodes of `update` in the overlay instead of writing them to a zone.
    public func keep(_ update: MapUpdate) {
        nodes.withLock { nodes in
            for node in update.newNodes {
                // Decoding bytes this process just encoded does not fail.
                if let decoded = try? node.decoded() { nodes[node.hash] = decoded }
            }
        }
    }

    func node(_ hash: Digest) -> MapNode? {
        nodes.withLock { $0[hash] }
    }
}
