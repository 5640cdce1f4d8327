import LLVSCore

/// An inconsistency ``Store/verify(progress:)`` finds that no lower layer reports as an
/// error; its description is a problem's reason.
enum VerificationFinding: CustomStringConvertible {
    /// A map holds a reference to data stored by a version that is not in the store.
    case unknownStoringVersion(Value.Reference)
    /// A map holds a reference to data stored by a version that is neither the map's
    /// version nor one of its ancestors.
    case referenceOutsideAncestry(Value.Reference)
    /// The version's record says it stored `recorded` bytes of value data; its values hold `found`.
    case valueDataSizeMismatch(recorded: Int64, found: Int64)
    /// The version's record says its map holds `recorded` values; the map holds `found`.
    case valueCountMismatch(recorded: Int, found: Int)
    /// The version log holds a record whose predecessors never appeared, so it is not loaded.
    case unloadedVersion(missingPredecessors: [Version.ID])

    var description: String {
        switch self {
        case .unknownStoringVersion(let reference):
            return "Value \(reference.valueId) refers to data stored by version \(reference.storedVersionId), which is not in the store."
        case .referenceOutsideAncestry(let reference):
            return "Value \(reference.valueId) refers to data stored by version \(reference.storedVersionId), which is neither this version nor one of its ancestors."
        case let .valueDataSizeMismatch(recorded, found):
            return "The version's record says it stored \(recorded) bytes of value data, but the values it stored hold \(found) bytes."
        case let .valueCountMismatch(recorded, found):
            return "The version's record says its map holds \(recorded) values, but the map holds \(found)."
        case .unloadedVersion(let missing):
            return "The version log holds this version, but not its predecessor(s) \(missing.map(\.rawValue).joined(separator: ", ")), so it is not loaded."
        }
    }
}
