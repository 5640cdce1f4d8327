/// The order of a merged list of identified elements (SPEC.md section 17, "list"): moves and
/// inserts made on either side keep their place.
///
/// Elements neither side moved (relative to the base, by ``SequenceMatching``) keep the
/// base's order: the skeleton. Every other surviving element is placed by the side that
/// placed it (the side that inserted or moved it; the newer side when both did), right
/// after the nearest element before it in that side's list that is in the skeleton or was
/// placed by the same side, or at the start. Elements placed after the same element come
/// in the older side's order, then the newer side's. Without a base, the skeleton is the
/// elements both sides hold, in the newer side's order.
enum ListOrder {
    private enum Owner { case newer, older }

    /// The identifiers of `surviving` in their merged order. Identifiers compare as bytes.
    ///
    /// - Complexity: O(n · d) for the matching (d bounded, ``SequenceMatching``), O(n) after.
    static func merge(base: [String]?, newer: [String], older: [String], surviving: [String]) -> [String] {
        order(base: base?.map(ByteKey.init), newer: newer.map(ByteKey.init), older: older.map(ByteKey.init),
              surviving: Set(surviving.map(ByteKey.init))).map(\.string)
    }

    private static func order(base: [ByteKey]?, newer: [ByteKey], older: [ByteKey], surviving: Set<ByteKey>) -> [ByteKey] {
        let inNewer = Set(newer), inOlder = Set(older)
        var skeleton: [ByteKey]
        var owner: [ByteKey: Owner] = [:]
        if let base {
            let inBase = Set(base)
            let movedOnNewer = moved(base, newer), movedOnOlder = moved(base, older)
            skeleton = base.filter { surviving.contains($0) && !movedOnNewer.contains($0) && !movedOnOlder.contains($0) }
            let skeletonSet = Set(skeleton)
            for id in surviving where !skeletonSet.contains(id) {
                if inBase.contains(id) {
                    owner[id] = movedOnNewer.contains(id) || !movedOnOlder.contains(id) ? .newer : .older
                } else {
                    owner[id] = inNewer.contains(id) ? .newer : .older
                }
                // An element kept only by the side that did not place it (its placing side
                // removed it) is placed by the side that holds it.
                if owner[id] == .newer, !inNewer.contains(id) { owner[id] = .older }
                if owner[id] == .older, !inOlder.contains(id) { owner[id] = .newer }
            }
        } else {
            skeleton = newer.filter { inOlder.contains($0) && surviving.contains($0) }
            for id in surviving where !(inNewer.contains(id) && inOlder.contains(id)) {
                owner[id] = inNewer.contains(id) ? .newer : .older
            }
        }
        let skeletonSet = Set(skeleton)

        // Children of each anchor (nil anchors the start), the older side's first.
        var children: [ByteKey?: [ByteKey]] = [:]
        for (side, list) in [(Owner.older, older), (Owner.newer, newer)] {
            var anchor: ByteKey?
            for id in list {
                if let placedBy = owner[id], placedBy == side {
                    children[anchor, default: []].append(id)
                    anchor = id
                } else if skeletonSet.contains(id) {
                    anchor = id
                }
            }
        }

        var order: [ByteKey] = []
        order.reserveCapacity(surviving.count)
        func emitChildren(of anchor: ByteKey?) {
            // Depth first without recursion: a long run of inserts is a long chain.
            var stack = Array((children[anchor] ?? []).reversed())
            while let id = stack.popLast() {
                order.append(id)
                stack.append(contentsOf: (children[id] ?? []).reversed())
            }
        }
        emitChildren(of: nil)
        for id in skeleton {
            order.append(id)
            emitChildren(of: id)
        }
        return order
    }

    /// The elements of `base` that `side` also holds but moved: those outside the matching
    /// of the two lists' common elements.
    private static func moved(_ base: [ByteKey], _ side: [ByteKey]) -> Set<ByteKey> {
        let inSide = Set(side), inBase = Set(base)
        let baseCommon = base.filter { inSide.contains($0) }
        let sideCommon = side.filter { inBase.contains($0) }
        let kept = Set(SequenceMatching.matches(baseCommon, sideCommon).map { baseCommon[$0.0] })
        return Set(baseCommon).subtracting(kept)
    }
}
