import LLVSCore
import PropertyBased

/// A random version DAG for property tests of anything that keeps a history, decoded from
/// generated steps so that any shrunk list of steps is still a valid DAG; `AncestryOracle`
/// answers ancestry questions about it by brute force.
///
/// Step `i` makes version `v<i>`: a new root (always for `i == 0`, else with probability
/// 1/10, giving unrelated roots), a child of a random earlier version, or a merge of two
/// random earlier versions (3/10). Timestamps come from a small range so that ties, which
/// must be broken deterministically, are frequent. `insertionKeys` give a random insertion
/// order for order-independence checks.
public struct RandomDAG: CustomStringConvertible, Sendable {
    /// `(kind 0…9, first parent seed, second parent seed, timestamp 0…6, insertion key)`.
    public typealias Step = (Int, Int, Int, Int, Int)

    /// The predecessors of each version, as indices of earlier versions.
    public let predecessors: [[Int]]
    /// The identifier of each version, `v<index>`.
    public let ids: [Version.ID]
    /// The timestamp of each version, 0 ... 6.
    public let timestamps: [Double]
    /// Random keys giving an insertion order other than creation order.
    public let insertionKeys: [Int]

    /// DAGs of 1 ... 40 versions.
    public static let generator = zip(
        Gen.int(in: 0...9), Gen.int(in: 0...1_000), Gen.int(in: 0...1_000), Gen.int(in: 0...6), Gen.int(in: 0...1_000)
    ).array(of: 1...40).map { RandomDAG(steps: $0) }

    /// The DAG the steps describe.
    public init(steps: [Step]) {
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

    /// The number of versions.
    public var count: Int { predecessors.count }

    /// The identifier of version `index`.
    public static func id(_ index: Int) -> Version.ID { Version.ID("v\(index)") }

    /// Version `index` with its predecessors and timestamp.
    public func version(_ index: Int) -> Version {
        let preds = predecessors[index].map { ids[$0] }
        return Version(
            id: ids[index],
            predecessors: preds.isEmpty ? nil : .init(idOfFirst: preds[0], idOfSecond: preds.count > 1 ? preds[1] : nil),
            timestamp: timestamps[index])
    }

    /// `v0:root@3 v1:v0@2 v2:v0+v1@2 …`.
    public var description: String {
        (0..<count).map { i in
            let preds = predecessors[i].isEmpty ? "root" : predecessors[i].map { "v\($0)" }.joined(separator: "+")
            return "v\(i):\(preds)@\(Int(timestamps[i]))"
        }.joined(separator: " ")
    }
}
