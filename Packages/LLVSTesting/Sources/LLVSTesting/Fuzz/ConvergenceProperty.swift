/// The properties that every random history must satisfy (ARCHITECTURE.md, "Convergence
/// properties", lists them with the same numbers).
public enum ConvergenceProperty: Int, Codable, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    /// 1. Every merge result equals the reference model's three-way merge of its inputs.
    case mergesMatchModel = 1
    /// 2. After all replicas exchange everything and merge their heads with a
    ///    deterministic arbiter, all hold the same single head and the same values.
    case convergence
    /// 3. Merging with a descendant or ancestor fast-forwards; merging a version with
    ///    itself is a no-op. Neither writes a version.
    case fastForward
    /// 4. Heads are exactly the versions without successors; merge bases are the best
    ///    common ancestors; topological order respects every edge.
    case historyInvariants
    /// 5. Replaying `valueChanges(madeInVersionIdentifiedBy:)` of every version into an
    ///    empty store rebuilds identical values at every version.
    case replayRebuilds
    /// 6. Applying `valueChanges(madeBetween: a, and: b)` to a's values gives b's.
    case diffsConsistent
    /// 7. Reopening a store from its storage gives the same history and values.
    case reopenIdentical
    /// 8. One id, one record: every replica that holds a version holds the same record
    ///    (predecessors, timestamp, data size, metadata) and ships the same changes for it.
    case oneIdOneRecord

    /// A short name, such as `3-fast-forward`, used on the command line and in file names.
    public var name: String {
        switch self {
        case .mergesMatchModel: return "1-merges-match-model"
        case .convergence: return "2-convergence"
        case .fastForward: return "3-fast-forward"
        case .historyInvariants: return "4-history-invariants"
        case .replayRebuilds: return "5-replay-rebuilds"
        case .diffsConsistent: return "6-diffs-consistent"
        case .reopenIdentical: return "7-reopen-identical"
        case .oneIdOneRecord: return "8-one-id-one-record"
        }
    }

    public var description: String { "property \(name)" }

    /// The property named `name` (`3` or `3-fast-forward`), or nil.
    public init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.name == name || String($0.rawValue) == name })
        else { return nil }
        self = match
    }
}

/// A failed check: which property, at which step of the history (nil for the final
/// checks), and what differed.
public struct PropertyViolation: Error, Hashable, Sendable, CustomStringConvertible {
    /// The property that does not hold.
    public var property: ConvergenceProperty
    /// The step whose operation revealed it, or nil for a check after the last step.
    public var step: Int?
    /// What was expected and what was found.
    public var message: String
    /// For a violation that is an error a replica threw, the error's class
    /// (``ErrorClass/of(_:)``); nil for a property found not to hold.
    public var errorClass: String?

    /// Creates a violation; `errorClass` names the class of the error that caused it, if any.
    public init(_ property: ConvergenceProperty, step: Int?, _ message: String, errorClass: String? = nil) {
        self.property = property
        self.step = step
        self.message = message
        self.errorClass = errorClass
    }

    /// Whether `other` is the same failure: the same property, broken the same way (both
    /// by an error of the same class, or both by an observation). A shrinker keeps to the
    /// failure it started from with this, rather than drifting to another.
    public func hasSameCause(as other: PropertyViolation) -> Bool {
        property == other.property && errorClass == other.errorClass
    }

    public var description: String {
        "\(property) violated\(step.map { " at step \($0)" } ?? " after the last step"): \(message)"
    }
}

/// The class of an error, for telling failures apart: its type and, for an enum, its case
/// (`LLVSStore.StoreError.unknownPredecessor`), without the values it carries.
public enum ErrorClass {
    /// The class of `error`.
    public static func of(_ error: any Error) -> String {
        let type = String(reflecting: Swift.type(of: error))
        let mirror = Mirror(reflecting: error)
        guard mirror.displayStyle == .enum else { return type }
        if let label = mirror.children.first?.label { return "\(type).\(label)" }
        // A case without values has no child; its default description is its name.
        let name = String(describing: error)
        return name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) ? "\(type).\(name)" : type
    }
}
