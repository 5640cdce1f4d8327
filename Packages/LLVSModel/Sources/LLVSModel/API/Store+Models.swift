import Foundation
import LLVSCore
import LLVSStore

extension Store {
    /// Makes a version on `version` (nil: a first version) that applies `batch`.
    ///
    /// - Throws: ``ModelError`` (a replaced value a newer model version wrote, an
    ///   unencodable model) or the store's errors; nothing is written then.
    @discardableResult
    public func save(_ batch: ModelBatch, basedOn version: Version.ID?, metadata: Version.Metadata = [:]) throws -> Version {
        let plan = try batch.plan(in: self, basedOn: version)
        let saved = try makeVersion(basedOnPredecessor: version, storing: plan.changes, metadata: metadata)
        plan.remember(in: saved)
        return saved
    }

    /// Makes a version on `version` that stores `model` as the instance `instanceIdentifier`
    /// (inserted or replaced; unknown stored members kept).
    ///
    /// - Throws: See `save(_:basedOn:metadata:)`.
    @discardableResult
    public func save<Model: StorableModel>(_ model: Model, instanceIdentifier: String, basedOn version: Version.ID?,
                                           metadata: Version.Metadata = [:]) throws -> Version {
        var batch = ModelBatch()
        try batch.save(model, instanceIdentifier: instanceIdentifier)
        return try save(batch, basedOn: version, metadata: metadata)
    }

    /// Makes a version on `version` that stores an identifiable `model` under its `id`.
    ///
    /// - Throws: See `save(_:basedOn:metadata:)`.
    @discardableResult
    public func save<Model: StorableModel & Identifiable>(_ model: Model, basedOn version: Version.ID?,
                                                          metadata: Version.Metadata = [:]) throws -> Version where Model.ID: CustomStringConvertible {
        try save(model, instanceIdentifier: ModelInstance<Model>.instanceIdentifier(of: model), basedOn: version, metadata: metadata)
    }

    /// Makes a version on `version` without the instance `instanceIdentifier` of `type`.
    ///
    /// - Throws: See `save(_:basedOn:metadata:)`.
    @discardableResult
    public func removeModel<Model: StorableModel>(_ type: Model.Type, instanceIdentifier: String, basedOn version: Version.ID,
                                                  metadata: Version.Metadata = [:]) throws -> Version {
        var batch = ModelBatch()
        try batch.remove(type, instanceIdentifier: instanceIdentifier)
        return try save(batch, basedOn: version, metadata: metadata)
    }

    /// The instance `instanceIdentifier` of `type` at `version`, or nil if absent there.
    ///
    /// - Throws: ``ModelError/newerModelVersion(valueId:stored:supported:)`` for a value a
    ///   newer model version wrote, ``ModelError/notAModel(valueId:reason:)``,
    ///   ``ModelError/undecodable(type:reason:)``, or the store's errors.
    public func fetchModel<Model: StorableModel>(_ type: Model.Type, instanceIdentifier: String, at version: Version.ID) throws -> Model? {
        let valueId = try Model.valueId(of: instanceIdentifier)
        guard let value = try self.value(id: valueId, at: version) else { return nil }
        let (model, isClean) = try StoredModel.decodeNoting(type, from: value.data, valueId: valueId)
        if isClean, let reference = value.reference { CleanStoredModels.insert([reference], of: Model.self) }
        return model
    }

    /// The model `reference` names at `version`, or nil if absent there.
    ///
    /// - Throws: See ``fetchModel(_:instanceIdentifier:at:)``.
    public func fetchModel<Model: StorableModel>(_ reference: ModelReference<Model>, at version: Version.ID) throws -> Model? {
        try fetchModel(Model.self, instanceIdentifier: reference.instanceIdentifier, at: version)
    }

    /// Every instance of `type` at `version`, in the byte order of their instance identifiers.
    ///
    /// - Complexity: O(values at the version) to list them (identifiers of every type are
    ///   spread over the map by their hash), then one read of the instances' data.
    /// - Throws: See ``fetchModel(_:instanceIdentifier:at:)``.
    public func fetchModelInstances<Model: StorableModel>(_ type: Model.Type, at version: Version.ID) throws -> [ModelInstance<Model>] {
        let prefix = Array(try Model.valueIdPrefix().utf8)
        let references = try valueReferences(at: version)
            .filter { $0.valueId.rawValue.utf8.starts(with: prefix) }
            .sorted { $0.valueId < $1.valueId }
        return try values(storedAt: references).map { value in
            ModelInstance(id: String(decoding: value.id.rawValue.utf8.dropFirst(prefix.count), as: UTF8.self),
                          model: try StoredModel.decode(type, from: value.data, valueId: value.id))
        }
    }

    /// Every model of `type` at `version`, in the byte order of their instance identifiers.
    ///
    /// - Throws: See ``fetchModel(_:instanceIdentifier:at:)``.
    public func fetchAllModels<Model: StorableModel>(_ type: Model.Type, at version: Version.ID) throws -> [Model] {
        try fetchModelInstances(type, at: version).map(\.model)
    }

    /// How the instances of `type` changed from version `first` to version `second`: a diff,
    /// O(changed values × log n), in the byte order of the instance identifiers.
    ///
    /// - Throws: See ``fetchModel(_:instanceIdentifier:at:)``.
    public func modelChanges<Model: StorableModel>(_ type: Model.Type, from first: Version.ID, to second: Version.ID) throws -> [ModelChange<Model>] {
        let prefix = Array(try Model.valueIdPrefix().utf8)
        return try valueChanges(madeBetween: first, and: second)
            .filter { $0.valueId.rawValue.utf8.starts(with: prefix) }
            .sorted { $0.valueId < $1.valueId }
            .compactMap { change -> ModelChange<Model>? in
                let instance = String(decoding: change.valueId.rawValue.utf8.dropFirst(prefix.count), as: UTF8.self)
                switch change {
                case .insert(let value):
                    return .inserted(ModelInstance(id: instance, model: try StoredModel.decode(type, from: value.data, valueId: value.id)))
                case .update(let value):
                    return .updated(ModelInstance(id: instance, model: try StoredModel.decode(type, from: value.data, valueId: value.id)))
                case .remove, .preserveRemoval:
                    return .removed(instance)
                case .preserve:
                    return nil
                }
            }
    }
}
