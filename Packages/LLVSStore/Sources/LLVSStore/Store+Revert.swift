import LLVSCore

extension Store {
    /// Makes a version, based on `base`, that undoes the changes version `versionId` made —
    /// the "revert commit for undo" of the LLVS README, as `git revert` does.
    ///
    /// The changes undone are those from `predecessor` to `versionId`: by default the
    /// version's first predecessor. For a merge that undoes what the merge brought in from
    /// its other predecessor, as `git revert -m 1` does; pass the second predecessor to undo
    /// the first's side instead (a merge's predecessors are in identifier order, SPEC.md
    /// section 9). For a first version (no predecessor) every value it stored is removed.
    ///
    /// Each value the version changed goes back, in the new version, to its data at
    /// `predecessor` (removed when it was absent there). A value whose data at `base` is
    /// already that is left alone; a value whose data at `base` differs from both its data
    /// before and after `versionId` was changed again later, and is a conflict: nothing is
    /// written then. `base` is usually a descendant of `versionId` (the current head).
    ///
    /// - Parameters:
    ///   - versionId: The version whose changes to undo.
    ///   - base: The version the new version is based on.
    ///   - predecessor: The predecessor of `versionId` to undo relative to (default: its first).
    ///   - metadata: The new version's metadata.
    /// - Returns: The new version, or nil when there is nothing to undo (`versionId` changed
    ///   nothing, or every value it changed is already back at `base`).
    /// - Throws: ``StoreError/unknownVersion(_:)`` for `versionId` or `base`,
    ///   ``StoreError/notAPredecessor(_:of:)`` for a `predecessor` that is not one,
    ///   ``StoreError/revertConflicts(_:valueIds:)`` naming the values changed again since,
    ///   or a storage error. Nothing is written when it throws.
    @discardableResult
    public func revert(_ versionId: Version.ID, basedOn base: Version.ID, relativeTo predecessor: Version.ID? = nil,
                       metadata: Version.Metadata = [:]) throws -> Version? {
        let version = try required(versionId)
        _ = try required(base)
        let before: Version.ID?
        if let predecessor {
            guard version.predecessorIds.contains(predecessor) else { throw StoreError.notAPredecessor(predecessor, of: versionId) }
            before = predecessor
        } else {
            before = version.predecessors?.idOfFirst
        }
        let changedIds: [Value.ID]
        if let before {
            changedIds = try valueChanges(madeBetween: before, and: versionId).map(\.valueId)
        } else {
            changedIds = try valueReferences(at: versionId).map(\.valueId)
        }
        var changes: [Value.Change] = []
        var conflicts: [Value.ID] = []
        for valueId in changedIds.sorted() {
            let old = try before.flatMap { try value(id: valueId, at: $0)?.data }
            let new = try value(id: valueId, at: versionId)?.data
            let current = try value(id: valueId, at: base)?.data
            if current == old { continue }
            guard current == new else {
                conflicts.append(valueId)
                continue
            }
            switch (old, current) {
            case (nil, _): changes.append(.remove(valueId))
            case (let old?, nil): changes.append(.insert(Value(id: valueId, data: old)))
            case (let old?, _?): changes.append(.update(Value(id: valueId, data: old)))
            }
        }
        if !conflicts.isEmpty { throw StoreError.revertConflicts(versionId, valueIds: conflicts) }
        if changes.isEmpty { return nil }
        return try makeVersion(basedOnPredecessor: base, storing: changes, metadata: metadata)
    }
}
