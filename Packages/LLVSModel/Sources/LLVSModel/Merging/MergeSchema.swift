import Foundation
import LLVSCore
import LLVSSupport

/// How a model's properties merge: a strategy per coding key. `@MergeableModel` writes it
/// from the struct's stored properties and their `@Merged` attributes; a hand-written
/// conformance lists the properties itself:
///
/// ```swift
/// extension Note: Mergeable {
///     static var mergeSchema: MergeSchema {
///         MergeSchema([
///             .automatic("title", \Note.title),
///             .text("body", \Note.body),
///             .counter("views", \Note.views),
///         ])
///     }
/// }
/// ```
///
/// Keys the schema does not list (fields a newer app wrote, say) merge three-way, so a merge
/// keeps them too.
public struct MergeSchema: Sendable {
    /// One property: its coding key and its strategy.
    public struct Property: Sendable {
        /// The key the property is encoded under.
        public var key: String
        /// How it merges.
        public var strategy: MergeStrategy

        /// A property with an explicit strategy (no type check: prefer the typed builders).
        public init(key: String, strategy: MergeStrategy) {
            self.key = key
            self.strategy = strategy
        }
    }

    /// The properties, in declaration order.
    public var properties: [Property]

    /// For a type that merges itself (``Mergeable/merged(withSubordinate:commonAncestor:)``
    /// written by hand): the whole value's merge on JSON, and the type's name.
    let typedMerge: (name: String, merge: @Sendable (JSONValue?, JSONValue, JSONValue) throws -> JSONValue)?

    private let strategiesByKey: [ByteKey: MergeStrategy]

    /// A schema of these properties.
    public init(_ properties: [Property]) {
        self.properties = properties
        self.typedMerge = nil
        self.strategiesByKey = Dictionary(properties.map { (ByteKey($0.key), $0.strategy) }, uniquingKeysWith: { _, last in last })
    }

    private init(typedName: String, merge: @escaping @Sendable (JSONValue?, JSONValue, JSONValue) throws -> JSONValue) {
        self.properties = []
        self.typedMerge = (typedName, merge)
        self.strategiesByKey = [:]
    }

    /// The schema of a type that merges itself with its own
    /// ``Mergeable/merged(withSubordinate:commonAncestor:)`` and
    /// ``Mergeable/salvaging(from:)``, called with the newer side as `self`: the default of a
    /// hand-written ``Mergeable`` conformance.
    public static func typed<Model: Mergeable>(_ type: Model.Type) -> MergeSchema {
        MergeSchema(typedName: String(describing: type)) { base, newer, older in
            let newerModel = try ModelCoding.decode(Model.self, from: newer)
            let olderModel = try ModelCoding.decode(Model.self, from: older)
            let merged = try base.map { try newerModel.merged(withSubordinate: olderModel, commonAncestor: try ModelCoding.decode(Model.self, from: $0)) }
                ?? newerModel.salvaging(from: olderModel)
            return try ModelCoding.encode(merged)
        }
    }

    /// True for the schema of a type that merges itself (``typed(_:)``).
    public var isTyped: Bool { typedMerge != nil }

    /// The strategy of `key`, or nil when the schema does not list it.
    public func strategy(forKey key: String) -> MergeStrategy? {
        strategiesByKey[ByteKey(key)]
    }

    /// The coding keys the schema lists, or nil for a type that merges itself.
    public var codingKeys: [String]? {
        isTyped ? nil : properties.map(\.key)
    }
}

extension MergeSchema.Property {
    /// The strategy ``MergeStrategy/automatic(for:)`` picks for the property's type.
    public static func automatic<Root, Value>(_ key: String, _ path: KeyPath<Root, Value>) -> Self {
        Self(key: key, strategy: .automatic(for: Value.self))
    }

    /// The newer side's value when both changed it.
    public static func threeWay<Root, Value>(_ key: String, _ path: KeyPath<Root, Value>) -> Self {
        Self(key: key, strategy: .threeWay)
    }

