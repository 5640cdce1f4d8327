import Foundation

/// A type whose values merge property by property: a model, or a value nested in one.
///
/// `@MergeableModel` writes the conformance: a ``mergeSchema`` listing every stored property
/// with its strategy (chosen by `@Merged(using:)` or by the property's type). A hand-written
/// conformance either lists the properties itself:
///
/// ```swift
/// extension Contact: Mergeable {
///     static var mergeSchema: MergeSchema {
///         MergeSchema([.automatic("name", \Contact.name), .counter("visits", \Contact.visits)])
///     }
/// }
/// ```
///
/// or, as the reference LLVS has it, merges the whole value itself in
/// ``merged(withSubordinate:commonAncestor:)``, where `self` is the newer side.
///
/// Merges work on the values' JSON (SPEC.md section 17): the result depends only on the
/// stored data and the schema, never on which side was merged into which.
public protocol Mergeable: Codable, SendableMetatype {
    /// How each property merges. The default merges the whole value with
    /// ``merged(withSubordinate:commonAncestor:)`` and ``salvaging(from:)``.
    static var mergeSchema: MergeSchema { get }

    /// What a merge does with a value of this type (a model, a list element, a dictionary
    /// entry) that one side removed while the other changed it: `updateWins` by default.
    static var removalRule: RemovalRule { get }

    /// What a merge does with two models of one identifier that both sides inserted:
    /// `mergeProperties` by default.
    static var insertionRule: InsertionRule { get }

    /// This value (the newer side, the reference's "dominant") merged with `other` against
    /// their common ancestor. The default merges by ``mergeSchema``; a type that merges
    /// itself writes it instead.
    ///
    /// - Throws: What the merge throws (``ModelError``, or a custom rule's error).
    func merged(withSubordinate other: Self, commonAncestor: Self) throws -> Self

    /// This value merged with `other` when there is no common ancestor (both inserted it).
    /// The default merges by ``mergeSchema`` with no base.
    ///
    /// - Throws: What the merge throws.
    func salvaging(from other: Self) throws -> Self
}

extension Mergeable {
    /// The whole value merged by ``merged(withSubordinate:commonAncestor:)``.
    public static var mergeSchema: MergeSchema { .typed(Self.self) }

    /// `updateWins`.
    public static var removalRule: RemovalRule { .updateWins }

    /// `mergeProperties`.
    public static var insertionRule: InsertionRule { .mergeProperties }

    /// Merges by ``mergeSchema`` with `self` as the newer side. For a type that merges
    /// itself but does not write this method, the newer side wins.
    ///
    /// - Throws: ``ModelError``, or what a custom rule throws.
    public func merged(withSubordinate other: Self, commonAncestor: Self) throws -> Self {
        try mergedByValue(other, base: commonAncestor)
    }

    /// Merges by ``mergeSchema`` with no base and `self` as the newer side.
    ///
    /// - Throws: ``ModelError``, or what a custom rule throws.
    public func salvaging(from other: Self) throws -> Self {
        try mergedByValue(other, base: nil)
    }

    /// The schema merge of the JSON forms (or the newer side for a typed schema, which
    /// would otherwise call back here).
    private func mergedByValue(_ other: Self, base: Self?) throws -> Self {
        let schema = MergeSchemaCache.schema(of: Self.self)
        guard !schema.isTyped else { return self }
        var run = PropertyMergeRun(newerIsFirst: true)
        let merged = try run.merge(try base.map(ModelCoding.encode), try ModelCoding.encode(self), try ModelCoding.encode(other),
                                   strategy: .schema(schema), path: "")
        return try ModelCoding.decode(Self.self, from: merged ?? .object(JSONObject()))
    }
}

/// A reference-style helper for hand-written merges: the dominant value unless it equals
/// the ancestor, in which case the subordinate's.
public func mergeProperty<T: Equatable>(_ dominant: T, _ subordinate: T, _ ancestor: T) throws -> T {
    dominant == ancestor ? subordinate : dominant
}

/// A reference-style helper for hand-written merges: a ``Mergeable`` value merged with the
/// dominant side as the newer.
///
/// - Throws: What the merge throws.
public func mergeProperty<T: Mergeable>(_ dominant: T, _ subordinate: T, _ ancestor: T) throws -> T {
    try dominant.merged(withSubordinate: subordinate, commonAncestor: ancestor)
}

/// A reference-style helper for hand-written merges without an ancestor: the dominant value.
public func salvageProperty<T: Equatable>(_ dominant: T, _ subordinate: T) throws -> T {
    dominant
}

/// A reference-style helper for hand-written merges without an ancestor: a ``Mergeable``
/// value merged with no base.
///
/// - Throws: What the merge throws.
public func salvageProperty<T: Mergeable>(_ dominant: T, _ subordinate: T) throws -> T {
    try dominant.salvaging(from: subordinate)
}
