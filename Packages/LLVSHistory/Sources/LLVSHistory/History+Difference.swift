import HeapModule
import LLVSCore

extension History {
    /// The versions that are ancestors of (or among) `included` but not ancestors of (or
    /// among) any of `excluded` — what Git's `rev-list A ^B` lists — in topological order
    /// (every version after its predecessors). An exchange uses it to find what the other
    /// side lacks from the heads that side is known to hold, without listing the history.
    ///
    /// The walk visits versions in decreasing generation, painting each with the side(s) it
    /// is reachable from, and ends once every queued version is reachable from `excluded`;
    /// its cost is the region above the excluded versions, not the depth of the history.
    ///
    /// - Throws: ``Error/unknownVersion(_:)`` when a version of either set is not in the
    ///   history (filter `excluded` with ``contains(_:)`` first if it may hold unknown ones).
    public func versions<Included: Sequence, Excluded: Sequence>(
        reachableFrom included: Included, excludingAncestorsOf excluded: Excluded
    ) throws -> [Version.ID] where Included.Element == Version.ID, Excluded.Element == Version.ID {
        var paint: [Int32: UInt8] = [:]
        for id in included { paint[try index(of: id), default: 0] |= Self.includedPaint }
        for id in excluded { paint[try index(of: id), default: 0] |= Self.excludedPaint }
        var queue = Heap<QueueEntry>()
        var queuedIncludedOnly = 0
        for (index, flags) in paint {
            queue.insert(QueueEntry(generation: nodes[Int(index)].generation, index: index))
            if flags == Self.includedPaint { queuedIncludedOnly += 1 }
        }
        var found: [Int32] = []
        while queuedIncludedOnly > 0, let entry = queue.popMax() {
            // Descendants have greater generations and were popped first: the paint is final.
            let flags = paint[entry.index, default: 0]
            if flags == Self.includedPaint {
                queuedIncludedOnly -= 1
                found.append(entry.index)
            }
            for predecessor in nodes[Int(entry.index)].predecessors {
                let old = paint[predecessor, default: 0]
                let new = old | flags
                guard new != old else { continue }
                paint[predecessor] = new
                if old == 0 {
                    queue.insert(QueueEntry(generation: nodes[Int(predecessor)].generation, index: predecessor))
                }
                if new == Self.includedPaint, old == 0 { queuedIncludedOnly += 1 }
                if old == Self.includedPaint, new != old { queuedIncludedOnly -= 1 }
            }
        }
        // Popped in decreasing generation: reversed, predecessors come first.
        return found.reversed().map { nodes[Int($0)].version.id }
    }

    /// The members of `ids` that are not ancestors of another member: the heads of the
    /// sub-history they span (what an exchange remembers of the versions the other side
    /// holds). Sorted by identifier. The walk stops once every member has been classified,
    /// so its cost is the region spanned by the members.
    ///
    /// - Throws: ``Error/unknownVersion(_:)`` when a member is not in the history.
    public func maximalVersions<S: Sequence>(of ids: S) throws -> [Version.ID] where S.Element == Version.ID {
        var members: Set<Int32> = []
        for id in ids { members.insert(try index(of: id)) }
        var below: Set<Int32> = [] // reached from a member through predecessors
        var queued: Set<Int32> = members
        var queue = Heap<QueueEntry>(members.map { QueueEntry(generation: nodes[Int($0)].generation, index: $0) })
        var unclassified = members.count
        var maximal: [Int32] = []
        while unclassified > 0, let entry = queue.popMax() {
            if members.contains(entry.index) {
                unclassified -= 1
                if !below.contains(entry.index) { maximal.append(entry.index) }
            }
            for predecessor in nodes[Int(entry.index)].predecessors {
                below.insert(predecessor)
                if queued.insert(predecessor).inserted {
                    queue.insert(QueueEntry(generation: nodes[Int(predecessor)].generation, index: predecessor))
                }
            }
        }
        return maximal.map { nodes[Int($0)].version.id }.sorted()
    }

    private static let includedPaint: UInt8 = 1
    private static let excludedPaint: UInt8 = 2
}
