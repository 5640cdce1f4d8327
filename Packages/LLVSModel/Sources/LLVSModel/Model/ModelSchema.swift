import Foundation
import LLVSCore
import LLVSStore
import LLVSSupport

/// What a model property holds, as projections and tools read it.
public enum ModelPropertyKind: Sendable, Hashable, Codable {
    /// An integer.
    case integer
    /// A floating-point number.
    case real
    /// A string, `Data` (base64) or `URL`.
    case text
    /// A `Bool`.
    case boolean
    /// A `Date`: seconds since 2001 in the stored JSON.
    case date
    /// A ``ModelReference``: the target's instance identifier.
    case reference(targetType: String)
    /// A nested value (a struct, an array, a set, a dictionary), or a scalar the probe
    /// named no type for.
    case json
    /// Whatever the JSON holds: a property the probe could not describe.
    case value
}

/// A model type's schema: its properties and what each holds. The model layer records it
/// in the store, as the value `$schema/<type identifier>`, whenever a save stores a model of
/// the type on a version that holds no schema or a different one (SPEC.md section 17,
/// Recorded schemas), so that tools (`llvs query`) read models with no app code.
public struct ModelSchema: Sendable, Hashable {
    /// One top-level property, under its coding key.
    public struct Property: Sendable, Hashable {
        /// The coding key.
        public let name: String
        /// What it holds.
        public let kind: ModelPropertyKind

        /// A property `name` holding `kind`.
        public init(name: String, kind: ModelPropertyKind) {
            self.name = name
            self.kind = kind
        }
    }

    /// The prefix of the value identifiers of recorded schemas.
    public static let valueIdPrefix = "$schema/"

    /// The model type identifier.
    public let typeIdentifier: String
    /// The type's model version.
    public let modelVersion: Int
    /// The properties, in the order the type decodes them.
    public let properties: [Property]

    /// The recorded form: canonical JSON
    /// `{"modelVersion":1,"properties":[{"kind":"text","name":"title"},{"kind":"reference","name":"author","target":"Person"}],"type":"Note"}`
    /// (made once, with the schema).
    public let storedData: Data

    /// A schema of `typeIdentifier`.
    public init(typeIdentifier: String, modelVersion: Int, properties: [Property]) {
        self.typeIdentifier = typeIdentifier
        self.modelVersion = modelVersion
        self.properties = properties
        let recorded = properties.map { property -> JSONValue in
            var object = JSONObject([("name", .string(property.name)), ("kind", .string(property.kind.recordedName))])
            if case .reference(let target) = property.kind { object["target"] = .string(target) }
            return .object(object)
        }
        storedData = JSONValue.object(JSONObject([("type", .string(typeIdentifier)),
                                                  ("modelVersion", .number(.integer(Int64(modelVersion)))),
                                                  ("properties", .array(recorded))])).canonicalData
    }

    /// The schema of `type`, learned from the type itself (cached per type).
    ///
    /// - Throws: ``ModelError/indescribable(type:reason:)``.
    public static func of<Model: StorableModel>(_ type: Model.Type) throws(ModelError) -> ModelSchema {
        if let cached = cache.withLock({ $0[ObjectIdentifier(type)] }) { return try cached.get() }
        let schema = Result { () throws(ModelError) -> ModelSchema in
            ModelSchema(typeIdentifier: Model.modelTypeIdentifier, modelVersion: Model.modelVersion,
                        properties: try PropertyProbe.properties(of: type))
        }
        cache.withLock { $0[ObjectIdentifier(type)] = schema }
        return try schema.get()
    }

    private static let cache = Locked<[ObjectIdentifier: Result<ModelSchema, ModelError>]>([:])

    /// The value identifier the schema is recorded under.
    public var valueId: Value.ID { Value.ID(Self.valueIdPrefix + typeIdentifier) }

    /// Whether `valueId` names a recorded schema.
    public static func isSchemaValue(_ valueId: Value.ID) -> Bool {
        valueId.rawValue.utf8.starts(with: valueIdPrefix.utf8)
    }

