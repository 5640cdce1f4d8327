import LLVSCore
import LLVSMerge

extension Store {
    /// Which heads ``mergeHeads(into:resolvingWith:headSelection:metadata:)`` merges.
    public enum MergeHeadSelection: Sendable, Hashable {
        /// Every head.
        case all
        /// The heads that are on no named branch (the default).
        case allExceptBranches
        /// The heads on no named branch, and those on these branches.
        case allUnbranchedAndSpecificBranches([Branch])
        /// Only the heads on these branches.
        case specificBranchesOnly([Branch])

        /// Whether a head recorded on `branch` (nil: on no branch) is selected.
        public func includes(_ branch: Branch?) -> Bool {
            switch self {
            case .all: return true
            case .allExceptBranches: return branch == nil
            case .allUnbranchedAndSpecificBranches(let branches): return branch == nil || branches.contains { $0 == branch }
            case .specificBranchesOnly(let branches): return branches.contains { $0 == branch }
            }
        }
    }

    /// Merges two versions and returns the result.
    ///
    /// - If they are the same version, or one is an ancestor of the other, nothing is
    ///   written: the descendant is returned (a fast-forward).
    /// - If they have one best common ancestor, a three-way merge against it.
    /// - If they have several (a criss-cross history), the ancestors are first merged, with
    ///   the same arbiter and recursively, into a virtual ancestor that is never stored; the
    ///   three-way merge is against it (the rule of Git's recursive strategy).
    /// - If they have none, a two-way merge: everything counts as inserted.
    ///
    /// Every conflicting fork must be resolved by `arbiter`; changes made on only one side
    /// are carried over automatically. The merge version is based on `first`; its identifier
    /// is derived from its content and its timestamp is the later predecessor's, so replicas
    /// merging the same versions with a deterministic arbiter make the identical version.
    ///
    /// - Throws: ``StoreError/unresolvedConflict(valueId:fork:)`` when the arbiter leaves a
    ///   conflict unresolved, ``StoreError/unknownVersion(_:)``, what the arbiter throws, or a
    ///   storage error. Nothing is written for a failed merge.
    @discardableResult
    public func merge(version first: Version.ID, with second: Version.ID, resolvingWith arbiter: some MergeArbiter,
                      metadata: Version.Metadata = [:]) throws -> Version {
        if let fastForward = try fastForward(first, second) { return fastForward }
        let bases = try queryHistory { try $0.mergeBases(first, second) }
        return try MergeOperation(store: self, arbiter: arbiter).merge(try required(first), try required(second), bases: bases, metadata: metadata)
    }

    /// Merges two versions (the form without the first label).
    ///
    /// - Throws: See ``merge(version:with:resolvingWith:metadata:)``.
    @discardableResult
    public func merge(_ first: Version.ID, with second: Version.ID, resolvingWith arbiter: some MergeArbiter,
                      metadata: Version.Metadata = [:]) throws -> Version {
        try merge(version: first, with: second, resolvingWith: arbiter, metadata: metadata)
    }

    /// Like ``merge(version:with:resolvingWith:metadata:)``, but refuses versions that have
    /// no common ancestor.
    ///
    /// - Throws: ``StoreError/noCommonAncestor(_:_:)``, or the merge's errors.
    @discardableResult
    public func mergeRelated(version first: Version.ID, with second: Version.ID, resolvingWith arbiter: some MergeArbiter,
                             metadata: Version.Metadata = [:]) throws -> Version {
        if let fastForward = try fastForward(first, second) { return fastForward }
        let bases = try queryHistory { try $0.mergeBases(first, second) }
        guard !bases.isEmpty else { throw StoreError.noCommonAncestor(first, second) }
        return try MergeOperation(store: self, arbiter: arbiter).merge(try required(first), try required(second), bases: bases, metadata: metadata)
    }

    /// A two-way merge that ignores any common ancestry (an empty ancestor: every value is
    /// inserted on its side). Still fast-forwards when one version descends from the other.
    ///
    /// - Throws: The merge's errors.
    @discardableResult
    public func mergeUnrelated(version first: Version.ID, with second: Version.ID, resolvingWith arbiter: some MergeArbiter,
                               metadata: Version.Metadata = [:]) throws -> Version {
        if let fastForward = try fastForward(first, second) { return fastForward }
        return try MergeOperation(store: self, arbiter: arbiter).merge(try required(first), try required(second), bases: [], metadata: metadata)
    }

    /// Merges the selected heads and `version` into one version, in a canonical order:
    /// versions that are ancestors of others are dropped, the rest are sorted by identifier
    /// and merged left to right. The order does not depend on `version`, so replicas holding
    /// the same heads reach the same merge version.
    ///
    /// - Returns: The merged version, or nil if `version` already is the result.
    /// - Throws: The merge's errors.
    @discardableResult
    public func mergeHeads(into version: Version.ID, resolvingWith arbiter: some MergeArbiter,
                           headSelection: MergeHeadSelection = .allExceptBranches,
                           metadata: Version.Metadata = [:]) throws -> Version? {
        _ = try required(version)
        let candidates: [Version.ID] = try queryHistory { history in
            let heads = history.headIdentifiers.filter { headSelection.includes(history.version(identifiedBy: $0)?.branch) }
            let all = Set(heads).union([version])
            return try all.filter { id in try !all.contains { other in try other != id && history.isAncestor(id, of: other) } }.sorted()
        }
        guard var merged = candidates.first else { return nil }
        for next in candidates.dropFirst() {
            merged = try merge(version: merged, with: next, resolvingWith: arbiter, metadata: metadata).id
        }
        return merged == version ? nil : self.version(identifiedBy: merged)
    }

    /// The version to return without merging, if one descends from (or is) the other.
    private func fastForward(_ first: Version.ID, _ second: Version.ID) throws -> Version? {
        let firstVersion = try required(first), secondVersion = try required(second)
        if first == second { return firstVersion }
        return try queryHistory { history in
            if try history.isAncestor(first, of: second) { return secondVersion }
            if try history.isAncestor(second, of: first) { return firstVersion }
            return nil
        }
    }

    /// The version record of `id`.
    ///
    /// - Throws: ``StoreError/unknownVersion(_:)``.
    func required(_ id: Version.ID) throws(StoreError) -> Version {
        guard let version = version(identifiedBy: id) else { throw .unknownVersion(id) }
        return version
    }
}
