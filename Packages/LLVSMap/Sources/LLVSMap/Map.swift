import Foundation
import LLVSCore
import LLVSZones

/// The map index of a store: for every version, which value references exist. Each version
/// has a root ``NodeReference`` (nil for an empty map); nodes are shared between versions
/// and stored in the maps zone under (node hash, writing version).
///
/// All operations are thread-safe. Decoded nodes are cached by hash.
public final class Map: Sendable {
    /// The zone holding the nodes.
    public let zone: any Zone
    private let cache: ShardedNodeCache

    /// The default ``init(zone:cacheByteLimit:)`` budget: 16 MiB of decoded nodes.
    public static let defaultCacheByteLimit = 16 << 20

    /// Creates a map over `zone`, caching decoded nodes up to about `cacheByteLimit` bytes
    /// of heap (counted per node: its entries or children and their identifier strings).
    public init(zone: any Zone, cacheByteLimit: Int = Map.defaultCacheByteLimit) {
        self.zone = zone
        self.cache = ShardedNodeCache(byteLimit: cacheByteLimit)
    }

    /// The heap the decoded-node cache holds now, as it counts it (at most about its
    /// budget).
    public var cachedByteCount: Int { cache.residentByteCount }

    /// The reference of `valueId` in the map rooted at `root`, or nil if absent.
    ///
    /// - Throws: ``MapError`` when a node is missing or corrupt.
    public func reference(of valueId: Value.ID, in root: NodeReference?, overlay: MapOverlay? = nil) throws(MapError) -> Value.Reference? {
        let keyHash = Digest.of(valueId)
        var current = root
        var depth = 0
        while let reference = current {
            switch try node(reference, overlay: overlay) {
            case .leaf(let entries):
                return entries.first { $0.keyHash == keyHash && $0.reference.valueId == valueId }?.reference
            case let .interior(bitmap, children):
                current = MapNode.child(at: keyHash.nibble(at: depth), bitmap: bitmap, children: children)
                depth += 1
            }
        }
        return nil
    }

    /// Calls `body` for every value reference in the map rooted at `root`, in placement-hash
    /// order.
    ///
    /// - Throws: ``MapError`` for a missing or corrupt node, or what `body` throws.
    public func enumerate(_ root: NodeReference?, overlay: MapOverlay? = nil, _ body: (Value.Reference) throws -> Void) throws {
        guard let root else { return }
        switch try node(root, overlay: overlay) {
        case .leaf(let entries):
            for entry in entries { try body(entry.reference) }
        case .interior(_, let children):
            for child in children { try enumerate(child, overlay: overlay, body) }
        }
    }

    /// Every value reference in the map rooted at `root`.
    ///
    /// - Throws: ``MapError`` when a node is missing or corrupt.
    public func references(in root: NodeReference?, overlay: MapOverlay? = nil) throws -> [Value.Reference] {
        var result: [Value.Reference] = []
        result.reserveCapacity(root?.count ?? 0)
        try enumerate(root, overlay: overlay) { result.append($0) }
        return result
    }

    /// Persists the nodes of an update in the maps zone, as one batch of its version.
    ///
    /// - Throws: ``MapError/zone(_:)`` when the zone cannot store them.
    public func write(_ update: MapUpdate) throws(MapError) {
        guard !update.newNodes.isEmpty else { return }
        do {
            try zone.store(update.zoneItems)
        } catch let error as ZoneError {
            throw .zone(error)
        } catch {
            throw .zone(.io(operation: "store map nodes", path: update.location.rawValue, reason: "\(error)"))
        }
        remember(update)
    }

    /// Caches the nodes of an update that the caller stored itself (``MapUpdate/zoneItems``,
    /// written together with other items of its version).
    public func remember(_ update: MapUpdate) {
        for node in update.newNodes {
            if let decoded = node.node { cache.insert(decoded, for: node.hash) }
        }
    }

    // MARK: Loading nodes

