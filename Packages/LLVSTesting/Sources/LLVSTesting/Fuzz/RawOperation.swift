/// The flat, all-integer form of a ``FuzzOperation`` that generators draw: any tuple of
/// numbers in the documented ranges maps to a valid operation, and numbers shrinking
/// towards 0 make simpler operations (kind 0 is a write on the first version, pick 0 is
/// a replica's first version). Property tests generate arrays of these with
/// swift-property-based, whose shrinker then shortens the array and lowers the numbers;
/// `llvs-fuzz` draws them from a seeded generator.
public struct RawOperation: Sendable {
    /// Which operation, 0 ... ``kinds``-1: writes (0–5, 0–4 on an earlier version, 5 a
    /// new root), hand-made merges (6–7), merges (8–10), a merge of heads (11),
    /// exchanges (12–14), a criss-cross ladder (15), a braid (16), an exchange from two
    /// concurrent senders (17), an out-of-order exchange (18) and a conflicting copy
    /// offered to the shared channel (19).
    public var kind: Int
    /// The replica (taken modulo the replica count); for an exchange, the receiver.
    public var replica: Int
    /// The first pick; for an exchange, the sender; for a ladder or braid, its size.
    public var first: Int
    /// The second pick; for an exchange, 0 sends everything and more sends up to a pick;
    /// for a concurrent exchange, the second sender; for a ladder or braid, its first key.
    public var second: Int
    /// How far the version's timestamp lags its step, 0 ... 3: equal timestamps are
    /// frequent, so the arbiters' tie-breaks are exercised.
    public var lag: Int
    /// `(key 0 ... keyCount-1, action 0 ... 3)` pairs; action 0 removes.
    public var edits: [(key: Int, action: Int)]

    /// The number of operation kinds.
    public static let kinds = 20
    /// The kinds that write a criss-cross shape (a ladder or a braid), which ``FuzzShape``
    /// draws at its own rate.
    public static let shapeKinds = 15...16
    /// Every other kind.
    public static let plainKinds = Array(0..<shapeKinds.lowerBound) + Array((shapeKinds.upperBound + 1)..<kinds)
    /// The size of the key space.
    public static let keyCount = 12
    /// The largest replica count histories use.
    public static let maximumReplicas = 8
    /// The most rungs of a ladder and levels of a braid in ordinary histories (``FuzzShape``
    /// sets others).
    public static let maximumRungs = 3
    /// The largest pick drawn.
    public static let maximumPick = 1_000

    /// Creates a raw operation.
    public init(kind: Int, replica: Int, first: Int, second: Int, lag: Int, edits: [(key: Int, action: Int)]) {
        (self.kind, self.replica, self.first, self.second, self.lag, self.edits) = (kind, replica, first, second, lag, edits)
    }

    /// The operation this raw form stands for at `step` of a history, with ladders and
    /// braids of at most `maximumRungs` rungs or levels.
    public func operation(at step: Int, maximumRungs: Int = RawOperation.maximumRungs, keyCount: Int = RawOperation.keyCount) -> FuzzOperation {
        let time = max(0, step - lag)
        let keyEdits = edits.map { KeyEdit(key: $0.key, action: $0.action) }
        let rules = ReferenceModel.ArbiterRule.allCases
        let rule = rules[Int((first.magnitude &+ second.magnitude) % UInt(rules.count))]
        let size = 1 + Int(first.magnitude % UInt(max(1, maximumRungs)))
        let key = Int(second.magnitude % UInt(max(1, keyCount)))
        switch kind {
        case 0...4: return .write(replica: replica, base: first, time: time, edits: keyEdits)
        case 5: return .write(replica: replica, base: nil, time: time, edits: keyEdits)
        case 6, 7: return .handMerge(replica: replica, first: first, second: second, time: time, edits: keyEdits)
        case 8...10: return .merge(replica: replica, first: first, second: second, rule: rule)
        case 11: return .mergeHeads(replica: replica, into: first, rule: rule)
        case 12...14: return .exchange(from: first, to: replica, upTo: second == 0 ? nil : second - 1)
        case 15: return .ladder(replica: replica, rungs: size, key: key)
        case 16: return .braid(replica: replica, levels: size, key: key)
        case 17: return .concurrentExchange(from: first, and: second, to: replica)
        case 18: return .outOfOrderExchange(from: first, to: replica)
        default: return .conflictingCopy(replica: replica, version: first)
        }
    }
}