    /// A counter: `newer + older − base`.
    public static func counter<Root, Value: AdditiveArithmetic>(_ key: String, _ path: KeyPath<Root, Value>) -> Self {
        Self(key: key, strategy: .counter)
    }

    /// An optional counter: `newer + older − base`.
    public static func counter<Root, Value: AdditiveArithmetic>(_ key: String, _ path: KeyPath<Root, Value?>) -> Self {
        Self(key: key, strategy: .counter)
    }

    /// Text: both sides' edits that do not overlap.
    public static func text<Root>(_ key: String, _ path: KeyPath<Root, String>) -> Self {
        Self(key: key, strategy: .text)
    }

    /// Optional text: both sides' edits that do not overlap.
    public static func text<Root>(_ key: String, _ path: KeyPath<Root, String?>) -> Self {
        Self(key: key, strategy: .text)
    }

    /// A set: per-element adds and removes.
    public static func set<Root, Element>(_ key: String, _ path: KeyPath<Root, Set<Element>>) -> Self {
        Self(key: key, strategy: .set)
    }

    /// An optional set: per-element adds and removes.
    public static func set<Root, Element>(_ key: String, _ path: KeyPath<Root, Set<Element>?>) -> Self {
        Self(key: key, strategy: .set)
    }

    /// An array merged as a set (its order is not kept: the result is sorted).
    public static func set<Root, Element>(_ key: String, _ path: KeyPath<Root, [Element]>) -> Self {
        Self(key: key, strategy: .set)
    }

    /// A list of identifiable elements, merged by identifier (encoded under `id`).
    public static func list<Root, Element: Identifiable>(_ key: String, _ path: KeyPath<Root, [Element]>, removal: RemovalRule? = nil) -> Self {
        Self(key: key, strategy: .list(idKey: "id", element: .automatic(for: Element.self),
                                        removal: removal ?? MergeStrategy.removalRule(of: Element.self)))
    }

    /// An optional list of identifiable elements, merged by identifier (encoded under `id`).
    public static func list<Root, Element: Identifiable>(_ key: String, _ path: KeyPath<Root, [Element]?>, removal: RemovalRule? = nil) -> Self {
        Self(key: key, strategy: .list(idKey: "id", element: .automatic(for: Element.self),
                                        removal: removal ?? MergeStrategy.removalRule(of: Element.self)))
    }

    /// A dictionary merged key by key.
    public static func dictionary<Root, Key, Value>(_ key: String, _ path: KeyPath<Root, [Key: Value]>, removal: RemovalRule? = nil) -> Self {
        Self(key: key, strategy: .dictionary(value: .automatic(for: Value.self), removal: removal ?? MergeStrategy.removalRule(of: Value.self)))
    }

    /// An optional dictionary merged key by key.
    public static func dictionary<Root, Key, Value>(_ key: String, _ path: KeyPath<Root, [Key: Value]?>, removal: RemovalRule? = nil) -> Self {
        Self(key: key, strategy: .dictionary(value: .automatic(for: Value.self), removal: removal ?? MergeStrategy.removalRule(of: Value.self)))
    }

    /// The greater value.
    public static func max<Root, Value: Comparable>(_ key: String, _ path: KeyPath<Root, Value>) -> Self {
        Self(key: key, strategy: .max)
    }

    /// The greater value of an optional.
    public static func max<Root, Value: Comparable>(_ key: String, _ path: KeyPath<Root, Value?>) -> Self {
        Self(key: key, strategy: .max)
    }

    /// The smaller value.
    public static func min<Root, Value: Comparable>(_ key: String, _ path: KeyPath<Root, Value>) -> Self {
        Self(key: key, strategy: .min)
    }

    /// The smaller value of an optional.
    public static func min<Root, Value: Comparable>(_ key: String, _ path: KeyPath<Root, Value?>) -> Self {
        Self(key: key, strategy: .min)
    }

