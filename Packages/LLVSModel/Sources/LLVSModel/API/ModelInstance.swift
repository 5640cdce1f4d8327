import Foundation
import LLVSCore

/// A model with the instance identifier it is stored under.
public struct ModelInstance<Model: StorableModel>: Identifiable {
    /// The instance identifier (the part of the value identifier after `Type/`).
    public var id: String
    /// The model.
    public var model: Model

    /// Pairs a model with its instance identifier.
    public init(id: String, model: Model) {
        self.id = id
        self.model = model
    }

    /// The value identifier the instance is stored under.
    public var valueId: Value.ID {
        modelValueID(typeIdentifier: Model.modelTypeIdentifier, instanceIdentifier: id)
    }

    /// The instance identifier of an identifiable model: its `id` as text (a UUID in its
    /// upper-case form).
    static func instanceIdentifier<T: Identifiable>(of model: T) -> String where T.ID: CustomStringConvertible {
        if let uuid = model.id as? UUID { return uuid.uuidString }
        return model.id.description
    }
}

extension ModelInstance: Sendable where Model: Sendable {}
extension ModelInstance: Equatable where Model: Equatable {}
extension ModelInstance: Hashable where Model: Hashable {}

/// How the models of one type changed between two versions.
public enum ModelChange<Model: StorableModel> {
    /// An instance absent from the first version.
    case inserted(ModelInstance<Model>)
    /// An instance present in both, with its model at the second version.
    case updated(ModelInstance<Model>)
    /// An instance absent from the second version: its instance identifier.
    case removed(String)

    /// The instance identifier the change concerns.
    public var instanceIdentifier: String {
        switch self {
        case .inserted(let instance), .updated(let instance): return instance.id
        case .removed(let identifier): return identifier
        }
    }
}

extension ModelChange: Sendable where Model: Sendable {}
extension ModelChange: Equatable where Model: Equatable {}

/// The models of one type at one version: what `StoreCoordinator`'s model stream yields.
public struct ModelSnapshot<Model: StorableModel> {
    /// The version they are read at.
    public var version: Version.ID
    /// Every instance, in the byte order of their instance identifiers.
    public var instances: [ModelInstance<Model>]

    /// Creates a snapshot.
    public init(version: Version.ID, instances: [ModelInstance<Model>]) {
        self.version = version
        self.instances = instances
    }

    /// The models, in the order of ``instances``.
    public var models: [Model] { instances.map(\.model) }
}

extension ModelSnapshot: Sendable where Model: Sendable {}
extension ModelSnapshot: Equatable where Model: Equatable {}
