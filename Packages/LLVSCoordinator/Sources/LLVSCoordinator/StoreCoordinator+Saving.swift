import Foundation
import LLVSCore
import LLVSStore

extension StoreCoordinator {
    /// Makes a version that applies `changes`, and returns it.
    ///
    /// Without a branch the version is based on ``currentVersion`` and becomes the new
    /// current version. With a branch it is recorded on that branch (in its metadata) and
    /// based on the branch's head (or on the current version when the branch has no head
    /// yet); the current version does not move, so work on a branch stays out of the app's
    /// view until merged (``merge(metadata:headSelection:)`` with
    /// `.allUnbranchedAndSpecificBranches([branch])`). Nothing is saved (and nil returned)
    /// when there are no changes and no metadata.
    ///
    /// - Parameters:
    ///   - changes: The changes to make.
    ///   - branch: The named branch to save on, or nil for the main line.
    ///   - metadata: The version's metadata; ``defaultMetadataForNewVersions`` when nil.
    /// - Throws: The store's `StoreError` (for example
    ///   `conflictingChanges(valueId:)` when one value is changed twice), or
    ///   `Version.MetadataValue.ConversionError` if the branch cannot be encoded. Nothing is
    ///   saved then.
    @discardableResult
    public func save(_ changes: [Value.Change], in branch: Branch? = nil, metadata: Version.Metadata? = nil) throws -> Version? {
        guard !changes.isEmpty || metadata != nil else { return nil }
        return try writes.withLock {
            var versionMetadata = metadata ?? defaultMetadataForNewVersions
            if let branch { versionMetadata[.branch] = try Version.MetadataValue(branch) }
            let base = versionForBranchOrCurrentHead(for: branch)
            let version = try store.makeVersion(basedOnPredecessor: base, storing: changes, metadata: versionMetadata)
            if branch == nil { moveCurrentVersion(to: version.id) }
            return version
        }
    }

    /// Makes a version whose changes are computed from the version it is based on, which
    /// no save or merge can move meanwhile: the seam for layers that read before they write
    /// (the model layer keeps the stored fields a newer app wrote, read from that version).
    ///
    /// `makeChanges` gets the base version (``versionForBranchOrCurrentHead(for:)``) and
    /// returns the changes; see ``save(_:in:metadata:)`` for the rest.
    ///
    /// - Throws: What `makeChanges` throws (nothing is saved then), or what
    ///   ``save(_:in:metadata:)`` throws.
    @discardableResult
    public func save(in branch: Branch? = nil, metadata: Version.Metadata? = nil,
                     makingChanges makeChanges: (_ base: Version.ID) throws -> [Value.Change]) throws -> Version? {
        try writes.withLock {
            let base = versionForBranchOrCurrentHead(for: branch)
            let changes = try makeChanges(base)
            guard !changes.isEmpty || metadata != nil else { return nil }
            var versionMetadata = metadata ?? defaultMetadataForNewVersions
            if let branch { versionMetadata[.branch] = try Version.MetadataValue(branch) }
            let version = try store.makeVersion(basedOnPredecessor: base, storing: changes, metadata: versionMetadata)
            if branch == nil { moveCurrentVersion(to: version.id) }
            return version
        }
    }

    /// Makes a version that inserts, updates and removes values (updating an absent value
    /// inserts it); see ``save(_:in:metadata:)``.
    ///
    /// - Throws: See ``save(_:in:metadata:)``.
    @discardableResult
    public func save(inserting insertedValues: [Value] = [], updating updatedValues: [Value] = [], removing removedIds: [Value.ID] = [],
                     in branch: Branch? = nil, metadata: Version.Metadata? = nil) throws -> Version? {
        let changes = insertedValues.map(Value.Change.insert) + updatedValues.map(Value.Change.update) + removedIds.map(Value.Change.remove)
        return try save(changes, in: branch, metadata: metadata)
    }
}
