import Foundation
import LLVSCore

/// One merge of two JSON values against a base, strategy by strategy, collecting the
/// report's property entries (SPEC.md section 17). Sides are the newer and the older; the
/// report names them as the merge's first and second.
struct PropertyMergeRun {
    /// True when the newer side is the merge's first version.
    let newerIsFirst: Bool
    /// The entries so far.
    private(set) var properties: [ModelMergeReport.Property] = []

    init(newerIsFirst: Bool) {
        self.newerIsFirst = newerIsFirst
    }

    private var newerSide: ModelMergeReport.ChangedOn { newerIsFirst ? .first : .second }
    private var olderSide: ModelMergeReport.ChangedOn { newerIsFirst ? .second : .first }
    private var tookNewer: ModelMergeReport.Resolution { newerIsFirst ? .tookFirst : .tookSecond }
    private var tookOlder: ModelMergeReport.Resolution { newerIsFirst ? .tookSecond : .tookFirst }

    private mutating func record(_ path: String, _ strategy: MergeStrategy, _ changedOn: ModelMergeReport.ChangedOn,
                                 conflict: Bool, _ resolution: ModelMergeReport.Resolution) {
        properties.append(.init(path: path, strategy: strategy.name, changedOn: changedOn, isConflict: conflict, resolution: resolution))
    }

    /// The merged value (nil: absent). `null` counts as absent. A side equal to the base
    /// yields the other; equal sides yield that value; a side that removed the value while
    /// the other changed it yields the change; otherwise the strategy decides.
    ///
    /// - Throws: ``ModelError/counterOutOfRange(path:)``, or what a custom merge throws.
    mutating func merge(_ base: JSONValue?, _ newer: JSONValue?, _ older: JSONValue?, strategy: MergeStrategy,
                        path: String) throws -> JSONValue? {
        let base = base == .null ? nil : base, newer = newer == .null ? nil : newer, older = older == .null ? nil : older
        if newer == older {
            // Counters add equal increments made on both sides; everything else takes the value once.
            if newer != base, let newer, let older, strategy.countsEqualChanges {
                return try mergeChangedOnBothSides(base, newer, older, strategy: strategy, path: path)
            }
            if newer != base { record(path, strategy, .both, conflict: false, .same) }
            return newer
        }
        if older == base {
            record(path, strategy, newerSide, conflict: false, newer == nil ? .removed : tookNewer)
            return newer
        }
        if newer == base {
            record(path, strategy, olderSide, conflict: false, older == nil ? .removed : tookOlder)
            return older
        }
        guard let newer, let older else {
            // One side removed it, the other changed it: the change survives.
            record(path, strategy, .both, conflict: true, newer == nil ? tookOlder : tookNewer)
            return newer ?? older
        }
        return try mergeChangedOnBothSides(base, newer, older, strategy: strategy, path: path)
    }

    /// Both sides changed the value, to different values, and neither removed it.
    private mutating func mergeChangedOnBothSides(_ base: JSONValue?, _ newer: JSONValue, _ older: JSONValue, strategy: MergeStrategy,
                                                  path: String) throws -> JSONValue {
        switch strategy {
        case .threeWay:
            break
        case .counter:
            if let sum = try MergeStrategies.counter(base, newer, older, path: path) {
                record(path, strategy, .both, conflict: false, .merged)
                return sum
            }
        case .set:
            if let merged = MergeStrategies.set(base, newer, older) {
                record(path, strategy, .both, conflict: false, .merged)
                return merged
            }
        case .multiValue:
            if let merged = MergeStrategies.multiValue(base, newer, older) {
                let kept = (merged.arrayValue?.count ?? 0) > 1
                record(path, strategy, .both, conflict: kept, kept ? .keptBoth : .merged)
                return merged
            }
        case .text:
            if case .string(let baseText)? = base, case .string(let newerText) = newer, case .string(let olderText) = older {
                let (merged, conflicted) = ThreeWaySequenceMerge.merge(base: Array(baseText.unicodeScalars), newer: Array(newerText.unicodeScalars),
                                                                       older: Array(olderText.unicodeScalars))
                var view = String.UnicodeScalarView()
                view.append(contentsOf: merged)
                record(path, strategy, .both, conflict: conflicted, .merged)
                return .string(String(view))
            }
        case .max, .min:
            if let newerIsGreater = MergeStrategies.isGreater(newer, than: older) {
                let takeNewer = newerIsGreater == (strategy.name == "max")
                record(path, strategy, .both, conflict: true, takeNewer ? tookNewer : tookOlder)
                return takeNewer ? newer : older
            }
        case let .list(idKey, element, removal):
            if let merged = try mergeList(base, newer, older, idKey: idKey, element: element, removal: removal, path: path) {
                record(path, strategy, .both, conflict: false, .merged)
                return merged
            }
        case let .dictionary(value, removal):
            if case .object(let newerObject) = newer, case .object(let olderObject) = older, base == nil || base?.objectValue != nil {
                record(path, strategy, .both, conflict: false, .merged)
                return .object(try mergeEntries(base?.objectValue, newerObject, olderObject, strategy: { _ in value }, removal: removal,
                                                path: path, entryPath: { "\(path)[\(JSONValue.string($0))]" }))
            }
        case .model(let type):
            return try mergeNested(base, newer, older, schema: MergeSchemaCache.schema(of: type), strategy: strategy, path: path)
        case .schema(let schema):
            return try mergeNested(base, newer, older, schema: schema, strategy: strategy, path: path)
        case .custom(let custom):
            let merged = try custom.merge(base, newer, older)
            record(path, strategy, .both, conflict: false, .merged)
            return merged
        }
        // The strategy does not apply to these values (or is three-way): the newer side's.
        record(path, strategy, .both, conflict: newer != older, newer == older ? .same : tookNewer)
        return newer
    }

