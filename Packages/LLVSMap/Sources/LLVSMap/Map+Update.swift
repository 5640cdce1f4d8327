import Foundation
import LLVSCore

/// A change to one value identifier of a map: its new reference, or nil to remove it.
public struct MapChange: Sendable, Equatable {
    /// The value identifier.
    public var valueId: Value.ID
    /// The new reference (whose `valueId` must equal ``valueId``), or nil to remove.
    public var reference: Value.Reference?

    /// Sets `valueId` to `reference`, or removes it when `reference` is nil.
    public init(valueId: Value.ID, reference: Value.Reference?) {
        self.valueId = valueId
        self.reference = reference
    }

    /// Sets the value of `reference.valueId` to `reference`.
    public static func set(_ reference: Value.Reference) -> MapChange {
        MapChange(valueId: reference.valueId, reference: reference)
    }

    /// Removes `valueId`.
    public static func remove(_ valueId: Value.ID) -> MapChange {
        MapChange(valueId: valueId, reference: nil)
    }
}

extension Map {
    /// Applies changes to the map rooted at `root`, building the nodes of the new map
    /// (stored under `location` once written with ``write(_:)``). Only the paths from the
    /// changed keys to the root are rebuilt: k changes in a map of n references cost
    /// O(k log n) nodes. Unchanged subtrees are shared with `root`. Removing an absent key
    /// or setting a key to the reference it already has changes nothing. When several
    /// changes name one identifier, the last wins, unless `rejectingRepeats` is set.
    ///
    /// `changes` is consumed: a caller that passes its last use of the array lets the
    /// update free it as soon as the changes are sorted, which matters for large batches.
    ///
    /// - Throws: ``MapError/repeatedChange(valueId:)`` when `rejectingRepeats` is set and an
    ///   identifier appears twice; ``MapError`` when a node of `root` is missing or corrupt.
    public func update(_ root: NodeReference?, applying changes: consuming [MapChange], location: Version.ID,
                       overlay: MapOverlay? = nil, rejectingRepeats: Bool = false) throws(MapError) -> MapUpdate {
        var builder = NodeBuilder(location: location)
        let newRoot: NodeReference?
        if root == nil {
            // A new map (a first version, a bulk import): build it from the entries directly,
            // letting the changes go before the nodes are made, and each sixteenth of the
            // entries once its subtree is built.
            var groups = Self.leafEntriesByFirstNibble(changes, order: try Self.sortedLastChangeOrder(changes, rejectingRepeats: rejectingRepeats))
            changes = []
            builder.isBulk = groups.reduce(0) { $0 + $1.count } > NodeBuilder.bulkEntryCount
            newRoot = builder.build(takingGroups: &groups)
        } else {
            let keyed = try Self.sortedLastChanges(changes, rejectingRepeats: rejectingRepeats)
            changes = []
            newRoot = try apply(root, depth: 0, changes: keyed[...], builder: &builder, overlay: overlay)
        }
        return MapUpdate(root: newRoot, location: location, newNodes: builder.reachableNewNodes(from: newRoot))
    }

    /// The changes in leaf order, keeping only the last change of each identifier (or
    /// throwing for a repeated one).
    static func sortedLastChanges(_ changes: [MapChange], rejectingRepeats: Bool = false) throws(MapError) -> [KeyedChange] {
        try sortedLastChangeOrder(changes, rejectingRepeats: rejectingRepeats).map { KeyedChange(keyHash: $0.keyHash, change: changes[$0.index]) }
    }

