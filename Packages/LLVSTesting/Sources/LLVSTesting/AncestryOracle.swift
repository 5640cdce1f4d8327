/// Brute-force ancestry of a DAG of at most 64 versions given by the predecessors of each
/// (as indices of earlier versions), the oracle for a history's answers: bit `j` of `inclusiveAncestors[i]` is set when `v<j>` is `v<i>` or an
/// ancestor of it.
public struct AncestryOracle: Sendable {
    /// Per version, the bit set of itself and its ancestors.
    public let inclusiveAncestors: [UInt64]
    /// Per version, its successors.
    public let successors: [[Int]]

    /// The oracle of the DAG whose version `i` has `predecessors[i]` (at most 64 versions).
    public init(predecessors: [[Int]]) {
        precondition(predecessors.count <= 64, "AncestryOracle handles at most 64 versions")
        var ancestors = [UInt64](repeating: 0, count: predecessors.count)
        var successors = [[Int]](repeating: [], count: predecessors.count)
        for i in 0..<predecessors.count {
            ancestors[i] = 1 << UInt64(i)
            for p in predecessors[i] {
                ancestors[i] |= ancestors[p]
                successors[p].append(i)
            }
        }
        self.inclusiveAncestors = ancestors
        self.successors = successors
    }

    /// True when `a` is an ancestor of `b` other than `b` itself.
    public func isProperAncestor(_ a: Int, of b: Int) -> Bool {
        a != b && inclusiveAncestors[b] & (1 << UInt64(a)) != 0
    }

    /// The common ancestors of `a` and `b` (each counting as its own ancestor) that are not
    /// proper ancestors of another common ancestor.
    public func bestCommonAncestors(_ a: Int, _ b: Int) -> [Int] {
        bestCommonAncestors(of: [a], and: [b])
    }

    /// The best common ancestors of two sets of versions.
    public func bestCommonAncestors(of first: [Int], and second: [Int]) -> [Int] {
        let common = first.reduce(UInt64(0)) { $0 | inclusiveAncestors[$1] } & second.reduce(UInt64(0)) { $0 | inclusiveAncestors[$1] }
        var belowAnotherCommonAncestor: UInt64 = 0
        var remaining = common
        while remaining != 0 {
            let member = remaining.trailingZeroBitCount
            belowAnotherCommonAncestor |= inclusiveAncestors[member] & ~(1 << UInt64(member))
            remaining &= remaining - 1
        }
        var best = common & ~belowAnotherCommonAncestor
        var members: [Int] = []
        while best != 0 {
            members.append(best.trailingZeroBitCount)
            best &= best - 1
        }
        return members
    }
}
