import LLVSCore

/// Resolves each conflict on its own, in favour of the most recent change: of two values,
/// the one stored by the version with the later timestamp (the greater version identifier
/// for equal timestamps). An update always wins over a removal, whatever their times.
public final class MostRecentChangeFavoringArbiter: MergeArbiter, Sendable {
    /// Creates the arbiter.
    public init() {}

    /// The changes that resolve each of `merge`'s conflicts in favour of the newer change.
    ///
    /// - Throws: ``MergeArbiterError`` when a value or version a fork needs is missing.
    public func changes(toResolve merge: Merge, in store: AnyMergeContext) throws -> [Value.Change] {
        var changes: [Value.Change] = []
        for (valueId, fork) in merge.conflictingForks {
            switch fork {
            case .removedAndUpdated(let removedOn):
                let updated = merge.version(on: removedOn.opposite)
                changes.append(.preserve(try store.requiredReference(valueId, at: updated.id)))
            case .twiceInserted, .twiceUpdated:
                let first = try store.requiredReference(valueId, at: merge.versions.first.id)
                let second = try store.requiredReference(valueId, at: merge.versions.second.id)
                let firstStoredIn = try store.requiredVersion(first.storedVersionId)
                let secondStoredIn = try store.requiredVersion(second.storedVersionId)
                changes.append(.preserve(isMoreRecent(secondStoredIn, than: firstStoredIn) ? second : first))
            case .inserted, .removed, .updated, .twiceRemoved:
                break
            }
        }
        return changes
    }
}