    /// The positions of ``sortedLastChanges(_:rejectingRepeats:)`` in `changes`, with their
    /// placement hashes. Sorts trivially copyable (hash, index) pairs rather than the
    /// changes themselves, so a million changes sort without a reference-count operation
    /// per comparison.
    static func sortedLastChangeOrder(_ changes: [MapChange], rejectingRepeats: Bool = false) throws(MapError) -> [ChangeOrder] {
        var order = changes.indices.map { ChangeOrder(keyHash: Digest.of(changes[$0].valueId), index: $0) }
        order.sort { a, b in
            if a.keyHash != b.keyHash { return a.keyHash < b.keyHash }
            // Equal placement hashes: a SHA-256 collision, or one identifier changed twice.
            let (first, second) = (changes[a.index].valueId, changes[b.index].valueId)
            return first != second ? first < second : a.index < b.index
        }
        var kept = 0
        for position in order.indices {
            let entry = order[position]
            // Of several changes to one identifier, only the last (now adjacent, in order) counts.
            if position + 1 < order.count, order[position + 1].keyHash == entry.keyHash,
               changes[order[position + 1].index].valueId == changes[entry.index].valueId {
                if rejectingRepeats { throw .repeatedChange(valueId: changes[entry.index].valueId) }
                continue
            }
            order[kept] = entry
            kept += 1
        }
        order.removeSubrange(kept...)
        return order
    }

    /// The entries the changes at `order` set (see ``sortedLastChangeOrder(_:rejectingRepeats:)``),
    /// in sixteen lists by the first nibble of their placement hash.
    static func leafEntriesByFirstNibble(_ changes: [MapChange], order: [ChangeOrder]) -> [[LeafEntry]] {
        var groups = [[LeafEntry]](repeating: [], count: 16)
        var start = order.startIndex
        while start < order.endIndex {
            let nibble = order[start].keyHash.nibble(at: 0)
            var end = start + 1
            while end < order.endIndex, order[end].keyHash.nibble(at: 0) == nibble { end += 1 }
            groups[nibble].reserveCapacity(end - start)
            for position in order[start..<end] {
                if let entry = KeyedChange(keyHash: position.keyHash, change: changes[position.index]).entry { groups[nibble].append(entry) }
            }
            start = end
        }
        return groups
    }

    private func apply(_ reference: NodeReference?, depth: Int, changes: ArraySlice<KeyedChange>,
                       builder: inout NodeBuilder, overlay: MapOverlay?) throws(MapError) -> NodeReference? {
        guard !changes.isEmpty else { return reference }
        let result: NodeReference?
        switch try reference.map({ (reference) throws(MapError) in try node(reference, overlay: overlay, pending: builder.nodes) }) {
        case nil:
            result = builder.build(changes.compactMap(\.entry), depth: depth)
        case .leaf(let entries)?:
            result = builder.build(Self.merge(entries, changes), depth: depth)
        case let .interior(bitmap, children)?:
            var newChildren: [(nibble: Int, reference: NodeReference)] = []
            var rest = changes
            for nibble in 0..<16 {
                let split = rest.firstIndex { $0.keyHash.nibble(at: depth) != nibble } ?? rest.endIndex
                let group = rest[rest.startIndex..<split]
                rest = rest[split...]
                let child = MapNode.child(at: nibble, bitmap: bitmap, children: children)
                if let updated = try apply(child, depth: depth + 1, changes: group, builder: &builder, overlay: overlay) {
                    newChildren.append((nibble, updated))
                }
            }
            let total = newChildren.reduce(0) { $0 + $1.reference.count }
            if total <= MapNode.leafCapacity {
                // Few enough entries left: the canonical form is a single leaf.
                var entries: [LeafEntry] = []
                for child in newChildren {
                    try collect(child.reference, into: &entries, builder: builder, overlay: overlay)
                }
                result = builder.build(entries, depth: depth)
            } else {
                let newBitmap = newChildren.reduce(UInt16(0)) { $0 | UInt16(1) << UInt16($1.nibble) }
                result = builder.emit(.interior(bitmap: newBitmap, children: newChildren.map(\.reference)))
            }
        }
        if let reference, let result, result.hash == reference.hash { return reference }
        return result
    }

    private func collect(_ reference: NodeReference, into entries: inout [LeafEntry], builder: NodeBuilder, overlay: MapOverlay?) throws(MapError) {
        switch try node(reference, overlay: overlay, pending: builder.nodes) {
        case .leaf(let leafEntries):
            entries.append(contentsOf: leafEntries)
        case .interior(_, let children):
            for child in children { try collect(child, into: &entries, builder: builder, overlay: overlay) }
        }
    }

