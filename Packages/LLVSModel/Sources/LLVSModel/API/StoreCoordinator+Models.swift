import Foundation
import LLVSCoordinator
import LLVSCore
import LLVSStore

extension StoreCoordinator {
    /// Saves `batch` as one version on the current version (or on `branch`'s head), as
    /// `StoreCoordinator.save(_:in:metadata:)` does; nil when the batch changes nothing.
    ///
    /// - Throws: ``ModelError`` or the store's errors; nothing is saved then.
    @discardableResult
    public func save(_ batch: ModelBatch, in branch: Branch? = nil, metadata: Version.Metadata? = nil) throws -> Version? {
        var plan: ModelBatch.Plan?
        let saved = try save(in: branch, metadata: metadata) { base in
            let made = try batch.plan(in: store, basedOn: base)
            plan = made
            return made.changes
        }
        plan?.remember(in: saved)
        return saved
    }

    /// Saves `model` as the instance `instanceIdentifier` of its type (inserted or
    /// replaced, keeping stored fields a newer app wrote): the reference LLVS's call.
    ///
    /// - Throws: ``ModelError/newerModelVersion(valueId:stored:supported:)`` when a newer
    ///   model version wrote the stored value (never rewritten), ``ModelError`` otherwise,
    ///   or the store's errors.
    @discardableResult
    public func save<Model: StorableModel>(_ model: Model, instanceIdentifier: String, in branch: Branch? = nil,
                                           metadata: Version.Metadata? = nil) throws -> Version? {
        var batch = ModelBatch()
        try batch.save(model, instanceIdentifier: instanceIdentifier)
        return try save(batch, in: branch, metadata: metadata)
    }

    /// Saves an identifiable `model` under its `id`.
    ///
    /// - Throws: See ``save(_:instanceIdentifier:in:metadata:)``.
    @discardableResult
    public func save<Model: StorableModel & Identifiable>(_ model: Model, in branch: Branch? = nil,
                                                          metadata: Version.Metadata? = nil) throws -> Version? where Model.ID: CustomStringConvertible {
        try save(model, instanceIdentifier: ModelInstance<Model>.instanceIdentifier(of: model), in: branch, metadata: metadata)
    }

    /// Removes the instance `instanceIdentifier` of `type` (nil, nothing saved, if absent).
    ///
    /// - Throws: ``ModelError/invalidTypeIdentifier(_:)`` or the store's errors.
    @discardableResult
    public func removeModel<Model: StorableModel>(_ type: Model.Type, instanceIdentifier: String, in branch: Branch? = nil,
                                                  metadata: Version.Metadata? = nil) throws -> Version? {
        var batch = ModelBatch()
        try batch.remove(type, instanceIdentifier: instanceIdentifier)
        return try save(batch, in: branch, metadata: metadata)
    }

    /// The instance `instanceIdentifier` of `type` at the current version (or `branch`'s
    /// head), or nil.
    ///
    /// - Throws: See ``LLVSStore/Store/fetchModel(_:instanceIdentifier:at:)``.
    public func fetchModel<Model: StorableModel>(_ type: Model.Type, instanceIdentifier: String, on branch: Branch? = nil) throws -> Model? {
        try store.fetchModel(type, instanceIdentifier: instanceIdentifier, at: versionForBranchOrCurrentHead(for: branch))
    }

    /// The model `reference` names at the current version (or `branch`'s head), or nil when
    /// it is absent (a dangling reference).
    ///
    /// - Throws: See ``LLVSStore/Store/fetchModel(_:instanceIdentifier:at:)``.
    public func fetchModel<Model: StorableModel>(_ reference: ModelReference<Model>, on branch: Branch? = nil) throws -> Model? {
        try fetchModel(Model.self, instanceIdentifier: reference.instanceIdentifier, on: branch)
    }

    /// Every model of `type` at `version` (the current version when nil).
    ///
    /// - Throws: See ``LLVSStore/Store/fetchModel(_:instanceIdentifier:at:)``.
    public func fetchAllModels<Model: StorableModel>(_ type: Model.Type, at version: Version.ID? = nil) throws -> [Model] {
        try store.fetchAllModels(type, at: version ?? currentVersion)
    }

    /// Every instance of `type` at `version` (the current version when nil), with its
    /// instance identifier.
    ///
    /// - Throws: See ``LLVSStore/Store/fetchModel(_:instanceIdentifier:at:)``.
    public func fetchModelInstances<Model: StorableModel>(_ type: Model.Type, at version: Version.ID? = nil) throws -> [ModelInstance<Model>] {
        try store.fetchModelInstances(type, at: version ?? currentVersion)
    }

    /// How the instances of `type` changed between two versions (`second` defaults to the
    /// current version).
    ///
    /// - Throws: See ``LLVSStore/Store/modelChanges(_:from:to:)``.
    public func modelChanges<Model: StorableModel>(_ type: Model.Type, from first: Version.ID, to second: Version.ID? = nil) throws -> [ModelChange<Model>] {
        try store.modelChanges(type, from: first, to: second ?? currentVersion)
    }

    /// A stream of the instances of `type` at the current version: first at the current
    /// version, then after every move of it (saves, merges, bootstraps). Each snapshot after
    /// the first is made from the diff between the two versions, so it costs what changed.
    /// The stream ends with an error when a model cannot be read, and when the consumer
    /// stops iterating.
    public func models<Model: StorableModel & Sendable>(_ type: Model.Type) -> AsyncThrowingStream<ModelSnapshot<Model>, any Error> {
        let versions = currentVersions
        let store = self.store
        return AsyncThrowingStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            let task = Task {
                var models: [String: Model] = [:]
                var shown: Version.ID?
                do {
                    for await version in versions {
                        if let shown {
                            for change in try store.modelChanges(type, from: shown, to: version) {
                                switch change {
                                case .inserted(let instance), .updated(let instance): models[instance.id] = instance.model
                                case .removed(let identifier): models[identifier] = nil
                                }
                            }
                        } else {
                            for instance in try store.fetchModelInstances(type, at: version) { models[instance.id] = instance.model }
                        }
                        shown = version
                        let instances = models.sorted { compareUTF8($0.key, $1.key) < 0 }.map { ModelInstance(id: $0.key, model: $0.value) }
                        continuation.yield(ModelSnapshot(version: version, instances: instances))
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
