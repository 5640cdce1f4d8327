import LLVSCore

/// What an arbiter may read while resolving a merge: values and references at any version
/// involved, and version records. A store conforms; tests can supply a dictionary-backed
/// context, so arbiters are testable without a store.
public protocol MergeContext {
    /// The value with identifier `valueId` as it is at version `versionId`, or nil if absent.
    ///
    /// - Throws: An error naming the version when it is unknown or its data unreadable.
    func value(_ valueId: Value.ID, at versionId: Version.ID) throws -> Value?

    /// The reference of `valueId` at version `versionId`, or nil if absent.
    ///
    /// - Throws: An error naming the version when it is unknown or unreadable.
    func valueReference(_ valueId: Value.ID, at versionId: Version.ID) throws -> Value.Reference?

    /// The version record with identifier `versionId`, or nil if unknown.
    ///
    /// - Throws: An error when the history cannot be read.
    func version(identifiedBy versionId: Version.ID) throws -> Version?
}

/// A type-erased ``MergeContext``: the context the built-in arbiters take, so they work
/// with any store or test context.
public struct AnyMergeContext: MergeContext {
    /// The wrapped context.
    public let base: any MergeContext

    /// Wraps a context.
    public init(_ base: any MergeContext) {
        self.base = base
    }

    /// Forwards to the wrapped context.
    public func value(_ valueId: Value.ID, at versionId: Version.ID) throws -> Value? {
        try base.value(valueId, at: versionId)
    }

    /// Forwards to the wrapped context.
    public func valueReference(_ valueId: Value.ID, at versionId: Version.ID) throws -> Value.Reference? {
        try base.valueReference(valueId, at: versionId)
    }

    /// Forwards to the wrapped context.
    public func version(identifiedBy versionId: Version.ID) throws -> Version? {
        try base.version(identifiedBy: versionId)
    }
}
