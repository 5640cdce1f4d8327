import LLVSTesting
import PropertyBased

/// swift-property-based generators of random histories for the convergence properties.
///
/// Histories are drawn in their all-integer `RawOperation` form, so the library's
/// shrinker shortens the operation list and lowers every number towards simpler
/// operations; a failing property prints the shrunk `FuzzHistory` (one line per step)
/// and the `.fixedSeed("…")` that replays it.
public enum FuzzGen {
    /// One raw operation in the documented ranges.
    public static let rawOperation = zip(
        Gen.int(in: 0...(RawOperation.kinds - 1)), Gen.int(in: 0...(RawOperation.maximumReplicas - 1)),
        Gen.int(in: 0...RawOperation.maximumPick), Gen.int(in: 0...RawOperation.maximumPick), Gen.int(in: 0...3),
        zip(Gen.int(in: 0...(RawOperation.keyCount - 1)), Gen.int(in: 0...3)).array(of: 0...4)
    ).map { kind, replica, first, second, lag, edits in
        RawOperation(kind: kind, replica: replica, first: first, second: second, lag: lag,
                     edits: edits.map { (key: $0.0, action: $0.1) })
    }

    /// Histories of 1 ... `RawOperation.maximumReplicas` replicas (or exactly
    /// `replicas`) and `operations` operations of every kind.
    public static func histories(replicas: ClosedRange<Int> = 1...RawOperation.maximumReplicas,
                                 operations: ClosedRange<Int> = 1...30) -> Generator<FuzzHistory, some SendableSequenceType> {
        zip(Gen.int(in: replicas), Gen.int(in: 0...(ReferenceModel.ArbiterRule.allCases.count - 1)), rawOperation.array(of: operations)).map { replicas, rule, raw in
            FuzzHistory(replicaCount: replicas, finalRuleSeed: rule, raw: raw)
        }
    }
}
