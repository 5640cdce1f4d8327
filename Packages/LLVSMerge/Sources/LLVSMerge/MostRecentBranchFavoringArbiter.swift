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
        return try merge.changesFavoring(favoredBranch, in: store)
    }
}
