import LLVSCore
import LLVSZones

/// Why the map index could not answer. Each case names the node or version involved.
public enum MapError: Error, Hashable, CustomStringConvertible {
    /// The node `hash` stored by `location` is missing from the maps zone.
    case missingNode(hash: Digest, location: Version.ID)
    /// The bytes stored for node `hash` by `location` hash to something else.
    case corruptNode(hash: Digest, location: Version.ID)
    /// Node bytes could not be decoded; `reason` says why.
    case malformedNode(reason: String)
    /// The maps zone failed.
    case zone(ZoneError)
    /// One update changed `valueId` twice, and was asked to reject that.
    case repeatedChange(valueId: Value.ID)

    /// A sentence naming the problem and the node.
    public var description: String {
        switch self {
        case let .missingNode(hash, location):
            return "Map node \(hash) written by version \(location) is missing."
        case let .corruptNode(hash, location):
            return "Map node \(hash) written by version \(location) is corrupt (its content has another hash)."
        case .malformedNode(let reason):
            return "Malformed map node: \(reason)"
        case .zone(let error):
            return "Map storage failed: \(error)"
        case .repeatedChange(let valueId):
            return "One update changes value \(valueId) more than once."
        }
    }
}
