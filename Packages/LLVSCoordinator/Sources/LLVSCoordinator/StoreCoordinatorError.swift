import Foundation

/// Why a ``StoreCoordinator`` could not be set up or could not record its state. Every case
/// names the directory or file involved.
public enum StoreCoordinatorError: Error, Hashable, CustomStringConvertible {
    /// No default location could be found for the store or cache directory (`kind` says
    /// which); pass the directories explicitly.
    case noDefaultDirectory(kind: String)
    /// The directory at `path` could not be created; `reason` says why.
    case cannotCreateDirectory(path: String, reason: String)
    /// The coordinator's state file at `path` could not be written; `reason` says why.
    case cannotWriteState(path: String, reason: String)

    /// A sentence naming the problem and the path.
    public var description: String {
        switch self {
        case .noDefaultDirectory(let kind):
            return "No default \(kind) directory could be determined; pass the directory explicitly."
        case let .cannotCreateDirectory(path, reason):
            return "Could not create the directory \(path): \(reason)"
        case let .cannotWriteState(path, reason):
            return "Could not write the coordinator state file \(path): \(reason)"
        }
    }
}
