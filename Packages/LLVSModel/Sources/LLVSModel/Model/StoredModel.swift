import Foundation
import LLVSCore
import LLVSSupport

/// A model's stored form (SPEC.md section 17): the canonical JSON object of its `Codable`
/// encoding, with `"$version"` when its type's model version is above 1, and every member
/// an earlier stored value had that this type does not know (written by a newer app).
enum StoredModel {
    /// The key of the model version in a stored model.
    static let versionKey = "$version"

    /// The largest model version: every JSON reader holds integers up to 2⁵³ exactly.
    static let maximumVersion = 1 << 53

    /// The stored form of `model`, keeping the unknown members of `existing` (the value it
    /// replaces, if any), and whether it keeps nothing another save of the type would have
    /// to keep (``CleanStoredModels``).
    ///
    /// - Throws: ``ModelError/newerModelVersion(valueId:stored:supported:)`` when `existing`
    ///   was written by a newer model version (it is never rewritten), ``ModelError/notAModel(valueId:reason:)``
    ///   or ``ModelError/invalidModelVersion(valueId:found:)`` when `existing` is not a stored
    ///   model, ``ModelError/unencodable(type:reason:)``.
    static func encode<Model: StorableModel>(_ model: Model, replacing existing: Data?,
                                             valueId: Value.ID) throws(ModelError) -> (data: Data, isClean: Bool) {
        guard Model.modelVersion >= 1, Model.modelVersion <= maximumVersion else {
            throw .unencodable(type: String(describing: Model.self), reason: "its modelVersion \(Model.modelVersion) is not from 1 to 2^53")
        }
        let encoded: Data
        do {
            encoded = try ModelCoding.encoder.encode(model)
        } catch {
            throw .unencodable(type: String(describing: Model.self), reason: "\(error)")
        }
        guard encoded.first == UInt8(ascii: "{") else {
            throw .unencodable(type: String(describing: Model.self), reason: "a model must encode as a JSON object")
        }
        var stored: JSONObject?
        if let existing {
            stored = try parse(existing, valueId: valueId)
            try checkVersion(of: stored ?? JSONObject(), valueId: valueId, supported: Model.modelVersion)
        }
        let knownKeys = Model.modelCodingKeys
        let schema = (Model.self as? any Mergeable.Type).map(MergeSchemaCache.schema(of:))
        let keepsNothing = knownKeys != nil && !(stored.map { hasUnknownMembers($0, knownKeys: knownKeys ?? [], schema: schema) } ?? false)
        // Nothing to keep and no $version to add: the canonical encoding as it is.
        if Model.modelVersion == 1, keepsNothing {
            return (encoded, true)
        }
        let object: JSONObject
        do {
            guard case .object(let parsed) = try JSONValue(parsing: encoded) else { throw JSONParseError(offset: 0, reason: "not an object") }
            object = parsed
        } catch {
            throw .unencodable(type: String(describing: Model.self), reason: "\(error)")
        }
        let form = try storedForm(of: object, modelVersion: Model.modelVersion, knownKeys: knownKeys, schema: schema, replacing: stored,
                                  valueId: valueId)
        return (form.canonicalData, keepsNothing)
    }

    /// Whether `stored` holds members a save of a type with `knownKeys` and `schema` would
    /// keep: keys outside `knownKeys`, or such members inside nested models, list elements
    /// and dictionary entries (any of them, so a `false` is certain and a `true` may be
    /// more than needed).
    static func hasUnknownMembers(_ stored: JSONObject, knownKeys: [String], schema: MergeSchema?) -> Bool {
        for (key, value) in stored where key != versionKey {
            // A model has a handful of keys: a scan, no set to build.
            guard knownKeys.contains(where: { $0.utf8.elementsEqual(key.utf8) }) else { return true }
            if let strategy = schema?.strategy(forKey: key), hasUnknownMembers(value, strategy: strategy) { return true }
        }
        return false
    }

