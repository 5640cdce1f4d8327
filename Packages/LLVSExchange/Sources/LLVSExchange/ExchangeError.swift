import LLVSCore

/// Why an exchange failed. Every case names the version, file or snapshot involved. A
/// failed exchange leaves both sides valid: what was completely transferred stays, the
/// rest is transferred by the next exchange.
public enum ExchangeError: Error, Hashable, CustomStringConvertible {
    /// The other side listed this version but does not provide it.
    case missingVersion(Version.ID)
    /// The other side does not provide the changes of this version.
    case missingValueChanges(Version.ID)
    /// These versions cannot be added: a predecessor is neither in the store nor on the
    /// other side. Everything else was added.
    case missingPredecessors([Version.ID: [Version.ID]])
    /// Something read from the other side is malformed; `location` names the file or
    /// request, `reason` says what is wrong.
    case malformedData(location: String, reason: String)
    /// The other side's data uses a format version this library does not know.
    case unsupportedFormat(location: String, found: String)
    /// The transport failed (a file could not be written, a connection dropped).
    case transport(operation: String, location: String, reason: String)
    /// A snapshot chunk does not match its checksum in the manifest.
    case corruptSnapshotChunk(snapshotId: String, index: Int)
    /// A snapshot manifest is unusable; `reason` says why.
    case invalidSnapshotManifest(location: String, reason: String)
    /// The snapshot cannot be restored into this store (its format or state); `reason` says why.
    case snapshotNotRestorable(reason: String)
    /// The exchange already holds version `versionId`, logged, with other content at
    /// `location`: what is written for a logged version is never replaced, so one
    /// identifier has one record everywhere (SPEC.md section 11, "Logged versions are
    /// immutable").
    case conflictingVersion(Version.ID, location: String)
    /// A file of version `versionId` at `location` does not match the checksum it carries,
    /// or carries none where every file must (a damaged byte, a truncated or replaced file);
    /// `reason` says which. Nothing of the batch that needed it was added.
    case damagedFile(Version.ID, location: String, reason: String)

    /// A short account of why decoding failed: the field missing or mistyped, with its
    /// coding path, instead of `DecodingError`'s full dump. Other errors are described as is.
    public static func describe(decodingError error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context):
            return context.debugDescription + (context.underlyingError.map { " (\($0))" } ?? "")
        case DecodingError.keyNotFound(let key, let context):
            return "missing field \((context.codingPath.map(\.stringValue) + [key.stringValue]).joined(separator: "."))"
        case DecodingError.typeMismatch(let type, let context), DecodingError.valueNotFound(let type, let context):
            return "expected \(type) at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        default:
            return "\(error)"
        }
    }

    /// A sentence naming the problem.
    public var description: String {
        switch self {
        case .missingVersion(let id):
            return "The other side lists version \(id) but does not provide it."
        case .missingValueChanges(let id):
            return "The other side does not provide the changes of version \(id)."
        case .missingPredecessors(let missing):
            let list = missing.sorted { $0.key < $1.key }.map { "\($0.key) (needs \($0.value.map(\.rawValue).joined(separator: ", ")))" }
            return "Versions whose predecessors are nowhere to be found were not added: \(list.joined(separator: "; "))."
        case let .malformedData(location, reason):
            return "Malformed exchange data in \(location): \(reason)"
        case let .unsupportedFormat(location, found):
            return "\(location) uses an unsupported exchange format (\(found))."
        case let .transport(operation, location, reason):
            return "Could not \(operation) \(location): \(reason)"
        case let .corruptSnapshotChunk(snapshotId, index):
            return "Chunk \(index) of snapshot \(snapshotId) does not match its checksum."
        case let .invalidSnapshotManifest(location, reason):
            return "Snapshot manifest \(location) is invalid: \(reason)"
        case .snapshotNotRestorable(let reason):
            return "The snapshot cannot be restored: \(reason)"
        case let .conflictingVersion(id, location):
            return "The exchange already holds version \(id) with other content (\(location)); a logged version is never replaced."
        case let .damagedFile(id, location, reason):
            return "The exchange's file \(location) of version \(id) is damaged: \(reason). Nothing from it was added."
        }
    }
}
