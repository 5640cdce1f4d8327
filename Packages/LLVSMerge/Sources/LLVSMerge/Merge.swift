import LLVSCore

/// A merge of two versions: the versions, their common ancestry, and how every value that
/// differs between them was changed on each side (a fork). A ``MergeArbiter`` is handed a
/// `Merge` and returns the changes that resolve its conflicting forks.
public struct Merge: Sendable {
    /// The two versions being merged. The merge version is based on `first`.
    public var versions: (first: Version, second: Version)

    /// The common ancestor the forks are relative to, when there is exactly one. Nil for a
    /// two-way merge (unrelated versions), and when several best common ancestors were
    /// combined into a virtual ancestor (see ``mergeBaseIds``).
    public var commonAncestor: Version?

    /// Every best common ancestor of the two versions, sorted by identifier. Empty for a
    /// two-way merge; more than one in a criss-cross history.
    public var mergeBaseIds: [Version.ID]

    /// The fork of every value identifier that differs between the two versions.
    public var forksByValueIdentifier: [Value.ID: Value.Fork]

    /// The version the forks are relative to: ``commonAncestor``'s identifier, or in a
    /// criss-cross merge the virtual ancestor's (`virtual-…`, SPEC.md section 9), whose
    /// values the context reads like any version's while the merge runs. Nil for a two-way
    /// merge. An arbiter that merges a value against its ancestor reads it here.
    public var ancestorVersionId: Version.ID?

    /// True when this merge makes a virtual ancestor: a step of a criss-cross merge whose
    /// result is never stored, asked before the merge the caller requested.
    public var isVirtual: Bool

    /// Creates a merge description.
    public init(versions: (first: Version, second: Version), commonAncestor: Version?,
                mergeBaseIds: [Version.ID]? = nil, forksByValueIdentifier: [Value.ID: Value.Fork] = [:],
                ancestorVersionId: Version.ID? = nil, isVirtual: Bool = false) {
        self.versions = versions
        self.commonAncestor = commonAncestor
        self.mergeBaseIds = mergeBaseIds ?? commonAncestor.map { [$0.id] } ?? []
        self.forksByValueIdentifier = forksByValueIdentifier
        self.ancestorVersionId = ancestorVersionId ?? commonAncestor?.id
        self.isVirtual = isVirtual
    }

    /// The version of the given branch.
    public func version(on branch: Value.Fork.Branch) -> Version {
        branch == .first ? versions.first : versions.second
    }

    /// The conflicting forks, in identifier order (the order arbiters should resolve them
    /// in, so that every replica produces the same change list).
    public var conflictingForks: [(valueId: Value.ID, fork: Value.Fork)] {
        forksByValueIdentifier.filter { $0.value.isConflicting }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
