import Foundation
import LLVSCore

/// What went wrong storing, reading or merging a model. Each case names the value or the
/// property it concerns.
public indirect enum ModelError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A model type identifier is empty or holds `/`, which separates it from the
    /// instance identifier in a value identifier (`Type/instance`), or is `$schema`, the
    /// prefix of recorded schemas.
    case invalidTypeIdentifier(String)
    /// The value stored under a model's identifier is not a JSON object.
    case notAModel(valueId: Value.ID, reason: String)
    /// The value's `$version` is not an integer from 1 to 2⁵³.
    case invalidModelVersion(valueId: Value.ID, found: String)
    /// The value was written by a newer version of the model than this app knows: it is
    /// kept as it is, never decoded into the older type, merged or rewritten.
    case newerModelVersion(valueId: Value.ID, stored: Int, supported: Int)
    /// `Codable` could not decode the model.
    case undecodable(type: String, reason: String)
    /// `Codable` could not encode the model.
    case unencodable(type: String, reason: String)
    /// A counter's merged value is beyond a signed 64-bit integer (or a double's range).
    case counterOutOfRange(path: String)
    /// Merging the model `valueId` failed for `reason`; the merge wrote nothing.
    case mergeFailed(valueId: Value.ID, reason: ModelError)
    /// A model type's properties could not be learned for its ``ModelSchema`` (its decoding
    /// refuses empty values before any key and it lists no coding keys).
    case indescribable(type: String, reason: String)
    /// A recorded ``ModelSchema`` value that is not a schema.
    case invalidSchema(valueId: Value.ID, reason: String)

    /// A sentence naming the value or property.
    public var description: String {
        switch self {
        case .invalidTypeIdentifier(let identifier):
            return "Model type identifier \"\(identifier)\" is invalid: it must be non-empty, hold no \"/\" and not be \"$schema\" (recorded schemas' prefix)."
        case let .notAModel(valueId, reason):
            return "Value \(valueId) is not a stored model: \(reason)."
        case let .invalidModelVersion(valueId, found):
            return "Value \(valueId) has model version \(found); a model version is an integer from 1 to 2^53."
        case let .newerModelVersion(valueId, stored, supported):
            return "Value \(valueId) was written by model version \(stored), newer than version \(supported) this app knows; it is kept as it is, not read, merged or rewritten."
        case let .undecodable(type, reason):
            return "Could not decode a \(type): \(reason)."
        case let .unencodable(type, reason):
            return "Could not encode a \(type): \(reason)."
        case .counterOutOfRange(let path):
            return "The merged counter \(path) is beyond a 64-bit integer."
        case let .mergeFailed(valueId, reason):
            return "Could not merge model \(valueId): \(reason)"
        case let .indescribable(type, reason):
            return "Cannot learn the properties of model type \(type): \(reason)."
        case let .invalidSchema(valueId, reason):
            return "Value \(valueId) is not a recorded model schema: \(reason)."
        }
    }
}
