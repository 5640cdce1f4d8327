import Foundation
import LLVSCore
import LLVSStore

/// Model saves and removals made together as one version:
///
/// ```swift
/// var batch = ModelBatch()
/// try batch.save(contact, instanceIdentifier: "alice")
/// try batch.remove(Tag.self, instanceIdentifier: "old")
/// try store.save(batch, basedOn: head)        // or coordinator.save(batch)
/// ```
///
/// A save keeps the members of the stored value it replaces that the type does not know
/// (fields a newer app wrote), and refuses to replace a value a newer model version wrote.
public struct ModelBatch {
    private enum Entry {
        /// Encodes the model over the data it replaces; the type's identity for ``CleanStoredModels``.
        case save(encode: (Data?) throws -> (data: Data, isClean: Bool), type: Any.Type, schema: ModelSchema?)
        case remove
    }

    private var entries: [(valueId: Value.ID, entry: Entry)] = []

    /// An empty batch.
    public init() {}

    /// True when the batch holds nothing.
    public var isEmpty: Bool { entries.isEmpty }

    /// Adds a save of `model` as the instance `instanceIdentifier` (replacing an earlier
    /// entry for the same instance).
    ///
    /// - Throws: ``ModelError/invalidTypeIdentifier(_:)``.
    public mutating func save<Model: StorableModel>(_ model: Model, instanceIdentifier: String) throws {
        let valueId = try Model.valueId(of: instanceIdentifier)
        entries.append((valueId, .save(encode: { existing in try StoredModel.encode(model, replacing: existing, valueId: valueId) },
                                       type: Model.self, schema: try? ModelSchema.of(Model.self))))
    }

    /// Adds a save of an identifiable model under its `id`.
    ///
    /// - Throws: ``ModelError/invalidTypeIdentifier(_:)``.
    public mutating func save<Model: StorableModel & Identifiable>(_ model: Model) throws where Model.ID: CustomStringConvertible {
        try save(model, instanceIdentifier: ModelInstance<Model>.instanceIdentifier(of: model))
    }

    /// Adds a removal of the instance `instanceIdentifier` of `type` (nothing happens if it
    /// is absent).
    ///
    /// - Throws: ``ModelError/invalidTypeIdentifier(_:)``.
    public mutating func remove<Model: StorableModel>(_ type: Model.Type, instanceIdentifier: String) throws {
        entries.append((try Model.valueId(of: instanceIdentifier), .remove))
    }

    /// The value changes the batch makes on version `base` of `store` (nil: on nothing),
    /// reading the values it replaces there: what `LLVSStore.Store.save(_:basedOn:metadata:)`
    /// stores, for callers that make the version themselves (`Store.addVersion`, a
    /// hand-made merge).
    ///
    /// - Throws: ``ModelError`` (a newer model version, an unencodable model), or a store error.
    public func changes(in store: Store, basedOn base: Version.ID?) throws -> [Value.Change] {
        try plan(in: store, basedOn: base).changes
    }

    /// What the batch stores on `base`: its changes, and the saves that keep nothing another
    /// save would have to keep (remembered in ``CleanStoredModels`` once their version exists,
    /// with ``remember(_:in:)``).
    ///
    /// - Throws: See ``changes(in:basedOn:)``.
    func plan(in store: Store, basedOn base: Version.ID?) throws -> Plan {
        // The last entry of each instance, in the order instances first appear (one entry:
        // nothing to sort out).
        var final = entries
        if entries.count > 1 {
            var latest: [Value.ID: Entry] = [:]
            var order: [Value.ID] = []
            for (valueId, entry) in entries {
                if latest.updateValue(entry, forKey: valueId) == nil { order.append(valueId) }
            }
            final = order.compactMap { valueId in latest[valueId].map { (valueId, $0) } }
        }
        var plan = Plan()
        for (valueId, entry) in final {
            let existing = try base.flatMap { try store.valueReference(id: valueId, at: $0) }
            switch entry {
            case let .save(encode, type, _):
                // A value known to keep nothing for this type needs no read.
                var data: Data?
                if let existing, !CleanStoredModels.contains(existing, of: type) {
                    guard let value = try store.value(storedAt: existing) else { throw StoreError.missingValueData(existing) }
                    data = value.data
                }
                let encoded = try encode(data)
                let value = Value(id: valueId, data: encoded.data)
                plan.changes.append(existing == nil ? .insert(value) : .update(value))
                if encoded.isClean { plan.clean[ObjectIdentifier(type), default: (type, [])].valueIds.append(valueId) }
            case .remove:
                if existing != nil { plan.changes.append(.remove(valueId)) }
            }
        }
        try recordSchemas(of: final.map(\.entry), in: store, basedOn: base, into: &plan)
        return plan
    }

    /// Adds to `plan` the schema of each type the batch saves that `base` does not hold as
    /// it is (SPEC.md section 17, Recorded schemas).
    private func recordSchemas(of entries: [Entry], in store: Store, basedOn base: Version.ID?, into plan: inout Plan) throws {
        var seen = Set<String>()
        for entry in entries {
            guard case .save(_, let type, let schema?) = entry, seen.insert(schema.typeIdentifier).inserted else { continue }
            let data = schema.storedData
            plan.heldSchemas.append(ObjectIdentifier(type))
            if let base, RecordedSchemas.contains(type, at: base) { continue }
            let existing = try base.flatMap { try store.valueReference(id: schema.valueId, at: $0) }
            if let existing {
                if RecordedSchemas.contains(existing, holding: data) { continue }
                if try store.value(storedAt: existing)?.data == data {
                    RecordedSchemas.insert(existing, holding: data)
                    continue
                }
            }
            let value = Value(id: schema.valueId, data: data)
            plan.changes.append(existing == nil ? .insert(value) : .update(value))
            plan.schemas.append((schema.valueId, data))
        }
    }

    /// A batch's changes on one version, its clean saves by type, and the schemas it records.
    struct Plan {
        var changes: [Value.Change] = []
        var clean: [ObjectIdentifier: (type: Any.Type, valueIds: [Value.ID])] = [:]
        var schemas: [(valueId: Value.ID, data: Data)] = []
        /// The types whose schemas the version holds once made (recorded by it, or before).
        var heldSchemas: [ObjectIdentifier] = []

        /// Remembers the clean saves and the recorded schemas as stored by `version`.
        func remember(in version: Version?) {
            guard let version else { return }
            for (type, valueIds) in clean.values {
                CleanStoredModels.insert(valueIds.map { Value.Reference(valueId: $0, storedVersionId: version.id) }, of: type)
            }
            for (valueId, data) in schemas {
                RecordedSchemas.insert(Value.Reference(valueId: valueId, storedVersionId: version.id), holding: data)
            }
            for type in heldSchemas { RecordedSchemas.insert(type, at: version.id) }
        }
    }
}
