import LLVSCore

/// Why a `KeyValueDatabase` operation failed. Store and storage failures are passed on as
/// the store's own errors (`StoreError`).
public enum KeyValueDatabaseError: Error, Hashable, CustomStringConvertible {
    /// A single value was asked for (`.text`, `.json`, `.blob`) but the key has `count`
    /// concurrent values: read the array, or resolve it with a ``Resolver``.
    case versionConflict(count: Int)
    /// `writeJSON` was given text that is not JSON.
    case invalidJSON(ScopedKey, reason: String)
    /// A stored value could not be decoded.
    case unreadableValue(String, reason: String)
    /// The database belongs to another application (rule 1 of ``ApplicationDataUpgrader``).
    case applicationIdentifierMismatch(expected: ApplicationIdentifier, found: ApplicationIdentifier)
    /// The database was written by a newer major version of the application (rule 2).
    case applicationDataTooNew(expected: ApplicationIdentifier, found: ApplicationIdentifier)
    /// The full-text query is not valid FTS5 syntax.
    case invalidSearchQuery(String, reason: String)
    /// The full-text index could not be read or written.
    case searchIndex(reason: String)
    /// An exchange given to ``KeyValueDatabase/sync(with:)`` works on another store.
    case exchangeOfAnotherStore
    /// A merge would mix data of two applications, or of two versions of one application's
    /// format (`nil`: a database holding keys but no identifier). Nothing was changed.
    case incompatibleApplicationData(receiver: ApplicationIdentifier?, source: ApplicationIdentifier?)
    /// The database was closed with ``KeyValueDatabase/close()``; open it again to read or
    /// write.
    case closed
    /// ``KeyValueDatabase/backup(to:)-(URL)`` was given a directory that already holds files.
    case backupDestinationNotEmpty(path: String)

    /// A sentence naming what was wrong.
    public var description: String {
        switch self {
        case .versionConflict(let count):
            return "The key has \(count) concurrent values; read them all or resolve them with a Resolver."
        case let .invalidJSON(key, reason):
            return "The value written to '\(key)' is not JSON: \(reason)"
        case let .unreadableValue(key, reason):
            return "The stored value of '\(key)' cannot be read: \(reason)"
        case let .applicationIdentifierMismatch(expected, found):
            return "The database holds data of \(found), not of \(expected)."
        case let .applicationDataTooNew(expected, found):
            return "The database holds data of \(found), newer than \(expected) can read."
        case let .invalidSearchQuery(query, reason):
            return "The search query '\(query)' is not valid: \(reason)"
        case .searchIndex(let reason):
            return "The full-text index failed: \(reason)"
        case .exchangeOfAnotherStore:
            return "The exchange moves versions of another store, not of this database's store."
        case let .incompatibleApplicationData(receiver, source):
            func name(_ identifier: ApplicationIdentifier?) -> String { identifier.map { "\($0)" } ?? "data without an application identifier" }
            return "Cannot merge \(name(source)) into \(name(receiver)): open each with its upgrader first."
        case .closed:
            return "The database was closed; open it again to read or write."
        case .backupDestinationNotEmpty(let path):
            return "The backup destination \(path) already holds files; back up into a new or empty directory."
        }
    }
}

/// The name the KeyValueCRDT README uses for ``KeyValueDatabaseError``.
public typealias KeyValueCRDTError = KeyValueDatabaseError
