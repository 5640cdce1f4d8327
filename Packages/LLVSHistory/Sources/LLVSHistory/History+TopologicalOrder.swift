import HeapModule
import LLVSCore

extension History: Sequence {
    /// Iterates a history newest first in a deterministic topological order: a version comes
    /// only after all of its successors, and among the versions that may come next the one
    /// with the latest timestamp (then the greatest identifier) is chosen. The order depends
    /// only on the versions, never on the order they were added in.
    ///
    /// Iteration is lazy: taking the first k versions touches only those near the heads.
    public struct TopologicalIterator: IteratorProtocol {
        private let history: History
        private var ready: Heap<ReadyVersion>
        private var emittedSuccessorCounts: [Int32: Int] = [:]

        private struct ReadyVersion: Comparable {
            var recency: RecencyKey
            var index: Int32
            static func < (lhs: ReadyVersion, rhs: ReadyVersion) -> Bool { lhs.recency < rhs.recency }
        }

        init(_ history: History) {
            self.history = history
            self.ready = Heap(history.headIdentifiers.compactMap { id in
                history.indexById[id].map { ReadyVersion(recency: RecencyKey(history.nodes[Int($0)].version), index: $0) }
            })
        }

        /// The next version, with its successors filled in, or nil at the end.
        public mutating func next() -> Version? {
            guard let next = ready.popMax() else { return nil }
            for predecessor in history.nodes[Int(next.index)].predecessors {
                let emitted = emittedSuccessorCounts[predecessor, default: 0] + 1
                if emitted == history.nodes[Int(predecessor)].successors.count {
                    emittedSuccessorCounts[predecessor] = nil
                    ready.insert(ReadyVersion(recency: RecencyKey(history.nodes[Int(predecessor)].version), index: predecessor))
                } else {
                    emittedSuccessorCounts[predecessor] = emitted
                }
            }
            return history.version(at: next.index)
        }
    }

    /// An iterator over all versions, newest first, in topological order.
    public func makeIterator() -> TopologicalIterator {
        TopologicalIterator(self)
    }

    /// The number of versions (the exact count, not an estimate).
    public var underestimatedCount: Int { count }
}