    /// The node at `reference`: from `pending` (nodes of an update being built), the
    /// overlay, the cache, or the zone (verified against its hash).
    func node(_ reference: NodeReference, overlay: MapOverlay?, pending: [Digest: EncodedNode]? = nil) throws(MapError) -> MapNode {
        if let pending = pending?[reference.hash] { return try pending.decoded() }
        if let node = overlay?.node(reference.hash) { return node }
        if let node = cache.node(reference.hash) { return node }
        let bytes: Data?
        do {
            bytes = try zone.data(for: ZoneReference(key: .init(reference.hash.hex), version: reference.location))
        } catch let error as ZoneError {
            throw .zone(error)
        } catch {
            throw .zone(.io(operation: "read map node", path: reference.location.rawValue, reason: "\(error)"))
        }
        guard let bytes else { throw .missingNode(hash: reference.hash, location: reference.location) }
        let (node, hash) = try MapNode.decode(bytes)
        guard hash == reference.hash else { throw .corruptNode(hash: reference.hash, location: reference.location) }
        cache.insert(node, for: hash)
        return node
    }
}

/// A node built by an update, with its stored bytes.
public struct EncodedNode: Sendable {
    /// The node's hash.
    public let hash: Digest
    /// The node's stored bytes.
    public let bytes: Data
    /// The node decoded, kept beside its bytes for the cache; nil for the nodes of a bulk
    /// build (a new map of many entries), whose copies of the entries and child lists would
    /// double its memory.
    let node: MapNode?

    /// The node, decoded from ``bytes`` when it was not kept.
    ///
    /// - Throws: ``MapError/malformedNode(reason:)`` if the bytes do not decode (a bug: they
    ///   were just encoded).
    func decoded() throws(MapError) -> MapNode {
        if let node { return node }
        return try MapNode.decode(bytes).node
    }
}

/// The result of applying changes to a map: the new root and the nodes to store for it.
public struct MapUpdate: Sendable {
    /// The root of the new map, or nil when it is empty.
    public let root: NodeReference?
    /// The version the new nodes are stored under.
    public let location: Version.ID
    /// The nodes the new map needs that did not exist before, in no particular order
    /// (less those taken with ``removeLastNodes(holdingAbout:)``).
    public private(set) var newNodes: [EncodedNode]

    /// Makes an update.
    init(root: NodeReference?, location: Version.ID, newNodes: [EncodedNode]) {
        self.root = root
        self.location = location
        self.newNodes = newNodes
    }

    /// The new nodes as items of the maps zone, keyed by node hash under ``location``.
    public var zoneItems: [ZoneItem] {
        newNodes.map(zoneItem)
    }

    /// Orders the new nodes by descending hash, so that
    /// ``removeLastNodes(holdingAbout:)`` takes them in ascending order of their zone keys
    /// (the hexadecimal hashes), the order the zones keep.
    ///
    /// - Complexity: O(n log n) in the number of new nodes.
    public mutating func sortNewNodesByDescendingHash() {
        newNodes.sort { $1.hash < $0.hash }
    }

    /// Removes the last new nodes, about `byteCount` bytes of them (at least one, if any is
    /// left), and returns them as items of the maps zone: a writer that stores a large
    /// update's nodes in parts lets each part go once it is stored. The list of nodes
    /// shrinks to fit once it is less than three quarters full.
    ///
    /// - Complexity: O(k) for the k nodes removed, amortized.
    public mutating func removeLastNodes(holdingAbout byteCount: Int) -> [ZoneItem] {
        var start = newNodes.endIndex, total = 0
        while start > newNodes.startIndex, total < byteCount || start == newNodes.endIndex {
            start -= 1
            total += newNodes[start].bytes.count
        }
        let removed = newNodes[start...].map(zoneItem)
        newNodes.removeSubrange(start...)
        if newNodes.count < newNodes.capacity / 4 * 3 { newNodes = newNodes.copiedToFit() }
        return removed
    }

    private func zoneItem(_ node: EncodedNode) -> ZoneItem {
        ZoneItem(reference: ZoneReference(key: .init(node.hash.hex), version: location), data: node.bytes)
    }
}

extension Array {
    /// The elements in a new array with room for no more (`Array(self[...])` would share
    /// this array's storage, spare room included).
    func copiedToFit() -> [Element] {
        var copy: [Element] = []
        copy.reserveCapacity(count)
        copy.append(contentsOf: self)
        return copy
    }
}
