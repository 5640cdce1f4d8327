import Foundation
import LLVS

/// An error the `llvs` tool reports with its own exit status, so scripts can tell the
/// failures apart.
///
/// | status | meaning |
/// |---|---|
/// | 1 | any other failure (I/O, a damaged exchange directory, a server that refused or did not answer, …) |
/// | 2 | no store at the given path (run `llvs init`) |
/// | 3 | an unknown or ambiguous version |
/// | 4 | no value with that identifier at that version |
/// | 5 | a merge has conflicts and needs an arbiter (`--arbiter`) |
/// | 6 | `verify` found damage, or the store's data (its database or file-store marker) is missing |
/// | 7 | encryption: a wrong recovery phrase, a device not (or no longer) enrolled, or sealed data or a keyring on the remote that does not hold up |
/// | 64 | a usage error (a bad option or argument, a URL that is not a store URL) |
enum CLIError: Error, CustomStringConvertible {
    case noStore(path: String)
    case storeExists(path: String)
    case unknownVersion(String)
    case ambiguousVersion(String, candidates: [String])
    case emptyStore
    /// The store has versions but `HEAD` names none of them.
    case noHead
    case unknownValue(Value.ID, at: Version.ID)
    case conflictsNeedArbiter([MergeConflict])
    case damaged(problemCount: Int)
    /// The store's data is gone (`path`, its SQLite database or file-store marker, was
    /// deleted); `head` is the HEAD `state.json` still names. Nothing is created in its place.
    case storageMissing(path: String, head: Version.ID?)
    case invalidStoreConfiguration(path: String, reason: String)
    #if HTTPClient
    /// An exchange over HTTP failed; see `HTTPExchangeError+CLI.swift`.
    case remote(HTTPExchangeError)
    #endif
    /// A phrase, key, keyring or sealed blob refused (`EncryptionError`).
    case encryption(EncryptionError)
    case usage(String)
    case failed(String)

    /// The process exit status for the error.
    var exitStatus: Int32 {
        switch self {
        case .noStore: return 2
        case .unknownVersion, .ambiguousVersion, .emptyStore, .noHead: return 3
        case .unknownValue: return 4
        case .conflictsNeedArbiter: return 5
        case .damaged, .storageMissing: return 6
        case .encryption: return 7
        case .usage: return 64
        #if HTTPClient
        case .remote(let error): return error.exitStatus
        #endif
        case .storeExists, .invalidStoreConfiguration, .failed: return 1
        }
    }

    /// A short machine-readable name, used as `error.code` in `--json` output.
    var code: String {
        switch self {
        case .noStore: return "noStore"
        case .storeExists: return "storeExists"
        case .unknownVersion: return "unknownVersion"
        case .ambiguousVersion: return "ambiguousVersion"
        case .emptyStore: return "emptyStore"
        case .noHead: return "noHead"
        case .unknownValue: return "unknownValue"
        case .conflictsNeedArbiter: return "conflictsNeedArbiter"
        case .damaged: return "damaged"
        case .storageMissing: return "storageMissing"
        case .invalidStoreConfiguration: return "invalidStoreConfiguration"
        #if HTTPClient
        case .remote(let error): return error.code
        #endif
        case .encryption: return "encryption"
        case .usage: return "usage"
        case .failed: return "failed"
        }
    }

    var description: String {
        switch self {
        case .noStore(let path):
            return "no LLVS store at \(path) (create one with `llvs init`, or name one with --store or LLVS_STORE)"
        case .storeExists(let path):
            return "a store already exists at \(path)"
        case .unknownVersion(let name):
            return "unknown version '\(name)'"
        case let .ambiguousVersion(name, candidates):
            return "version '\(name)' is ambiguous; it could be \(candidates.joined(separator: ", "))"
        case .emptyStore:
            return "the store has no versions yet"
        case .noHead:
            return "HEAD is not set; choose a version with `llvs checkout VERSION` (`llvs heads` lists the heads)"
        case let .unknownValue(id, version):
            return "no value '\(id)' at version \(version)"
        case .conflictsNeedArbiter(let conflicts):
            let list = conflicts.map { "  \($0.valueId) (\($0.kind))" }.joined(separator: "\n")
            return "the merge has \(Output.count(conflicts.count, "conflict")) that \(conflicts.count == 1 ? "needs" : "need") settling:\n\(list)\n"
                + "see both sides with `llvs conflicts`; merge again with --ours, --theirs, --value ID=DATA, or --arbiter most-recent-change, most-recent-branch, ours or theirs"
        case .damaged(let count):
            return "the store is damaged: \(Output.count(count, "problem")) found"
        case let .storageMissing(path, head):
            return "the store's data is missing: \(path) does not exist (deleted or moved?)"
                + (head.map { "; HEAD (state.json) names version \($0), which it held" } ?? "")
                + "; nothing was created in its place — restore it from a backup, or pull the versions from a remote into a new store"
        case let .invalidStoreConfiguration(path, reason):
            return "the store configuration \(path) is unusable: \(reason)"
        #if HTTPClient
        case .remote(let error):
            return error.message
        #endif
        case .encryption(let error):
            return error.description
        case .usage(let message), .failed(let message):
            return message
        }
    }
}

/// A conflicting value found while merging without an arbiter.
struct MergeConflict: Hashable, Codable, Sendable {
    var valueId: Value.ID
    var kind: String
}

extension CLIError {
    /// The CLI's reading of an error thrown by the libraries: the cases with their own exit
    /// status become those, everything else stays as it is.
    static func classify(_ error: any Error) -> any Error {
        switch error {
        case let error as CLIError: return error
        case let error as StoreError:
            switch error {
            case .unknownVersion(let id): return CLIError.unknownVersion(id.rawValue)
            default: return error
            }
        case let error as RefusingArbiter.Conflicts: return CLIError.conflictsNeedArbiter(error.conflicts)
        #if HTTPClient
        case let error as HTTPExchangeError: return CLIError.remote(error)
        #endif
        case let error as EncryptionError: return CLIError.encryption(error)
        default: return error
        }
    }
}
