import LLVSCore

/// Resolves every conflict in favour of one side of the merge, whatever the timestamps:
/// `.first` keeps the version merged into (Git's "ours"), `.second` the version merged in
/// ("theirs").
///
/// For `.removedAndUpdated`, the favoured branch's choice is kept (its removal, or its
/// update); for `.twiceInserted` and `.twiceUpdated`, the favoured branch's value. Unlike
/// ``MostRecentBranchFavoringArbiter`` the result depends on which version is merged into
/// which, so replicas that merge the same heads in different orders may disagree.
public final class BranchFavoringArbiter: MergeArbiter, Sendable {
    /// The side whose changes win conflicts.
    public let favoredBranch: Value.Fork.Branch

    /// Creates an arbiter that favours `branch`.
    public init(favoring branch: Value.Fork.Branch) {
        self.favoredBranch = branch
    }

    /// The changes that resolve `merge`'s conflicts in favour of ``favoredBranch``.
    ///
    /// - Throws: ``MergeArbiterError`` when a value a fork names is missing.
    public func changes(toResolve merge: Merge, in store: AnyMergeContext) throws -> [Value.Change] {
        try merge.changesFavoring(favoredBranch, in: store)
    }
}

extension Merge {
    /// The changes that resolve every conflicting fork with `favoredBranch`'s side.
    func changesFavoring(_ favoredBranch: Value.Fork.Branch, in store: AnyMergeContext) throws -> [Value.Change] {
        let favoredVersion = version(on: favoredBranch)
        var changes: [Value.Change] = []
        for (valueId, fork) in conflictingForks {
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
