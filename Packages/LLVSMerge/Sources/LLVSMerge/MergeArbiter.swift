import LLVSCore

/// Decides how a merge resolves its conflicts.
///
/// The store calls ``changes(toResolve:in:)`` with the ``Merge`` and a context to read
/// from. The returned changes must include one for every conflicting fork (a change naming
/// that value identifier); they may also override non-conflicting forks or change other
/// values. Changes of the second branch that the arbiter does not mention are carried into
/// the merge automatically.
///
/// The context type is the arbiter's choice: write `in store: Store` (as the reference
/// LLVS documentation does) to read through the concrete store, or take
/// ``AnyMergeContext`` (the default) to depend on nothing but this package:
///
/// ```swift
/// public class MostRecentBranchFavoringArbiter: MergeArbiter {
///     public func changes(toResolve merge: Merge, in store: Store) throws -> [Value.Change] { … }
/// }
/// ```
///
/// For merges to converge across replicas, an arbiter must be deterministic: the same
/// merge and the same stored data must give the same changes.
public protocol MergeArbiter {
    /// What the arbiter reads from: `Store`, ``AnyMergeContext``, or another context type
    /// the store can provide.
    associatedtype Context: MergeContext = AnyMergeContext

    /// The changes that resolve `merge`.
    ///
    /// - Throws: Any error; the merge then fails and nothing is written.
    func changes(toResolve merge: Merge, in store: Context) throws -> [Value.Change]
}

extension MergeArbiter where Context == AnyMergeContext {
    /// The changes that resolve `merge`, read through any context: lets a custom arbiter
    /// that reads `in store: Store` hand its standard cases to a built-in arbiter, as in
    /// `try MostRecentChangeFavoringArbiter().changes(toResolve: merge, in: store)`.
    ///
    /// - Throws: Whatever ``changes(toResolve:in:)`` throws for the wrapped context.
    public func changes(toResolve merge: Merge, in context: some MergeContext) throws -> [Value.Change] {
        try changes(toResolve: merge, in: AnyMergeContext(context))
    }
}

/// Why a built-in arbiter could not resolve a merge.
public enum MergeArbiterError: Error, Hashable, CustomStringConvertible {
    /// A fork names `valueId`, but the context has no such value at `versionId`.
    case missingValue(Value.ID, at: Version.ID)
    /// The context does not know the version `versionId`.
    case missingVersion(Version.ID)

    /// A sentence naming the value and version.
    public var description: String {
        switch self {
        case let .missingValue(valueId, versionId):
            return "The merge names value \(valueId), which is absent at version \(versionId)."
        case .missingVersion(let versionId):
            return "Version \(versionId) is unknown to the merge context."
        }
    }
}

extension MergeContext {
    /// The reference of a value a fork says is present at `versionId`.
    ///
    /// - Throws: ``MergeArbiterError/missingValue(_:at:)`` when it is absent.
    func requiredReference(_ valueId: Value.ID, at versionId: Version.ID) throws -> Value.Reference {
        guard let reference = try valueReference(valueId, at: versionId) else {
            throw MergeArbiterError.missingValue(valueId, at: versionId)
        }
        return reference
    }

    /// The value a fork says is present at `versionId`, with its data.
    ///
    /// - Throws: ``MergeArbiterError/missingValue(_:at:)`` when it is absent.
    func requiredValue(_ valueId: Value.ID, at versionId: Version.ID) throws -> Value {
        guard let value = try value(valueId, at: versionId) else { throw MergeArbiterError.missingValue(valueId, at: versionId) }
        return value
    }

    /// The version record of `versionId`.
    ///
    /// - Throws: ``MergeArbiterError/missingVersion(_:)`` when it is unknown.
    func requiredVersion(_ versionId: Version.ID) throws -> Version {
        guard let version = try version(identifiedBy: versionId) else { throw MergeArbiterError.missingVersion(versionId) }
        return version
    }
}

/// Orders versions by timestamp, then identifier: the recency every built-in tie-break uses.
func isMoreRecent(_ a: Version, than b: Version) -> Bool {
    a.timestamp != b.timestamp ? a.timestamp > b.timestamp : a.id > b.id
}
