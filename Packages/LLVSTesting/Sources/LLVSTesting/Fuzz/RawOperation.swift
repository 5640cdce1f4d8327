/// The flat, all-integer form of a ``FuzzOperation`` that generators draw: any tuple of
/// numbers in the documented ranges maps to a valid operation, and numbers shrinking
/// towards 0 make simpler operations (kind 0 is a write on the first version, pick 0 is
/// a replica's first version). Property tests generate arrays of these with
/// swift-property-based, whose shrinker then shortens the array and lowers the numbers;
/// `llvs-fuzz` draws them from a seeded generator.
public struct RawOperation: Sendable {
    /// Which operation, 0 ... ``kinds``-1: writes (0–5, 0–4 on an earlier version, 5 a
    /// new root), hand-made merges (6–7), merges (8–10), a merge of heads (11) and
    /// exchanges (12–14).
    public var kind: Int
    /// The replica (taken modulo the replica count); for an exchange, the receiver.
    public var replica: Int
    /// The first pick; for an exchange, the sender.
    public var first: Int
    /// The second pick; for an exchange, 0 sends everything and more sends up to a pick.
    public var second: Int
    /// How far the version's timestamp lags its step, 0 ... 3: equal timestamps are
    /// frequent, so the arbiters' tie-breaks are exercised.
    public var lag: Int
    /// `(key 0 ... keyCount-1, action 0 ... 3)` pairs; action 0 removes.
    public var edits: [(key: Int, action: Int)]

    /// The number of operation kinds.
    public static let kinds = 15
    /// The size of the key space.
    public static let keyCount = 6
    /// The largest replica count histories use.
    public static let maximumReplicas = 4
    /// The largest pick drawn.
    public static let maximumPick = 1_000

    /// Creates a raw operation.
    public init(kind: Int, replica: Int, first: Int, second: Int, lag: Int, edits: [(key: Int, action: Int)]) {
        (self.kind, self.replica, self.first, self.second, self.lag, self.edits) = (kind, replica, first, second, lag, edits)
    }

    /// The operation this raw form stands for at `step` of a history.
    public func operation(at step: Int) -> FuzzOperation {
        let time = max(0, step - lag)
        let keyEdits = edits.map { KeyEdit(key: $0.key, action: $0.action) }
        let rule: ReferenceModel.ArbiterRule = (first + second) % 2 == 0 ? .mostRecentChange : .mostRecentBranch
        switch kind {
        case 0...4: return .write(replica: replica, base: first, time: time, edits: keyEdits)
        case 5: return .write(replica: replica, base: nil, time: time, edits: keyEdits)
        case 6, 7: return .handMerge(replica: replica, first: first, second: second, time: time, edits: keyEdits)
        case 8...10: return .merge(replica: replica, first: first, second: second, rule: rule)
        case 11: return .mergeHeads(replica: replica, into: first, rule: rule)
        default: return .exchange(from: first, to: replica, upTo: second == 0 ? nil : second - 1)
        }
    }
}

extension FuzzHistory {
    /// The history made of raw operations, numbered by step.
    ///
    /// - Parameters:
    ///   - replicaCount: How many replicas take part.
    ///   - finalRuleSeed: Even for the most-recent-change rule, odd for most-recent-branch.
    ///   - raw: The operations.
    public init(replicaCount: Int, finalRuleSeed: Int, raw: [RawOperation]) {
        self.init(replicaCount: replicaCount, finalRule: finalRuleSeed % 2 == 0 ? .mostRecentChange : .mostRecentBranch,
                  operations: raw.enumerated().map { $1.operation(at: $0) })
    }

    /// A random history drawn from `generator`: 1 ... ``RawOperation/maximumReplicas``
    /// replicas and `operationCount` operations of every kind.
    public static func random(operationCount: ClosedRange<Int> = 1...30, using generator: inout some RandomNumberGenerator) -> FuzzHistory {
        let raw = (0..<Int.random(in: operationCount, using: &generator)).map { _ in
            RawOperation(kind: .random(in: 0..<RawOperation.kinds, using: &generator),
                         replica: .random(in: 0..<RawOperation.maximumReplicas, using: &generator),
                         first: .random(in: 0...RawOperation.maximumPick, using: &generator),
                         second: .random(in: 0...RawOperation.maximumPick, using: &generator),
                         lag: .random(in: 0...3, using: &generator),
                         edits: (0..<Int.random(in: 0...4, using: &generator)).map { _ in
                             (key: Int.random(in: 0..<RawOperation.keyCount, using: &generator), action: Int.random(in: 0...3, using: &generator))
                         })
        }
        return FuzzHistory(replicaCount: .random(in: 1...RawOperation.maximumReplicas, using: &generator),
                           finalRuleSeed: .random(in: 0...1, using: &generator), raw: raw)
    }
}