    /// The schema recorded as `data` under `valueId`.
    ///
    /// - Throws: ``ModelError/invalidSchema(valueId:reason:)``.
    public init(recorded data: Data, valueId: Value.ID) throws(ModelError) {
        func invalid(_ reason: String) -> ModelError { .invalidSchema(valueId: valueId, reason: reason) }
        guard case .object(let object)? = try? JSONValue(parsing: data) else { throw invalid("not a JSON object") }
        guard case .string(let type)? = object["type"], !type.isEmpty else { throw invalid("no type") }
        guard case .number(.integer(let version))? = object["modelVersion"], version >= 1, version <= 1 << 53 else {
            throw invalid("no model version from 1 to 2^53")
        }
        guard case .array(let entries)? = object["properties"] else { throw invalid("no properties") }
        var properties: [Property] = []
        for entry in entries {
            guard case .object(let property) = entry, case .string(let name)? = property["name"],
                  case .string(let kindName)? = property["kind"] else { throw invalid("a property without a name and a kind") }
            let kind: ModelPropertyKind
            switch kindName {
            case "integer": kind = .integer
            case "real": kind = .real
            case "text": kind = .text
            case "boolean": kind = .boolean
            case "date": kind = .date
            case "json": kind = .json
            case "reference":
                guard case .string(let target)? = property["target"] else { throw invalid("reference '\(name)' names no target") }
                kind = .reference(targetType: target)
            default: kind = .value    // a kind a newer writer knows: whatever the JSON holds
            }
            properties.append(Property(name: name, kind: kind))
        }
        self.init(typeIdentifier: type, modelVersion: Int(version), properties: properties)
    }
}

extension ModelSchema {
    /// The schema `value` records, or nil when it is not a recorded schema of its own type
    /// (`$schema/A` must describe `A`).
    public init?(recordedValue value: Value) {
        guard Self.isSchemaValue(value.id), let schema = try? ModelSchema(recorded: value.data, valueId: value.id),
              schema.valueId == value.id else { return nil }
        self = schema
    }
}

extension ModelPropertyKind {
    /// The kind's name in a recorded schema.
    var recordedName: String {
        switch self {
        case .integer: return "integer"
        case .real: return "real"
        case .text: return "text"
        case .boolean: return "boolean"
        case .date: return "date"
        case .reference: return "reference"
        case .json: return "json"
        case .value: return "value"
        }
    }
}

extension Store {
    /// The model schemas recorded at `version` (``ModelSchema``), by type identifier; a
    /// recorded value that is not a schema, or not its own type's (`$schema/A` describing
    /// `B`), is left out.
    ///
    /// - Throws: A store error reading the values.
    /// - Complexity: O(n) in the values at `version` (their identifiers are listed to find
    ///   the schemas).
    public func recordedModelSchemas(at version: Version.ID) throws -> [String: ModelSchema] {
        let references = try valueReferences(at: version).filter { ModelSchema.isSchemaValue($0.valueId) }
        var schemas: [String: ModelSchema] = [:]
        for value in try values(storedAt: references) {
            if let schema = ModelSchema(recordedValue: value) { schemas[schema.typeIdentifier] = schema }
        }
        return schemas
    }
}

/// What this process knows recorded schemas hold, so that a save reads a recorded schema
/// once, not on every save: schema values (references) known to hold a schema's bytes, and
/// versions known to hold a schema (a save on such a version needs no lookup at all;
/// versions never change).
enum RecordedSchemas {
    private struct Key: Hashable {
        let reference: Value.Reference
        let data: Data
    }

    /// A version that holds the schema of a type (its schema as this process knows it).
    private struct VersionKey: Hashable {
        let version: Version.ID
        let type: ObjectIdentifier
    }

    private static let known = Locked<(references: Set<Key>, versions: Set<VersionKey>)>(([], []))

    /// Bounds each set: past it, the set starts again.
    private static let limit = 10_000

    static func contains(_ reference: Value.Reference, holding data: Data) -> Bool {
        known.withLock { $0.references.contains(Key(reference: reference, data: data)) }
    }

    static func insert(_ reference: Value.Reference, holding data: Data) {
        known.withLock { known in
            if known.references.count >= limit { known.references.removeAll(keepingCapacity: true) }
            known.references.insert(Key(reference: reference, data: data))
        }
    }

    static func contains(_ type: Any.Type, at version: Version.ID) -> Bool {
        known.withLock { $0.versions.contains(VersionKey(version: version, type: ObjectIdentifier(type))) }
    }

    static func insert(_ type: ObjectIdentifier, at version: Version.ID) {
        known.withLock { known in
            if known.versions.count >= limit { known.versions.removeAll(keepingCapacity: true) }
            known.versions.insert(VersionKey(version: version, type: type))
        }
    }
}