/// The shape of random histories: how many replicas and keys, how long, and how deep the
/// ladders and braids go — what `llvs-fuzz`'s knobs set.
public struct FuzzShape: Sendable, Hashable {
    /// The most replicas a history has (at least 1).
    public var maximumReplicas: Int
    /// The size of the key space (at least 1).
    public var keyCount: Int
    /// The most operations a history has (at least 1).
    public var maximumOperations: Int
    /// The most rungs of a ladder or levels of a braid (at least 1).
    public var maximumRungs: Int
    /// How often, in percent of operations, a ladder or a braid is drawn (0 ... 100).
    public var shapePercent: Int

    /// A shape; the defaults are those of the property tests' histories.
    public init(maximumReplicas: Int = RawOperation.maximumReplicas, keyCount: Int = RawOperation.keyCount,
                maximumOperations: Int = 30, maximumRungs: Int = RawOperation.maximumRungs, shapePercent: Int = 2 * 100 / RawOperation.kinds) {
        self.maximumReplicas = max(1, maximumReplicas)
        self.keyCount = max(1, keyCount)
        self.maximumOperations = max(1, maximumOperations)
        self.maximumRungs = max(1, maximumRungs)
        self.shapePercent = min(100, max(0, shapePercent))
    }

    /// Deep histories for long runs: up to 8 replicas, 24 keys, 60 operations, ladders
    /// and braids of up to 200 rungs and levels, drawn in a fifth of the operations.
    public static let deep = FuzzShape(maximumReplicas: 8, keyCount: 24, maximumOperations: 60, maximumRungs: 200, shapePercent: 20)
}

extension FuzzHistory {
    /// The history made of raw operations, numbered by step.
    ///
    /// - Parameters:
    ///   - replicaCount: How many replicas take part.
    ///   - finalRuleSeed: Even for the most-recent-change rule, odd for most-recent-branch.
    ///   - raw: The operations.
    ///   - maximumRungs: The most rungs of a ladder or levels of a braid.
    ///   - keyCount: The size of the key space ladders and braids write in.
    public init(replicaCount: Int, finalRuleSeed: Int, raw: [RawOperation], maximumRungs: Int = RawOperation.maximumRungs,
                keyCount: Int = RawOperation.keyCount) {
        let rules = ReferenceModel.ArbiterRule.allCases
        self.init(replicaCount: replicaCount, finalRule: rules[Int(finalRuleSeed.magnitude % UInt(rules.count))],
                  operations: raw.enumerated().map { $1.operation(at: $0, maximumRungs: maximumRungs, keyCount: keyCount) })
    }

    /// A random history drawn from `generator`: 1 ... ``RawOperation/maximumReplicas``
    /// replicas and `operationCount` operations of every kind.
    public static func random(operationCount: ClosedRange<Int> = 1...30, using generator: inout some RandomNumberGenerator) -> FuzzHistory {
        random(shape: FuzzShape(maximumOperations: operationCount.upperBound), minimumOperations: operationCount.lowerBound, using: &generator)
    }

    /// A random history of `shape` drawn from `generator`.
    public static func random(shape: FuzzShape, minimumOperations: Int = 1, using generator: inout some RandomNumberGenerator) -> FuzzHistory {
        let count = Int.random(in: min(max(1, minimumOperations), shape.maximumOperations)...shape.maximumOperations, using: &generator)
        let raw = (0..<count).map { _ in
            let isShape = Int.random(in: 0..<100, using: &generator) < shape.shapePercent
            let plain = RawOperation.plainKinds
            return RawOperation(kind: isShape ? .random(in: RawOperation.shapeKinds, using: &generator)
                                    : plain[Int.random(in: 0..<plain.count, using: &generator)],
                                replica: .random(in: 0..<shape.maximumReplicas, using: &generator),
                                first: .random(in: 0...RawOperation.maximumPick, using: &generator),
                                second: .random(in: 0...RawOperation.maximumPick, using: &generator),
                                lag: .random(in: 0...3, using: &generator),
                                edits: (0..<Int.random(in: 0...4, using: &generator)).map { _ in
                                    (key: Int.random(in: 0..<shape.keyCount, using: &generator), action: Int.random(in: 0...3, using: &generator))
                                })
        }
        return FuzzHistory(replicaCount: .random(in: 1...shape.maximumReplicas, using: &generator),
                           finalRuleSeed: .random(in: 0..<ReferenceModel.ArbiterRule.allCases.count, using: &generator), raw: raw,
                           maximumRungs: shape.maximumRungs, keyCount: shape.keyCount)
    }
}
