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
        var keyed = try Self.sortedLastChanges(changes, rejectingRepeats: rejectingRepeats)
        changes = []
        var builder = NodeBuilder(location: location)
        let newRoot: NodeReference?
        if root == nil {
            // A new map (a first version, a bulk import): build it from the entries directly,
            // letting the changes go before the nodes are made.
            let entries = keyed.compactMap(\.entry)
            keyed = []
            builder.keepsDecodedLeaves = entries.count <= NodeBuilder.bulkEntryCount
            newRoot = builder.build(entries, depth: 0)
        } else {
            newRoot = try apply(root, depth: 0, changes: keyed[...], builder: &builder, overlay: overlay)
        }
        return MapUpdate(root: newRoot, location: location, newNodes: builder.reachableNewNodes(from: newRoot))
    }

    /// The changes in leaf order, keeping only the last change of each identifier (or
    /// throwing for a repeated one). Sorts trivially copyable (hash, index) pairs rather than
    /// the changes themselves, so a million changes sort without a reference-count operation
    /// per comparison.
    static func sortedLastChanges(_ changes: [MapChange], rejectingRepeats: Bool = false) throws(MapError) -> [KeyedChange] {
        var order = changes.indices.map { ChangeOrder(keyHash: Digest.of(changes[$0].valueId), index: $0) }
        order.sort { a, b in
            if a.keyHash != b.keyHash { return a.keyHash < b.keyHash }
            // Equal placement hashes: a SHA-256 collision, or one identifier changed twice.
            let (first, second) = (changes[a.index].valueId, changes[b.index].valueId)
            return first != second ? first < second : a.index < b.index
        }
        var keyed: [KeyedChange] = []
        keyed.reserveCapacity(order.count)
        for (position, entry) in order.enumerated() {
            // Of several changes to one identifier, only the last (now adjacent, in order) counts.
            if position + 1 < order.count, order[position + 1].keyHash == entry.keyHash,
               changes[order[position + 1].index].valueId == changes[entry.index].valueId {
                if rejectingRepeats { throw .repeatedChange(valueId: changes[entry.index].valueId) }
                continue
            }
            keyed.append(KeyedChange(keyHash: entry.keyHash, change: changes[entry.index]))
        }
        return keyed
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
    private(set) var nodes: [Digest: EncodedNode] = [:]
    /// Whether the leaves built keep their decoded form beside their bytes (see
    /// ``EncodedNode/node``): not in a bulk build, whose leaves only ever go to storage.
    var keepsDecodedLeaves = true

    /// New maps of more entries than this are bulk builds.
    static let bulkEntryCount = 1 << 16

    init(location: Version.ID) {
        self.location = location
    }

    /// The canonical subtree of sorted `entries` at `depth` (nil when empty).
    mutating func build(_ entries: [LeafEntry], depth: Int) -> NodeReference? {
        build(entries[...], depth: depth)
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
        let (bytes, hash) = node.encoded()
        var kept: MapNode? = node
        if case .leaf = node, !keepsDecodedLeaves { kept = nil }
        nodes[hash] = EncodedNode(hash: hash, bytes: bytes, node: kept)
        return NodeReference(hash: hash, location: location, count: node.count)
    }

    /// The new nodes the map rooted at `root` actually uses (some built nodes can end up
    /// unused, for example when a change turns out to be a no-op).
    func reachableNewNodes(from root: NodeReference?) -> [EncodedNode] {
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
