import Foundation
import LLVSCore
import LLVSStore

extension StoreCoordinator {
    /// The value `id` at the current version, or nil if it is absent there.
    ///
    /// - Throws: The store's `StoreError` (for example missing value data) or a storage error.
    public func value(id: Value.ID) throws -> Value? {
        try store.value(id: id, at: currentVersion)
    }

    /// The value whose identifier is `idString` at the current version, or nil.
    ///
    /// - Throws: See ``value(id:)``.
    public func value(idString: String) throws -> Value? {
        try value(id: Value.ID(idString))
    }

    /// The value `id` on `branch` (at its head; at the current version when the branch is
    /// nil or has no head), or nil if absent there.
    ///
    /// - Throws: See ``value(id:)``.
    public func value(id: Value.ID, on branch: Branch?) throws -> Value? {
        try store.value(id: id, at: versionForBranchOrCurrentHead(for: branch))
    }

    /// The value whose identifier is `idString` on `branch`; see ``value(id:on:)``.
    ///
    /// - Throws: See ``value(id:)``.
    public func value(idString: String, on branch: Branch?) throws -> Value? {
        try value(id: Value.ID(idString), on: branch)
    }

    /// The references of every value at `version` (the current version when nil).
    ///
    /// - Throws: `StoreError.unknownVersion` for a version not in the store, or a storage error.
    public func valueReferences(at version: Version.ID? = nil) throws -> [Value.Reference] {
        try store.valueReferences(at: version ?? currentVersion)
    }

    /// Every value at `version` (the current version when nil), in the order of
    /// ``valueReferences(at:)``.
    ///
    /// - Throws: `StoreError.unknownVersion`, `StoreError.missingValueData` when a value's
    ///   data is missing from storage, or a storage error.
    public func values(at version: Version.ID? = nil) throws -> [Value] {
        try valueReferences(at: version).map { reference in
            guard let value = try store.value(storedAt: reference) else { throw StoreError.missingValueData(reference) }
            return value
        }
    }

    /// The heads recorded on `branch`, sorted by identifier.
    public func heads(withBranch branch: Branch) -> [Version.ID] {
        store.heads(withBranch: branch)
    }

    /// The first head of `branch`, or the current version when `branch` is nil or has no
    /// head: the version a save on that branch is based on.
    public func versionForBranchOrCurrentHead(for branch: Branch? = nil) -> Version.ID {
        branch.flatMap { heads(withBranch: $0).first } ?? currentVersion
    }
}
