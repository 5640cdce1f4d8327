import Foundation
import LLVSCore
import LLVSStore

extension StoreCoordinator {
    /// Merges the selected heads into the current version with ``mergeArbiter`` and moves
    /// the current version to the result; fast-forwards (no new version) when the current
    /// version is an ancestor of the single resulting head. Named branches are left out by
    /// default. Save pending edits first. Errors are not thrown but recorded in
    /// ``lastMergeError`` (use ``performMerge(metadata:headSelection:)`` to have them thrown).
    ///
    /// - Parameters:
    ///   - metadata: The merge version's metadata; none when nil. A merge never takes
    ///     ``defaultMetadataForNewVersions``: that is a replica's own (a device name, say),
    ///     and replicas whose merges differed in it would never settle on one head.
    ///   - headSelection: Which heads to merge (`.allExceptBranches` by default).
    /// - Returns: True if the current version changed.
    @discardableResult
    public func merge(metadata: Version.Metadata? = nil, headSelection: Store.MergeHeadSelection = .allExceptBranches) -> Bool {
        do {
            let changed = try performMerge(metadata: metadata, headSelection: headSelection)
            state.withLock { $0.lastMergeError = nil }
            return changed
        } catch {
            state.withLock { $0.lastMergeError = error }
            return false
        }
    }

    /// Like ``merge(metadata:headSelection:)``, but throws instead of recording the error.
    ///
    /// - Returns: True if the current version changed.
    /// - Throws: The store's merge errors (`StoreError.unresolvedConflict` when the arbiter
    ///   leaves a conflict unresolved, storage errors) or what the arbiter throws; the
    ///   current version is unchanged then.
    @discardableResult
    public func performMerge(metadata: Version.Metadata? = nil, headSelection: Store.MergeHeadSelection = .allExceptBranches) throws -> Bool {
        try writes.withLock {
            let (current, arbiter) = state.withLock { ($0.persisted.currentVersion, $0.mergeArbiter) }
            guard let merged = try store.mergeHeads(into: current, resolvingWith: arbiter, headSelection: headSelection,
                                                    metadata: metadata ?? [:]) else { return false }
            moveCurrentVersion(to: merged.id)
            return merged.id != current
        }
    }
}