    /// Merges sorted leaf entries with sorted changes.
    private static func merge(_ entries: [LeafEntry], _ changes: ArraySlice<KeyedChange>) -> [LeafEntry] {
        var result: [LeafEntry] = []
        result.reserveCapacity(entries.count + changes.count)
        var e = entries.startIndex, c = changes.startIndex
        while e < entries.endIndex || c < changes.endIndex {
            if c == changes.endIndex || (e < entries.endIndex && LeafEntry.precedes(entries[e], changes[c].probe)) {
                result.append(entries[e])
                e += 1
            } else if e == entries.endIndex || LeafEntry.precedes(changes[c].probe, entries[e]) {
                if let entry = changes[c].entry { result.append(entry) }
                c += 1
            } else {
                // The same key: the change replaces (or removes) the entry.
                if let entry = changes[c].entry { result.append(entry) }
                e += 1
                c += 1
            }
        }
        return result
    }
}

/// A change with its placement hash, sortable in leaf order.
struct KeyedChange: Sendable {
    var keyHash: Digest
    var change: MapChange

    init(keyHash: Digest, change: MapChange) {
        self.keyHash = keyHash
        self.change = change
    }

    /// The entry the change sets, or nil for a removal.
    var entry: LeafEntry? {
        change.reference.map { LeafEntry(keyHash: keyHash, reference: Value.Reference(valueId: change.valueId, storedVersionId: $0.storedVersionId)) }
    }

    /// An entry with the change's key, for ordering against leaf entries.
    var probe: LeafEntry {
        LeafEntry(keyHash: keyHash, reference: Value.Reference(valueId: change.valueId, storedVersionId: ""))
    }

    static func precedes(_ a: KeyedChange, _ b: KeyedChange) -> Bool {
        a.keyHash != b.keyHash ? a.keyHash < b.keyHash : a.change.valueId < b.change.valueId
    }
}

/// A change's position in an update's input with its placement hash: what the update sorts.
struct ChangeOrder {
    var keyHash: Digest
    var index: Int
}

/// Builds canonical nodes for one update, remembering every node it makes.
struct NodeBuilder {
    let location: Version.ID
    /// The nodes made, by hash (empty in a bulk build).
    private(set) var nodes: [Digest: EncodedNode] = [:]
    /// Whether this builds a new map of many entries (more than ``bulkEntryCount``) with
    /// ``build(_:depth:)`` alone. Its nodes are then listed in the order they are made, as
    /// bytes only (see ``EncodedNode/node``): they only ever go to storage, and a dictionary
    /// of them, their decoded entries and child lists would take more memory than the
    /// bytes. Each is reachable and distinct, since no two subtrees of distinct entries
    /// are equal.
    var isBulk = false
    /// The nodes of a bulk build, children before their parent.
    private var bulkNodes: [EncodedNode] = []
    /// Where a bulk build writes its nodes' bytes: the nodes share buffers of about
    /// ``bulkBufferByteCount`` bytes (each node's `bytes` a slice of one) instead of an
    /// allocation each.
    private var bulkBuffer = Data()
    /// The nodes written to ``bulkBuffer``: their hashes and byte ranges.
    private var bulkBufferNodes: [(hash: Digest, range: Range<Int>)] = []

    /// The size of the buffers a bulk build shares among its nodes' bytes.
    static let bulkBufferByteCount = 1 << 20

    /// New maps of more entries than this are bulk builds.
    static let bulkEntryCount = 1 << 16

    init(location: Version.ID) {
        self.location = location
    }

    /// The canonical subtree of sorted `entries` at `depth` (nil when empty).
    mutating func build(_ entries: [LeafEntry], depth: Int) -> NodeReference? {
        build(entries[...], depth: depth)
    }

