import Foundation
import LLVSCore
import LLVSTesting

/// A random history of model edits on several replicas, for the model mode of the
/// convergence harness (`llvs-fuzz --models`): plain data, so a failing one is printed,
/// written as JSON and replayed. Versions are named by picks (modulo what the replica
/// holds), so removing an operation while shrinking never makes a history invalid.
public struct ModelFuzzHistory: Codable, Hashable, Sendable, CustomStringConvertible {
    /// How many replicas take part (at least 1).
    public var replicaCount: Int
    /// The operations, in order.
    public var operations: [ModelFuzzOperation]

    /// Creates a history.
    public init(replicaCount: Int, operations: [ModelFuzzOperation]) {
        self.replicaCount = max(1, replicaCount)
        self.operations = operations
    }

    /// One line per operation.
    public var description: String {
        (["ModelFuzzHistory(replicas: \(replicaCount))"] + operations.enumerated().map { "  \($0): \($1)" }).joined(separator: "\n")
    }

    /// The history as pretty-printed JSON with sorted keys.
    public var jsonString: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "<unencodable>"
    }

    /// The shape of random histories.
    public struct Shape: Sendable {
        /// The most replicas (2 or more).
        public var maximumReplicas: Int
        /// How many board and person instances edits pick from (small, so sides collide).
        public var modelCount: Int
        /// The most operations.
        public var maximumOperations: Int

        /// The default shape: up to 5 replicas, 3 instances of each model, 40 operations.
        public init(maximumReplicas: Int = 5, modelCount: Int = 3, maximumOperations: Int = 40) {
            self.maximumReplicas = max(2, maximumReplicas)
            self.modelCount = max(1, modelCount)
            self.maximumOperations = max(1, maximumOperations)
        }
    }

    /// A random history of `shape`: edits on branches, hand-made merges (criss-crosses),
    /// merges in either order and of heads, and exchanges.
    public static func random(shape: Shape = Shape(), using generator: inout SplitMix64) -> ModelFuzzHistory {
        func number(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &generator) }
        let replicas = number(2...shape.maximumReplicas)
        var operations: [ModelFuzzOperation] = []
        for step in 0..<number(1...shape.maximumOperations) {
            let replica = number(0...(replicas - 1))
            func edits() -> [ModelEdit] {
                (0..<number(1...4)).map { _ in
                    ModelEdit(model: number(0...(shape.modelCount - 1)), kind: number(0...ModelEdit.kinds - 1), argument: number(0...9))
                }
            }
            switch number(0...99) {
            case 0..<40: operations.append(.edit(replica: replica, base: number(0...1) == 0 ? nil : number(0...50), time: step, edits: edits()))
            case 40..<50: operations.append(.handMerge(replica: replica, first: number(0...50), second: number(0...50), time: step, edits: edits()))
            case 50..<65: operations.append(.merge(replica: replica, first: number(0...50), second: number(0...50)))
            case 65..<75: operations.append(.mergeHeads(replica: replica))
            default: operations.append(.exchange(from: number(0...(replicas - 1)), to: replica))
            }
        }
        return ModelFuzzHistory(replicaCount: replicas, operations: operations)
    }
}

/// One step of a ``ModelFuzzHistory``.
public enum ModelFuzzOperation: Codable, Hashable, Sendable, CustomStringConvertible {
    /// A version on `replica` with `edits`, on the picked version (or its newest head when
    /// nil, or a first version when it holds none), at `time`.
    case edit(replica: Int, base: Int?, time: Int, edits: [ModelEdit])
    /// A hand-made merge: a version whose predecessors are the two picked versions and
    /// whose models are the first's with `edits` (criss-cross histories come from these).
    case handMerge(replica: Int, first: Int, second: Int, time: Int, edits: [ModelEdit])
    /// `Store.merge` of the two picked versions with the model arbiter, then the other way round.
    case merge(replica: Int, first: Int, second: Int)
    /// `Store.mergeHeads` into the replica's newest head.
    case mergeHeads(replica: Int)
    /// Replica `to` receives every version of `from` it lacks.
    case exchange(from: Int, to: Int)

    public var description: String {
        switch self {
        case let .edit(replica, base, time, edits): return "r\(replica) edit on \(base.map { "#\($0)" } ?? "head") t\(time) \(edits)"
        case let .handMerge(replica, first, second, time, edits): return "r\(replica) hand-made merge of #\(first) and #\(second) t\(time) \(edits)"
        case let .merge(replica, first, second): return "r\(replica) merge #\(first) with #\(second), both ways"
        case let .mergeHeads(replica): return "r\(replica) merge heads"
        case let .exchange(from, to): return "r\(to) receives from r\(from)"
        }
    }
}

/// One edit of one model instance: `kind` names what changes (every strategy's property,
/// removing and inserting the model, a person), `argument` how.
public struct ModelEdit: Codable, Hashable, Sendable, CustomStringConvertible {
    /// The number of edit kinds.
    public static let kinds = 16

    /// The instance (`b<model>` boards, `p<model>` people).
    public var model: Int
    /// What changes.
    public var kind: Int
    /// How (0–9).
    public var argument: Int

    /// Creates an edit.
    public init(model: Int, kind: Int, argument: Int) {
        self.model = model
        self.kind = kind
        self.argument = argument
    }

    public var description: String { "m\(model):\(kind)/\(argument)" }
}
