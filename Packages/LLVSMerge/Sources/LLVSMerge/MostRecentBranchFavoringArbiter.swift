import LLVSCore

/// Resolves every conflict in favour of the more recent branch: the merged version with the
/// later timestamp, or — for equal timestamps — the greater identifier, so every replica
/// favours the same branch whichever order it merges in.
///
/// For `.removedAndUpdated`, the favoured branch's choice is kept (its removal, or its
/// update); for `.twiceInserted` and `.twiceUpdated`, the favoured branch's value.
public final class MostRecentBranchFavoringArbiter: MergeArbiter, Sendable {
    /// Creates the arbiter.
    public init() {}

    /// The changes that resolve `merge`'s conflicts in favour of the more recent branch.
    ///
    /// - Throws: ``MergeArbiterError`` when a value a fork names is missing.
    public func changes(toResolve merge: Merge, in store: AnyMergeContext) throws -> [Value.Change] {
        let favoredBranch: Value.Fork.Branch = isMoreRecent(merge.versions.first, than: merge.versions.second) ? .first : .second
        let favoredVersion = merge.version(on: favoredBranch)
        var changes: [Value.Change] = []
        for (valueId, fork) in merge.conflictingForks {
            switch fork {
            case .removedAndUpdated(let removedOn) where removedOn == favoredBranch:
                changes.append(.preserveRemoval(valueId))
            case .removedAndUpdated, .twiceInserted, .twiceUpdated:
                changes.append(.preserve(try store.requiredReference(valueId, at: favoredVersion.id)))
            case .inserted, .removed, .updated, .twiceRemoved:
                break
            }
        }
        return changes
    }
}
