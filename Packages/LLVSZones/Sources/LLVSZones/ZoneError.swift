import Foundation

/// Why a zone, a version log or a storage backend failed. Every case names the file (or
/// item) involved, so a report says exactly what is wrong where.
public enum ZoneError: Error, Hashable, CustomStringConvertible {
    /// A system call failed: `operation` on `path`, with the C `errno` description.
    case io(operation: String, path: String, reason: String)
    /// The file at `path` is not what it should be (bad magic, checksum, truncation);
    /// `reason` says what.
    case corrupt(path: String, reason: String)
    /// The directory holds a store of another kind or a newer format.
    case unsupportedFormat(path: String, found: String)
    /// A pack file in the directory of `version` says it belongs to another version.
    case misplacedPack(path: String, expectedVersion: String, foundVersion: String)

    /// A sentence naming the problem and the file.
    public var description: String {
        switch self {
        case let .io(operation, path, reason):
            return "Could not \(operation) \(path): \(reason)"
        case let .corrupt(path, reason):
            return "Corrupt store file \(path): \(reason)"
        case let .unsupportedFormat(path, found):
            return "\(path) holds an unsupported store format (\(found))."
        case let .misplacedPack(path, expected, found):
            return "Pack file \(path) belongs to version \(found), not \(expected)."
        }
    }
}