    /// Every concurrent value kept until one is written again.
    public static func multiValue<Root, Value>(_ key: String, _ path: KeyPath<Root, MultiValue<Value>>) -> Self {
        Self(key: key, strategy: .multiValue)
    }

    /// An app's own rule.
    public static func custom<Root, Merger: PropertyMerger>(_ key: String, _ path: KeyPath<Root, Merger.Value>, _ merger: Merger.Type) -> Self {
        Self(key: key, strategy: .custom(CustomMerge(merger)))
    }
}

extension MergeStrategy {
    /// The default strategy of a property type: an optional's wrapped type's; `multiValue`
    /// for ``MultiValue``; `model` for a ``Mergeable`` type; `set` for a `Set`; `dictionary`
    /// (values by their type's default) for a dictionary that encodes as an object (string,
    /// integer or `CodingKeyRepresentable` keys); `list` by `id` for an array of
    /// `Identifiable` elements; otherwise `threeWay`.
    public static func automatic(for type: Any.Type) -> MergeStrategy {
        if let optional = type as? any OptionalMarker.Type { return automatic(for: optional.wrappedType) }
        if type is any MultiValueMarker.Type { return .multiValue }
        if let model = type as? any Mergeable.Type { return .model(model) }
        if type is any SetMarker.Type { return .set }
        if let dictionary = type as? any DictionaryMarker.Type, dictionary.encodesAsObject {
            return .dictionary(value: automatic(for: dictionary.valueType), removal: removalRule(of: dictionary.valueType))
        }
        if let list = type as? any IdentifiableArrayMarker.Type {
            return .list(idKey: "id", element: automatic(for: list.elementType), removal: removalRule(of: list.elementType))
        }
        return .threeWay
    }

    /// The removal rule of an element type: a ``Mergeable`` type's own, else `updateWins`.
    static func removalRule(of type: Any.Type) -> RemovalRule {
        if let optional = type as? any OptionalMarker.Type { return removalRule(of: optional.wrappedType) }
        return (type as? any Mergeable.Type)?.removalRule ?? .updateWins
    }
}

/// Lets ``MergeStrategy/automatic(for:)`` see through optionals.
protocol OptionalMarker {
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalMarker {
    static var wrappedType: Any.Type { Wrapped.self }
}

/// Marks `Set` for ``MergeStrategy/automatic(for:)``.
protocol SetMarker {}

extension Set: SetMarker {}

/// Marks dictionaries for ``MergeStrategy/automatic(for:)``.
protocol DictionaryMarker {
    static var valueType: Any.Type { get }
    static var encodesAsObject: Bool { get }
}

extension Dictionary: DictionaryMarker {
    static var valueType: Any.Type { Value.self }
    /// `Codable` writes a dictionary as a JSON object when its keys are strings, integers
    /// or `CodingKeyRepresentable`, and as an array of alternating keys and values otherwise.
    static var encodesAsObject: Bool { Key.self is any CodingKeyRepresentable.Type }
}

/// Marks arrays of `Identifiable` elements for ``MergeStrategy/automatic(for:)``.
protocol IdentifiableArrayMarker {
    static var elementType: Any.Type { get }
}

extension Array: IdentifiableArrayMarker where Element: Identifiable {
    static var elementType: Any.Type { Element.self }
}

/// Marks ``MultiValue`` for ``MergeStrategy/automatic(for:)``.
protocol MultiValueMarker {}

/// Each type's ``Mergeable/mergeSchema``, read once: a schema is fixed for a type, and
/// building one (a dynamic type check per property) would otherwise cost every save and
/// every nested merge.
enum MergeSchemaCache {
    private static let schemas = Locked<[ObjectIdentifier: MergeSchema]>([:])

    /// The schema of `type`.
    static func schema(of type: any Mergeable.Type) -> MergeSchema {
        if let cached = schemas.withLock({ $0[ObjectIdentifier(type)] }) { return cached }
        let schema = type.mergeSchema
        schemas.withLock { $0[ObjectIdentifier(type)] = schema }
        return schema
    }
}
