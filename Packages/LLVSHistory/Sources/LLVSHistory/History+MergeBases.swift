import HeapModule
import LLVSCore

extension History {
    /// All best common ancestors of two versions: the common ancestors that are not
    /// ancestors of another common ancestor, sorted by identifier (byte order).
    ///
    /// A version counts as its own ancestor here, as in Git: if one version is an ancestor
    /// of the other (or they are the same), the result is that version alone. Unrelated
    /// versions give an empty array. A criss-cross history gives several bases; a merge
    /// should combine them (the store merges them into a virtual ancestor) rather than pick
    /// one.
    ///
    /// The walk visits versions in decreasing generation, painting each with the side(s) it
    /// is reachable from; a version reached from both sides is a base, and everything below
    /// a base is marked stale. The walk ends when only stale versions remain queued, so its
    /// cost is the region between the two versions and their bases.
    ///
    /// - Throws: ``Error/unknownVersion(_:)`` when either version is not in the history.
    public func mergeBases(_ first: Version.ID, _ second: Version.ID) throws -> [Version.ID] {
        let search = mergeBaseSearch(try index(of: first), try index(of: second))
        return search.bases.map { nodes[Int($0)].version.id }.sorted()
    }

    /// The best common ancestors of two *sets* of versions: the versions that are ancestors
    /// (or members) of some version of each set and are not ancestors of another such
    /// version. With one version per set this is ``mergeBases(_:_:)``. A recursive merge
    /// uses it to find the bases of a virtual ancestor (whose "parents" are a set of
    /// versions) and another version. Sorted by identifier.
    ///
    /// - Throws: ``Error/unknownVersion(_:)`` when a version is not in the history.
    public func mergeBases<First: Collection, Second: Collection>(of first: First, and second: Second) throws -> [Version.ID]
    where First.Element == Version.ID, Second.Element == Version.ID {
        var firstIndices: [Int32] = []
        for id in first { firstIndices.append(try index(of: id)) }
        var secondIndices: [Int32] = []
        for id in second { secondIndices.append(try index(of: id)) }
        return mergeBaseSearch(firstIndices, secondIndices).bases.map { nodes[Int($0)].version.id }.sorted()
    }

    /// One common ancestor of two versions, chosen deterministically among the
    /// ``mergeBases(_:_:)``: the one with the greatest generation, then the latest
    /// timestamp, then the greatest identifier. Nil for unrelated versions.
    ///
    /// - Throws: ``Error/unknownVersion(_:)`` when either version is not in the history.
    public func greatestCommonAncestor(ofVersionsIdentifiedBy ids: (Version.ID, Version.ID)) throws -> Version.ID? {
        let search = mergeBaseSearch(try index(of: ids.0), try index(of: ids.1))
        let best = search.bases.max { a, b in
            let nodeA = nodes[Int(a)], nodeB = nodes[Int(b)]
            if nodeA.generation != nodeB.generation { return nodeA.generation < nodeB.generation }
            return RecencyKey(nodeA.version) < RecencyKey(nodeB.version)
        }
        return best.map { nodes[Int($0)].version.id }
    }

    /// The result of a merge-base walk: the bases, and how many versions the walk took
    /// from its queue (the measure of its cost).
    struct MergeBaseSearch {
        var bases: [Int32]
        var visitedCount: Int
    }

    /// Paint bits of the merge-base walk: reachable from the first version, from the
    /// second, and stale (below a base found already).
    private enum Paint {
        static let fromFirst: UInt8 = 1
        static let fromSecond: UInt8 = 2
        static let bothSides: UInt8 = 3
        static let stale: UInt8 = 4
    }

    /// A queued version of a generation-ordered walk, ordered by generation (then index)
    /// so descendants always come out first.
    struct QueueEntry: Comparable {
        var generation: Int32
        var index: Int32
        static func < (lhs: QueueEntry, rhs: QueueEntry) -> Bool {
            lhs.generation != rhs.generation ? lhs.generation < rhs.generation : lhs.index < rhs.index
        }
    }

    func mergeBaseSearch(_ first: Int32, _ second: Int32) -> MergeBaseSearch {
        mergeBaseSearch([first], [second])
    }

    func mergeBaseSearch(_ first: [Int32], _ second: [Int32]) -> MergeBaseSearch {
        var paint: [Int32: UInt8] = [:]
        for index in first { paint[index, default: 0] |= Paint.fromFirst }
        for index in second { paint[index, default: 0] |= Paint.fromSecond }
        var queue = Heap<QueueEntry>()
        for index in paint.keys {
            queue.insert(QueueEntry(generation: nodes[Int(index)].generation, index: index))
        }
        var queuedNonStaleCount = paint.count
        var bases: [Int32] = []
        var visitedCount = 0

        while queuedNonStaleCount > 0, let entry = queue.popMax() {
            visitedCount += 1
            var flags = paint[entry.index, default: 0]
            if flags & Paint.stale == 0 { queuedNonStaleCount -= 1 }
            // Every descendant of this version inside the walk has a greater generation and
            // was popped already, so its paint is final here.
            if flags == Paint.bothSides {
                bases.append(entry.index)
                flags |= Paint.stale
            }
            for predecessor in nodes[Int(entry.index)].predecessors {
                let old = paint[predecessor, default: 0]
                let new = old | flags
                guard new != old else { continue }
                paint[predecessor] = new
                if old == 0 {
                    // Not yet queued: a version is queued once, when first painted.
                    queue.insert(QueueEntry(generation: nodes[Int(predecessor)].generation, index: predecessor))
                    if new & Paint.stale == 0 { queuedNonStaleCount += 1 }
                } else if old & Paint.stale == 0, new & Paint.stale != 0 {
                    queuedNonStaleCount -= 1
                }
            }
        }
        return MergeBaseSearch(bases: bases, visitedCount: visitedCount)
    }
}
