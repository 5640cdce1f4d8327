import Foundation
import LLVSCore

/// A typed reference from one model to another, stored as the target's instance
/// identifier.
///
/// ```swift
/// @MergeableModel struct Task { var title = ""; var project: ModelReference<Project>? }
/// let project = try coordinator.fetchModel(task.project!)   // nil if it was removed
/// ```
///
/// **Removed targets.** When one side of a merge removes a model while a model changed on
/// the other side newly refers to it (a reference its base did not hold), the merge keeps
/// the target if its type's ``Mergeable/removalRule`` is `updateWins` (the default: using a
/// model counts as updating it). With `removalWins` the removal stands and the reference
/// dangles: resolving it gives nil. The merge report lists both (``ModelMergeReport/restoredReferenceTargets``,
/// ``ModelMergeReport/danglingReferences``).
public struct ModelReference<Target: StorableModel>: Codable, Hashable, Sendable, CustomStringConvertible, AnyModelReference {
    /// The target's instance identifier.
    public var instanceIdentifier: String

    /// A reference to the instance `instanceIdentifier` of `Target`.
    public init(_ instanceIdentifier: String) {
        self.instanceIdentifier = instanceIdentifier
    }

    /// The target's value identifier (`Type/instance`).
    public var valueId: Value.ID {
        modelValueID(typeIdentifier: Target.modelTypeIdentifier, instanceIdentifier: instanceIdentifier)
    }

    /// The target's value identifier.
    public var description: String { valueId.rawValue }

    /// `Target.modelTypeIdentifier`.
    public static var targetTypeIdentifier: String { Target.modelTypeIdentifier }

    /// Decodes the instance identifier string.
    ///
    /// - Throws: `DecodingError` when it is not a string.
    public init(from decoder: any Decoder) throws {
        instanceIdentifier = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the instance identifier string.
    ///
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(instanceIdentifier)
    }
}

extension ModelReference where Target: Identifiable, Target.ID: CustomStringConvertible {
    /// A reference to `model`, by its identifier.
    public init(to model: Target) {
        self.init(ModelInstance<Target>.instanceIdentifier(of: model))
    }
}

/// A ``ModelReference`` of any target type, as merges look for them.
public protocol AnyModelReference {
    /// The target's value identifier.
    var valueId: Value.ID { get }

    /// The target type's ``StorableModel/modelTypeIdentifier``.
    static var targetTypeIdentifier: String { get }
}

/// The targets of every ``ModelReference`` a value holds, however deeply nested (found by
/// reflection, so hand-written models need nothing to take part).
enum ModelReferences {
    static func targets(of value: Any) -> Set<Value.ID> {
        var found: Set<Value.ID> = []
        var pending: [Any] = [value]
        var visited = 0
        while let next = pending.popLast(), visited < 100_000 {
            visited += 1
            if let reference = next as? any AnyModelReference {
                found.insert(reference.valueId)
                continue
            }
            let mirror = Mirror(reflecting: next)
            guard mirror.displayStyle != nil else { continue }
            pending.append(contentsOf: mirror.children.map(\.value))
        }
        return found
    }
}