    /// The canonical map of the sorted entries in `groups` (those whose placement hash
    /// begins with nibble i in `groups[i]`), letting each group go once its subtree is
    /// built: a bulk build then never holds all the entries and all the nodes at once.
    /// Leaves `groups` empty.
    mutating func build(takingGroups groups: inout [[LeafEntry]]) -> NodeReference? {
        guard groups.reduce(0, { $0 + $1.count }) > MapNode.leafCapacity else {
            defer { groups = [] }
            return build(groups.flatMap { $0 }, depth: 0)
        }
        var bitmap: UInt16 = 0
        var children: [NodeReference] = []
        for nibble in groups.indices {
            let group = groups[nibble]
            groups[nibble] = []
            if let child = build(group, depth: 1) {
                bitmap |= UInt16(1) << UInt16(nibble)
                children.append(child)
            }
        }
        groups = []
        return emit(.interior(bitmap: bitmap, children: children))
    }

    /// The canonical subtree of a sorted slice of entries at `depth` (nil when empty). Works
    /// on slices so that a large build copies each entry once, into its leaf.
    mutating func build(_ entries: ArraySlice<LeafEntry>, depth: Int) -> NodeReference? {
        guard !entries.isEmpty else { return nil }
        if entries.count <= MapNode.leafCapacity || depth >= MapNode.maximumDepth {
            return emit(.leaf(Array(entries)))
        }
        var bitmap: UInt16 = 0
        var children: [NodeReference] = []
        var start = entries.startIndex
        while start < entries.endIndex {
            let nibble = entries[start].keyHash.nibble(at: depth)
            var end = start + 1
            while end < entries.endIndex, entries[end].keyHash.nibble(at: depth) == nibble { end += 1 }
            if let child = build(entries[start..<end], depth: depth + 1) {
                bitmap |= UInt16(1) << UInt16(nibble)
                children.append(child)
            }
            start = end
        }
        return emit(.interior(bitmap: bitmap, children: children))
    }

    /// Encodes a node and records it as new.
    mutating func emit(_ node: MapNode) -> NodeReference {
        if isBulk {
            let (bytes, hash) = node.encodedBytes()
            if bulkBuffer.count + bytes.count > Self.bulkBufferByteCount { sealBulkBuffer() }
            if bulkBuffer.isEmpty { bulkBuffer.reserveCapacity(max(Self.bulkBufferByteCount, bytes.count)) }
            let start = bulkBuffer.count
            bulkBuffer.append(contentsOf: bytes)
            bulkBufferNodes.append((hash, start..<bulkBuffer.count))
            return NodeReference(hash: hash, location: location, count: node.count)
        }
        let (bytes, hash) = node.encoded()
        nodes[hash] = EncodedNode(hash: hash, bytes: bytes, node: node)
        return NodeReference(hash: hash, location: location, count: node.count)
    }

    /// Lists the nodes written to the bulk buffer, each with its slice of it, and starts
    /// a new buffer (the slices share the old one, which is never written again).
    private mutating func sealBulkBuffer() {
        let sealed = bulkBuffer
        bulkBuffer = Data()
        for (hash, range) in bulkBufferNodes {
            bulkNodes.append(EncodedNode(hash: hash, bytes: sealed[range], node: nil))
        }
        bulkBufferNodes.removeAll(keepingCapacity: true)
    }

    /// The new nodes the map rooted at `root` actually uses (some built nodes can end up
    /// unused, for example when a change turns out to be a no-op). Consumes a bulk build's
    /// list of nodes, every one of which is used.
    mutating func reachableNewNodes(from root: NodeReference?) -> [EncodedNode] {
        if isBulk {
            sealBulkBuffer()
            defer { bulkNodes = [] }
            // Grown by doubling: up to twice the room the nodes need, kept as long as they are.
            return bulkNodes.count < bulkNodes.capacity / 8 * 7 ? bulkNodes.copiedToFit() : bulkNodes
        }
        var result: [EncodedNode] = []
        var stack = root.map { [$0] } ?? []
        var seen: Set<Digest> = []
        while let reference = stack.popLast() {
            guard reference.location == location, let node = nodes[reference.hash], seen.insert(reference.hash).inserted else { continue }
            result.append(node)
            if case .interior(_, let children)? = node.node { stack.append(contentsOf: children) }
        }
        return result
    }
}
