/// The merge strategy a `@Merged(using:)` attribute names for a property; see
/// ``MergeStrategy`` for what each does. The macro checks that the strategy suits the
/// property's type (a counter needs a number, text a string, a list identifiable elements).
public struct PropertyMerge: Sendable, Hashable {
    /// The strategy's name.
    public let name: String

    private init(_ name: String) {
        self.name = name
    }

    /// The default of the property's type (``MergeStrategy/automatic(for:)``).
    public static let automatic = PropertyMerge("automatic")
    /// The newer side's value.
    public static let threeWay = PropertyMerge("threeWay")
    /// `newer + older − base`.
    public static let counter = PropertyMerge("counter")
    /// Both sides' text edits that do not overlap.
    public static let text = PropertyMerge("text")
    /// Per-element adds and removes.
    public static let set = PropertyMerge("set")
    /// Identifiable elements by identifier: edits, inserts and moves of both sides.
    public static let list = PropertyMerge("list")
    /// Identifiable elements by identifier, with a removal rule for elements.
    public static func list(removal: RemovalRule) -> PropertyMerge { PropertyMerge("list") }
    /// Key by key.
    public static let dictionary = PropertyMerge("dictionary")
    /// Key by key, with a removal rule for entries.
    public static func dictionary(removal: RemovalRule) -> PropertyMerge { PropertyMerge("dictionary") }
    /// The greater value.
    public static let max = PropertyMerge("max")
    /// The smaller value.
    public static let min = PropertyMerge("min")
    /// Every concurrent value kept (``MultiValue``).
    public static let multiValue = PropertyMerge("multiValue")
    /// An app's own rule.
    public static func custom<Merger: PropertyMerger>(_ merger: Merger.Type) -> PropertyMerge { PropertyMerge("custom") }
}

#if Models
/// Makes a struct a mergeable, storable model: conformance to ``Mergeable`` and
/// ``StorableModel``, a stable type identifier (the struct's name unless given), the coding
/// keys of its stored properties, its model version, and a ``MergeSchema`` with a strategy
/// per stored property (`@Merged(using:)`, or the default of its type).
///
/// ```swift
/// @MergeableModel(version: 2)
/// struct Note {
///     var title = ""
///     @Merged(using: .text) var body = ""
///     @Merged(using: .counter) var views = 0
///     var tags: Set<String> = []
/// }
/// ```
///
/// It refuses, with a diagnostic, what it cannot merge: a class, enum or actor, a `lazy`
/// property, and a tuple pattern (`var (a, b) = (1, 2)`).
@attached(extension, conformances: Mergeable, StorableModel,
          names: named(mergeSchema), named(modelTypeIdentifier), named(modelVersion), named(modelCodingKeys),
          named(removalRule), named(insertionRule))
public macro MergeableModel(version: Int = 1, typeIdentifier: String? = nil, removal: RemovalRule = .updateWins,
                            insertion: InsertionRule = .mergeProperties)
    = #externalMacro(module: "LLVSModelMacros", type: "MergeableModelMacro")

/// Chooses how a property of a `@MergeableModel` struct merges.
@attached(peer)
public macro Merged(using strategy: PropertyMerge = .automatic) = #externalMacro(module: "LLVSModelMacros", type: "MergedMacro")
#endif