    private static func hasUnknownMembers(_ value: JSONValue, strategy: MergeStrategy) -> Bool {
        switch (strategy, value) {
        case let (.model(type), .object(object)):
            let schema = MergeSchemaCache.schema(of: type)
            guard let keys = schema.codingKeys else { return false }
            return hasUnknownMembers(object, knownKeys: keys, schema: schema)
        case let (.schema(schema), .object(object)):
            guard let keys = schema.codingKeys else { return false }
            return hasUnknownMembers(object, knownKeys: keys, schema: schema)
        case let (.dictionary(valueStrategy, _), .object(object)):
            return object.contains { hasUnknownMembers($0.value, strategy: valueStrategy) }
        case let (.list(_, elementStrategy, _), .array(elements)):
            return elements.contains { hasUnknownMembers($0, strategy: elementStrategy) }
        default:
            return false
        }
    }

    /// The stored form of a model encoded as `object`: `$version` set from `modelVersion`
    /// (left out when 1), and the members of `existing` the type does not know kept.
    ///
    /// - Throws: ``ModelError/newerModelVersion(valueId:stored:supported:)`` or
    ///   ``ModelError/invalidModelVersion(valueId:found:)`` for `existing`.
    static func storedForm(of object: JSONObject, modelVersion: Int, knownKeys: [String]?, schema: MergeSchema?,
                           replacing existing: JSONObject?, valueId: Value.ID) throws(ModelError) -> JSONValue {
        var object = object
        object[versionKey] = modelVersion > 1 ? .number(.integer(Int64(modelVersion))) : nil
        if let existing {
            try checkVersion(of: existing, valueId: valueId, supported: modelVersion)
            object = carryUnknownMembers(into: object, from: existing, knownKeys: knownKeys, schema: schema)
        }
        return .object(object)
    }

    /// The model stored in `data`.
    ///
    /// - Throws: ``ModelError/notAModel(valueId:reason:)``, ``ModelError/invalidModelVersion(valueId:found:)``,
    ///   ``ModelError/newerModelVersion(valueId:stored:supported:)``, ``ModelError/undecodable(type:reason:)``.
    static func decode<Model: StorableModel>(_ type: Model.Type, from data: Data, valueId: Value.ID) throws(ModelError) -> Model {
        try checkVersion(of: try parse(data, valueId: valueId), valueId: valueId, supported: Model.modelVersion)
        return try ModelCoding.decode(type, from: data)
    }

    /// The model stored in `data`, and whether it is clean for its type: its type's own
    /// version, with no member a save would have to keep (``CleanStoredModels``).
    ///
    /// - Throws: See ``decode(_:from:valueId:)``.
    static func decodeNoting<Model: StorableModel>(_ type: Model.Type, from data: Data,
                                                   valueId: Value.ID) throws(ModelError) -> (model: Model, isClean: Bool) {
        let stored = try parse(data, valueId: valueId)
        try checkVersion(of: stored, valueId: valueId, supported: Model.modelVersion)
        let model = try ModelCoding.decode(type, from: data)
        guard let knownKeys = Model.modelCodingKeys, try version(of: stored, valueId: valueId) == Model.modelVersion else { return (model, false) }
        let schema = (Model.self as? any Mergeable.Type).map(MergeSchemaCache.schema(of:))
        return (model, !hasUnknownMembers(stored, knownKeys: knownKeys, schema: schema))
    }

