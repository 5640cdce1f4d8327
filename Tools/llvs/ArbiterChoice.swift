import ArgumentParser
import LLVS

/// The arbiters `llvs merge --arbiter` and `llvs sync --arbiter` offer.
enum ArbiterChoice: String, CaseIterable, ExpressibleByArgument, Sendable {
    /// Fail with the list of conflicts (exit status 5) — the default.
    case none
    /// `MostRecentChangeFavoringArbiter`: each conflict goes to the newer change.
    case mostRecentChange = "most-recent-change"
    /// `MostRecentBranchFavoringArbiter`: every conflict goes to the newer branch.
    case mostRecentBranch = "most-recent-branch"
    /// `BranchFavoringArbiter(favoring: .first)`: the current version's side wins.
    case ours
    /// `BranchFavoringArbiter(favoring: .second)`: the other side wins.
    case theirs

    static var allValueStrings: [String] { allCases.map(\.rawValue) }

    /// Merges the selected heads into `version` with this arbiter; `others` are the selected
    /// heads `version` does not contain (``StoreDirectory/headsToMerge(into:selection:)``).
    ///
    /// The symmetric arbiters merge in the store's canonical order (identifier order, the
    /// same on every replica, so replicas converge); `ours` and `theirs` merge `version`
    /// with each of `others` in turn, so "ours" is always the `HEAD` side.
    func mergeHeads(of directory: StoreDirectory, into version: Version.ID, others: [Version.ID],
                    headSelection: Store.MergeHeadSelection, metadata: Version.Metadata) throws -> Version? {
        let store = directory.store
        // The store's mergeHeads merges every selected head; with abandoned heads in the
        // store (PendingCommit.swift), HEAD merges only the others, in turn.
        if store.queryHistory({ !$0.headIdentifiers.isDisjoint(with: directory.abandonedVersions) }) && self != .ours && self != .theirs {
            switch self {
            case .none: return try Self.mergeInTurn(directory, into: version, others: others, arbiter: RefusingArbiter(), metadata: metadata)
            case .mostRecentChange:
                return try Self.mergeInTurn(directory, into: version, others: others, arbiter: MostRecentChangeFavoringArbiter(), metadata: metadata)
            case .mostRecentBranch:
                return try Self.mergeInTurn(directory, into: version, others: others, arbiter: MostRecentBranchFavoringArbiter(), metadata: metadata)
            case .ours, .theirs: break
            }
        }
        switch self {
        case .none: return try store.mergeHeads(into: version, resolvingWith: RefusingArbiter(), headSelection: headSelection, metadata: metadata)
        case .mostRecentChange: return try store.mergeHeads(into: version, resolvingWith: MostRecentChangeFavoringArbiter(), headSelection: headSelection, metadata: metadata)
        case .mostRecentBranch: return try store.mergeHeads(into: version, resolvingWith: MostRecentBranchFavoringArbiter(), headSelection: headSelection, metadata: metadata)
        case .ours, .theirs:
            return try Self.mergeInTurn(directory, into: version, others: others,
                                        arbiter: BranchFavoringArbiter(favoring: self == .ours ? .first : .second), metadata: metadata)
        }
    }

    /// Merges `version` with each of `others` in turn, so the first side of every merge is
    /// the `HEAD` side; returns the result, or nil when there was nothing to merge.
    static func mergeInTurn(_ directory: StoreDirectory, into version: Version.ID, others: [Version.ID],
                            arbiter: some MergeArbiter, metadata: Version.Metadata) throws -> Version? {
        let store = directory.store
        var merged = version
        for other in others {
            merged = try store.merge(version: merged, with: other, resolvingWith: arbiter, metadata: metadata).id
        }
        return merged == version ? nil : store.version(identifiedBy: merged)
    }
}

/// An arbiter that resolves nothing: a merge with conflicts fails with all of them listed.
struct RefusingArbiter: MergeArbiter {
    /// The conflicts of a merge attempted without an arbiter.
    struct Conflicts: Error {
        var conflicts: [MergeConflict]
    }

    func changes(toResolve merge: Merge, in store: AnyMergeContext) throws -> [Value.Change] {
        let conflicts = merge.conflictingForks.map { MergeConflict(valueId: $0.valueId, kind: $0.fork.kind) }
        if conflicts.isEmpty { return [] }
        throw Conflicts(conflicts: conflicts)
    }
}