    /// A nested model: property by property, or the type's own typed merge.
    private mutating func mergeNested(_ base: JSONValue?, _ newer: JSONValue, _ older: JSONValue, schema: MergeSchema,
                                      strategy: MergeStrategy, path: String) throws -> JSONValue {
        if let typed = schema.typedMerge {
            let merged = try typed.merge(base, newer, older)
            record(path, strategy, .both, conflict: false, .merged)
            return merged
        }
        guard case .object(let newerObject) = newer, case .object(let olderObject) = older, base == nil || base?.objectValue != nil else {
            record(path, strategy, .both, conflict: true, tookNewer)
            return newer
        }
        return .object(try mergeObject(base?.objectValue, newerObject, olderObject, schema: schema, path: path))
    }

    /// The members of an object merged key by key: listed keys with their strategy, others
    /// three-way. Keys in `excluded` are left out.
    mutating func mergeObject(_ base: JSONObject?, _ newer: JSONObject, _ older: JSONObject, schema: MergeSchema, path: String,
                              excluded: Set<ByteKey> = []) throws -> JSONObject {
        var merged = JSONObject()
        for key in JSONObject.unionOfKeys([base, newer, older]) where !excluded.contains(ByteKey(key)) {
            let memberPath = path.isEmpty ? key : "\(path).\(key)"
            if let value = try merge(base?[key], newer[key], older[key], strategy: schema.strategy(forKey: key) ?? .threeWay, path: memberPath) {
                merged[key] = value
            }
        }
        return merged
    }

    /// Entries of a dictionary or a list merged by key: present on every side → merged;
    /// removed on one side → removed, unless changed on the other and `removal` keeps it;
    /// inserted on one or both sides → kept (two inserts merged without a base).
    private mutating func mergeEntries(_ base: JSONObject?, _ newer: JSONObject, _ older: JSONObject, strategy: (String) -> MergeStrategy,
                                       removal: RemovalRule, path: String, entryPath: (String) -> String) throws -> JSONObject {
        var merged = JSONObject()
        for key in JSONObject.unionOfKeys([base, newer, older]) {
            let b = base?[key].flatMap(Self.present), n = Self.present(newer[key]), o = Self.present(older[key])
            let elementStrategy = strategy(key)
            if let b, (n == nil) != (o == nil) {
                // Removed on one side: stands, unless the other side changed it and the rule keeps changes.
                let kept = n ?? o
                guard kept != b, removal == .updateWins else {
                    let removedOnNewer = n == nil
                    record(entryPath(key), elementStrategy, kept != b ? .both : (removedOnNewer ? newerSide : olderSide),
                           conflict: kept != b, .removed)
                    continue
                }
            }
            if let value = try merge(b, n, o, strategy: elementStrategy, path: entryPath(key)) {
                merged[key] = value
            }
        }
        return merged
    }

    /// The value, or nil for `null` or nothing.
    private static func present(_ value: JSONValue?) -> JSONValue? {
        value == .null ? nil : value
    }

    /// Lists of objects merged by identifier (SPEC.md section 17, "list"), or nil when the
    /// values are not such lists (an element not an object, without `idKey`, or an
    /// identifier twice).
    private mutating func mergeList(_ base: JSONValue?, _ newer: JSONValue, _ older: JSONValue, idKey: String, element: MergeStrategy,
                                    removal: RemovalRule, path: String) throws -> JSONValue? {
        guard let newerList = ListElements(newer, idKey: idKey), let olderList = ListElements(older, idKey: idKey) else { return nil }
        let baseList: ListElements?
        if let base {
            guard let list = ListElements(base, idKey: idKey) else { return nil }
            baseList = list
        } else {
            baseList = nil
        }
        let merged = try mergeEntries(baseList?.byId, newerList.byId, olderList.byId, strategy: { _ in element }, removal: removal,
                                      path: path, entryPath: { "\(path)[\($0)]" })
        let order = ListOrder.merge(base: baseList?.ids, newer: newerList.ids, older: olderList.ids, surviving: merged.keys)
        return .array(order.compactMap { merged[$0] })
    }
}

/// A list's elements by identifier: each identifier the canonical JSON text of the
/// element's `idKey` member.
struct ListElements {
    let ids: [String]
    let byId: JSONObject

    init?(_ value: JSONValue, idKey: String) {
        guard case .array(let elements) = value else { return nil }
        var ids: [String] = []
        var pairs: [(String, JSONValue)] = []
        for element in elements {
            guard case .object(let object) = element, let id = object[idKey], id != .null else { return nil }
            let text = id.description
            ids.append(text)
            pairs.append((text, element))
        }
        let byId = JSONObject(pairs)
        guard byId.count == ids.count else { return nil }
        self.ids = ids
        self.byId = byId
    }
}
