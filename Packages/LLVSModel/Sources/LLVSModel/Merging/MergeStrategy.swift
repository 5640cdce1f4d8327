import Foundation

/// How one property of a model merges when both sides changed it (SPEC.md section 17 gives
/// each result exactly). Whatever the strategy, a property changed on one side only takes
/// that side's value, one both changed alike takes it, and one that one side removed while
/// the other changed it keeps the change. Every strategy sees the two sides as the newer
/// and the older (by their versions' timestamps, then identifiers), never as the first and
/// second argument of a merge, so merging either way round gives the same model.
public indirect enum MergeStrategy: Sendable {
    /// The newer side's value (the default for values that are not collections or models).
    case threeWay
    /// Numbers: `newer + older − base` (base 0 when there is none), so increments on both
    /// sides add up. Integers stay exact; a result beyond 64 bits fails the merge.
    case counter
    /// Arrays as sets of elements (compared by canonical JSON): an element is kept when both
    /// sides hold it, or one side added it; removed when a side removed it. Written sorted.
    case set
    /// Strings: a three-way merge of Unicode scalars keeping both sides' edits that do not
    /// overlap; where they overlap the newer side's, where both inserted at one place the
    /// older's then the newer's.
    case text
    /// Arrays of objects identified by the value of `idKey`: elements merge by identifier
    /// with `element`, inserts, edits and moves on either side survive, an element removed
    /// on one side and changed on the other follows `removal`.
    case list(idKey: String, element: MergeStrategy, removal: RemovalRule)
    /// Objects (dictionaries with string or integer keys) merged key by key, each value with
    /// `value`; a key removed on one side and changed on the other follows `removal`.
    case dictionary(value: MergeStrategy, removal: RemovalRule)
    /// The greater value (numbers numerically, strings by UTF-8 bytes).
    case max
    /// The smaller value (numbers numerically, strings by UTF-8 bytes).
    case min
    /// ``MultiValue`` arrays: like ``set``, so concurrent writes are all kept and the
    /// conflict stays visible until someone writes one value again; never emptied.
    case multiValue
    /// A nested model merged property by property with its type's ``Mergeable/mergeSchema``
    /// (read when needed, so a type may contain itself).
    case model(any Mergeable.Type)
    /// A nested object merged property by property with this schema.
    case schema(MergeSchema)
    /// An app's own rule, on the values as JSON.
    case custom(CustomMerge)

    /// True when equal changes on both sides are not the same change made once: a counter
    /// adds both increments, so a counter anywhere inside (a dictionary's values, a list's
    /// elements, a nested model's properties) makes equal sides merge by their strategies.
    var countsEqualChanges: Bool {
        var visited: Set<ObjectIdentifier> = []
        return countsEqualChanges(visited: &visited)
    }

    private func countsEqualChanges(visited: inout Set<ObjectIdentifier>) -> Bool {
        switch self {
        case .counter: return true
        case .list(_, let element, _): return element.countsEqualChanges(visited: &visited)
        case .dictionary(let value, _): return value.countsEqualChanges(visited: &visited)
        case .model(let type):
            guard visited.insert(ObjectIdentifier(type)).inserted else { return false }
            return MergeSchemaCache.schema(of: type).properties.contains { $0.strategy.countsEqualChanges(visited: &visited) }
        case .schema(let schema):
            return schema.properties.contains { $0.strategy.countsEqualChanges(visited: &visited) }
        case .threeWay, .set, .text, .max, .min, .multiValue, .custom:
            return false
        }
    }

    /// The strategy's name in reports and in SPEC.md section 17.
    public var name: String {
        switch self {
        case .threeWay: return "threeWay"
        case .counter: return "counter"
        case .set: return "set"
        case .text: return "text"
        case .list: return "list"
        case .dictionary: return "dictionary"
        case .max: return "max"
        case .min: return "min"
        case .multiValue: return "multiValue"
        case .model(let type): return MergeSchemaCache.schema(of: type).isTyped ? "typed:\(type)" : "model"
        case .schema(let schema): return schema.isTyped ? "typed" : "model"
        case .custom(let custom): return "custom:\(custom.name)"
        }
    }
}

/// What a merge does with a model (or a list element, or a dictionary entry) that one side
/// removed while the other changed it.
public enum RemovalRule: String, Sendable, Hashable, Codable {
    /// The changed model survives (the default).
    case updateWins
    /// The removal stands.
    case removalWins
}

/// What a merge does with two models of one identifier that both sides inserted, with no
/// common ancestor to compare them with.
public enum InsertionRule: String, Sendable, Hashable, Codable {
    /// Merge them property by property with no base: each strategy's two-way form (the
    /// default; counters add up, sets and lists unite, other properties take the newer side).
    case mergeProperties
    /// Keep the newer side's model whole.
    case newerWins
}

/// An app's own merge rule for one property, on the values in their JSON form.
public struct CustomMerge: Sendable {
    /// The name reports give (`custom:<name>`).
    public var name: String
    /// Merges the base (nil when there is none), the newer side and the older side; called
    /// only when both sides changed the value and neither removed it.
    public var merge: @Sendable (_ base: JSONValue?, _ newer: JSONValue, _ older: JSONValue) throws -> JSONValue

    /// A rule on JSON values.
    public init(name: String, merge: @escaping @Sendable (_ base: JSONValue?, _ newer: JSONValue, _ older: JSONValue) throws -> JSONValue) {
        self.name = name
        self.merge = merge
    }

    /// A rule on decoded values: the JSON is decoded to `Value`, `merger` decides, and its
    /// result is encoded back.
    public init<Merger: PropertyMerger>(_ merger: Merger.Type) {
        self.init(name: String(describing: merger)) { base, newer, older in
            let decoded = try Merger.merge(base: try base.map { try ModelCoding.decode(Merger.Value.self, from: $0) },
                                           newer: try ModelCoding.decode(Merger.Value.self, from: newer),
                                           older: try ModelCoding.decode(Merger.Value.self, from: older))
            return try ModelCoding.encode(decoded)
        }
    }
}

/// An app's own merge rule for one property type, used with
/// `@Merged(using: .custom(MyMerger.self))` or ``MergeSchema/Property/custom(_:_:_:)``.
///
/// ```swift
/// enum LongerTitle: PropertyMerger {
///     static func merge(base: String?, newer: String, older: String) -> String {
///         older.count > newer.count ? older : newer
///     }
/// }
/// ```
///
/// It is called only when both sides changed the value (and neither removed it), with the
/// sides in recency order: it cannot depend on which side was merged into which. For
/// replicas to converge it must be a pure function of its arguments.
public protocol PropertyMerger: SendableMetatype {
    /// The property's type.
    associatedtype Value: Codable, SendableMetatype

    /// The merged value.
    ///
    /// - Throws: Any error; the merge then fails and nothing is written.
    static func merge(base: Value?, newer: Value, older: Value) throws -> Value
}
