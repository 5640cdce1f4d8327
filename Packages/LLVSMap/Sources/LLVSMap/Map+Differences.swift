import LLVSCore

/// How one value identifier differs between two maps.
public struct MapDifference: Sendable, Hashable {
    /// The value identifier.
    public var valueId: Value.ID
    /// Its reference in the first map, or nil if absent there.
    public var old: Value.Reference?
    /// Its reference in the second map, or nil if absent there.
    public var new: Value.Reference?

    /// Creates a difference.
    public init(valueId: Value.ID, old: Value.Reference?, new: Value.Reference?) {
        self.valueId = valueId
        self.old = old
        self.new = new
    }
}

extension Map {
    /// Every value identifier whose reference differs between the maps rooted at `old` and
    /// `new`, in placement-hash order. Subtrees with equal hashes are skipped without being
    /// read, so the cost is O(differences × log n) node reads.
    ///
    /// - Throws: ``MapError`` when a node is missing or corrupt.
    public func differences(from old: NodeReference?, to new: NodeReference?, overlay: MapOverlay? = nil) throws(MapError) -> [MapDifference] {
        var result: [MapDifference] = []
        try diff(old, new, overlay: overlay, into: &result)
        return result
    }

    private func diff(_ old: NodeReference?, _ new: NodeReference?, overlay: MapOverlay?, into result: inout [MapDifference]) throws(MapError) {
        if old?.hash == new?.hash { return }
        let oldNode = try old.map { (reference) throws(MapError) in try node(reference, overlay: overlay) }
        let newNode = try new.map { (reference) throws(MapError) in try node(reference, overlay: overlay) }
        if case let .interior(oldBitmap, oldChildren)? = oldNode, case let .interior(newBitmap, newChildren)? = newNode {
            for nibble in 0..<16 where (oldBitmap | newBitmap) & (UInt16(1) << UInt16(nibble)) != 0 {
                try diff(MapNode.child(at: nibble, bitmap: oldBitmap, children: oldChildren),
                         MapNode.child(at: nibble, bitmap: newBitmap, children: newChildren),
                         overlay: overlay, into: &result)
            }
            return
        }
        // One side is a leaf or empty, so it holds at most a leaf's worth of entries: compare
        // the two subtrees entry by entry (the other side's size is then bounded by the size
        // of the difference plus a leaf).
        let oldEntries = try entries(of: oldNode, overlay: overlay)
        let newEntries = try entries(of: newNode, overlay: overlay)
        var o = oldEntries.startIndex, n = newEntries.startIndex
        while o < oldEntries.endIndex || n < newEntries.endIndex {
            if n == newEntries.endIndex || (o < oldEntries.endIndex && LeafEntry.precedes(oldEntries[o], newEntries[n])) {
                result.append(MapDifference(valueId: oldEntries[o].reference.valueId, old: oldEntries[o].reference, new: nil))
                o += 1
            } else if o == oldEntries.endIndex || LeafEntry.precedes(newEntries[n], oldEntries[o]) {
                result.append(MapDifference(valueId: newEntries[n].reference.valueId, old: nil, new: newEntries[n].reference))
                n += 1
            } else {
                if oldEntries[o].reference != newEntries[n].reference {
                    result.append(MapDifference(valueId: newEntries[n].reference.valueId, old: oldEntries[o].reference, new: newEntries[n].reference))
                }
                o += 1
                n += 1
            }
        }
    }

    /// All entries below a node, in leaf order.
    private func entries(of node: MapNode?, overlay: MapOverlay?) throws(MapError) -> [LeafEntry] {
        switch node {
        case nil: return []
        case .leaf(let entries)?: return entries
        case .interior(_, let children)?:
            var result: [LeafEntry] = []
            for child in children {
                result.append(contentsOf: try entries(of: try self.node(child, overlay: overlay), overlay: overlay))
            }
            return result
        }
    }
}