    /// The JSON object of a stored model.
    ///
    /// - Throws: ``ModelError/notAModel(valueId:reason:)``.
    static func parse(_ data: Data, valueId: Value.ID) throws(ModelError) -> JSONObject {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: data)
        } catch {
            throw .notAModel(valueId: valueId, reason: error.description)
        }
        guard case .object(let object) = value else { throw .notAModel(valueId: valueId, reason: "its JSON is not an object") }
        return object
    }

    /// The model version a stored model carries (1 when it has none).
    ///
    /// - Throws: ``ModelError/invalidModelVersion(valueId:found:)``.
    /// Absent or `null` is 1; otherwise a number equal to an integer from 1 to 2⁵³ (`2` and
    /// `2.0` alike, as canonical JSON makes them one number).
    static func version(of object: JSONObject, valueId: Value.ID) throws(ModelError) -> Int {
        guard let value = object[versionKey], value != .null else { return 1 }
        switch value {
        case .number(.integer(let version)) where version >= 1 && version <= maximumVersion:
            return Int(version)
        case .number(.double(let version)) where version >= 1 && version <= Double(maximumVersion) && version.rounded(.towardZero) == version:
            return Int(version)
        default:
            throw .invalidModelVersion(valueId: valueId, found: value.description)
        }
    }

    /// - Throws: ``ModelError/newerModelVersion(valueId:stored:supported:)`` when the stored
    ///   version is above `supported`, or ``ModelError/invalidModelVersion(valueId:found:)``.
    static func checkVersion(of object: JSONObject, valueId: Value.ID, supported: Int) throws(ModelError) {
        let version = try version(of: object, valueId: valueId)
        guard version <= supported else { throw .newerModelVersion(valueId: valueId, stored: version, supported: supported) }
    }

    /// `new` with the members of `stored` that the type does not know: those outside
    /// `knownKeys` (or, when unknown, those `new` lacks), and recursively those of nested
    /// models, list elements and dictionary entries the schema describes.
    static func carryUnknownMembers(into new: JSONObject, from stored: JSONObject, knownKeys: [String]?, schema: MergeSchema?) -> JSONObject {
        var result = new
        let known = knownKeys.map { Set($0.map(ByteKey.init)) }
        for (key, value) in stored where key != versionKey {
            guard let newValue = new[key] else {
                if let known, known.contains(ByteKey(key)) { continue }
                result[key] = value
                continue
            }
            if known?.contains(ByteKey(key)) == false {
                continue
            }
            if let strategy = schema?.strategy(forKey: key) {
                result[key] = carryUnknownMembers(into: newValue, from: value, strategy: strategy)
            }
        }
        return result
    }

    /// `new` with the unknown members of `stored` kept, for a value merged by `strategy`.
    private static func carryUnknownMembers(into new: JSONValue, from stored: JSONValue, strategy: MergeStrategy) -> JSONValue {
        switch (strategy, new, stored) {
        case let (.model(type), .object(newObject), .object(storedObject)):
            let schema = MergeSchemaCache.schema(of: type)
            guard !schema.isTyped else { return new }
            return .object(carryUnknownMembers(into: newObject, from: storedObject, knownKeys: schema.codingKeys, schema: schema))
        case let (.schema(schema), .object(newObject), .object(storedObject)):
            guard !schema.isTyped else { return new }
            return .object(carryUnknownMembers(into: newObject, from: storedObject, knownKeys: schema.codingKeys, schema: schema))
        case let (.dictionary(valueStrategy, _), .object(newObject), .object(storedObject)):
            var result = newObject
            for (key, value) in newObject {
                if let old = storedObject[key] { result[key] = carryUnknownMembers(into: value, from: old, strategy: valueStrategy) }
            }
            return .object(result)
        case let (.list(idKey, elementStrategy, _), .array, .array):
            guard let newList = ListElements(new, idKey: idKey), let storedList = ListElements(stored, idKey: idKey) else { return new }
            return .array(newList.ids.compactMap { id in
                guard let element = newList.byId[id] else { return nil }
                guard let old = storedList.byId[id] else { return element }
                return carryUnknownMembers(into: element, from: old, strategy: elementStrategy)
            })
        default:
            return new
        }
    }
}

/// Stored models known to hold nothing a save of their type must keep — written by a save
/// of that type that kept nothing, or read and found so — by type and reference. A reference
/// names immutable data (SPEC.md section 4), so a save over such a value needs neither read
/// nor check it again. Bounded: emptied when it reaches ``limit`` entries.
enum CleanStoredModels {
    struct Key: Hashable {
        let type: ObjectIdentifier
        let reference: Value.Reference
    }

    static let limit = 100_000
    private static let known = Locked<Set<Key>>([])

    static func contains(_ reference: Value.Reference, of type: Any.Type) -> Bool {
        let key = Key(type: ObjectIdentifier(type), reference: reference)
        return known.withLock { $0.contains(key) }
    }

    static func insert(_ references: [Value.Reference], of type: Any.Type) {
        guard !references.isEmpty else { return }
        known.withLock { set in
            if set.count + references.count > limit { set.removeAll(keepingCapacity: true) }
            for reference in references.prefix(limit) { set.insert(Key(type: ObjectIdentifier(type), reference: reference)) }
        }
    }
}
