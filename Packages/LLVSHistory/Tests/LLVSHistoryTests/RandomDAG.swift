import LLVSCore
import PropertyBased
@testable import LLVSHistory

/// A random version DAG for property tests, decoded from generated steps so that any
/// shrunk list of steps is still a valid DAG.
///
/// Step `i` makes version `v<i>`: a new root (always for `i == 0`, else with probability
/// 1/10, giving unrelated roots), a child of a random earlier version, or a merge of two
/// random earlier versions (3/10). Timestamps come from a small range so that ties, which
/// must be broken deterministically, are frequent. `insertionKeys` give a random insertion
/// order for order-independence checks.
struct RandomDAG: CustomStringConvertible, Sendable {
    /// `(kind 0…9, first parent seed, second parent seed, timestamp 0…6, insertion key)`.
    typealias Step = (Int, Int, Int, Int, Int)

    let predecessors: [[Int]]
    let ids: [Version.ID]
    let timestamps: [Double]
    let insertionKeys: [Int]

    static let generator = zip(
        Gen.int(in: 0...9), Gen.int(in: 0...1_000), Gen.int(in: 0...1_000), Gen.int(in: 0...6), Gen.int(in: 0...1_000)
    ).array(of: 1...40).map { RandomDAG(steps: $0) }

    init(steps: [Step]) {
        var predecessors: [[Int]] = []
        for (i, step) in steps.enumerated() {
            let (kind, a, b, _, _) = step
            if i == 0 || kind == 0 {
                predecessors.append([])
            } else if kind >= 7, i >= 2, a % i != b % i {
                predecessors.append([a % i, b % i])
            } else {
                predecessors.append([a % i])
            }
        }
        self.predecessors = predecessors
        self.ids = predecessors.indices.map(Self.id)
        self.timestamps = steps.map { Double($0.3) }
        self.insertionKeys = steps.map { $0.4 }
    }

    var count: Int { predecessors.count }

    static func id(_ index: Int) -> Version.ID { Version.ID("v\(index)") }

    func version(_ index: Int) -> Version {
        let preds = predecessors[index].map { ids[$0] }
        return Version(
            id: ids[index],
            predecessors: preds.isEmpty ? nil : .init(idOfFirst: preds[0], idOfSecond: preds.count > 1 ? preds[1] : nil),
            timestamp: timestamps[index])
    }

    /// Versions added one at a time in creation order.
    func sequentialHistory() throws -> History {
        var history = History()
        for index in 0..<count { try history.add(version(index)) }
        return history
    }

    /// Versions bulk-loaded in the random insertion order.
    func shuffledHistory() throws -> History {
        let order = (0..<count).sorted { (insertionKeys[$0], $0) < (insertionKeys[$1], $1) }
        return try History(versions: order.map(version))
    }

    var description: String {
        (0..<count).map { i in
            let preds = predecessors[i].isEmpty ? "root" : predecessors[i].map { "v\($0)" }.joined(separator: "+")
            return "v\(i):\(preds)@\(Int(timestamps[i]))"
        }.joined(separator: " ")
    }
}

/// Brute-force ancestry of a ``RandomDAG`` (at most 64 versions), the oracle for the
/// history's answers: bit `j` of `inclusiveAncestors[i]` is set when `v<j>` is `v<i>` or an
/// ancestor of it.
struct AncestryOracle {
    let inclusiveAncestors: [UInt64]
    let successors: [[Int]]

    init(_ dag: RandomDAG) {
        var ancestors = [UInt64](repeating: 0, count: dag.count)
        var successors = [[Int]](repeating: [], count: dag.count)
        for i in 0..<dag.count {
            ancestors[i] = 1 << UInt64(i)
            for p in dag.predecessors[i] {
                ancestors[i] |= ancestors[p]
                successors[p].append(i)
            }
        }
        self.inclusiveAncestors = ancestors
        self.successors = successors
    }

    func isProperAncestor(_ a: Int, of b: Int) -> Bool {
        a != b && inclusiveAncestors[b] & (1 << UInt64(a)) != 0
    }

    /// The common ancestors of `a` and `b` (each counting as its own ancestor) that are not
    /// proper ancestors of another common ancestor.
    func bestCommonAncestors(_ a: Int, _ b: Int) -> [Int] {
        bestCommonAncestors(of: [a], and: [b])
    }

    /// The best common ancestors of two sets of versions.
    func bestCommonAncestors(of first: [Int], and second: [Int]) -> [Int] {
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
