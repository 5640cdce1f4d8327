import LLVSCore
import LLVSHistory
import LLVSMap
import LLVSZones

/// Why a store operation failed. Every case names the versions or values involved; a
/// failed write leaves the store as it was (nothing of the version becomes visible).
public enum StoreError: Error, Hashable, CustomStringConvertible {
    /// No version with this identifier is in the store.
    case unknownVersion(Version.ID)
    /// `version` names predecessor `predecessor`, which is not in the store.
    case unknownPredecessor(Version.ID, of: Version.ID)
    /// One call changes the value `valueId` more than once (for example inserts and removes it).
    case conflictingChanges(valueId: Value.ID)
    /// A `.preserve` names data that is not stored by the version being built on or by one
    /// of its ancestors.
    case invalidPreservedReference(Value.Reference)
    /// The arbiter returned no change for a conflicting fork.
    case unresolvedConflict(valueId: Value.ID, fork: Value.Fork)
    /// `mergeRelated` was asked to merge versions without a common ancestor.
    case noCommonAncestor(Version.ID, Version.ID)
    /// The map says `reference` exists, but its data is missing from storage.
    case missingValueData(Value.Reference)
    /// A version record in the version log could not be decoded; `reason` says why.
    case corruptVersionRecord(reason: String)
    /// The arbiter reads through a context type the store cannot provide.
    case unsupportedArbiterContext(String)
    /// The storage backend (named) cannot write or restore snapshots.
    case snapshotsUnsupported(storage: String)
    /// The store already holds version `versionId` with another record (predecessors,
    /// timestamp or metadata): a stored version is never replaced, and one identifier
    /// has one record everywhere (ARCHITECTURE.md, "Invariants").
    case conflictingVersion(Version.ID)
    /// ``Store/revert(_:basedOn:relativeTo:metadata:)`` cannot undo version `versionId`:
    /// these values were changed again after it (their data at the base differs from both
    /// their data before and after the version).
    case revertConflicts(Version.ID, valueIds: [Value.ID])
    /// ``Store/revert(_:basedOn:relativeTo:metadata:)`` was asked to undo a version relative
    /// to a version that is not one of its predecessors.
    case notAPredecessor(Version.ID, of: Version.ID)
    /// A version that presents itself as a merge the store made (two predecessors, the later
    /// one's timestamp, an identifier of merge identity's form) whose predecessors, changes
    /// and metadata derive another identifier (SPEC.md, "Merge identity"): its record is not
    /// the merge its identifier stands for. Only exchanges that ask for the check raise it.
    case mergeIdentifierMismatch(Version.ID, derived: Version.ID)
    /// The storage backend failed.
    case storage(ZoneError)
    /// The map index failed.
    case map(MapError)
    /// The history graph rejected a version.
    case history(History.Error)

    /// A sentence naming the problem and the identifiers.
    public var description: String {
        switch self {
        case .unknownVersion(let id):
            return "Version \(id) is not in the store."
        case let .unknownPredecessor(predecessor, version):
            return "Version \(version) is based on version \(predecessor), which is not in the store."
        case .conflictingChanges(let valueId):
            return "Value \(valueId) is changed more than once in one version."
        case .invalidPreservedReference(let reference):
            return "Cannot preserve value \(reference.valueId) stored by version \(reference.storedVersionId): that data is not in the ancestry of the new version."
        case let .unresolvedConflict(valueId, fork):
            return "The merge arbiter left the conflict on value \(valueId) (\(fork.kind)) unresolved."
        case let .noCommonAncestor(first, second):
            return "Versions \(first) and \(second) have no common ancestor."
        case .missingValueData(let reference):
            return "The data of value \(reference.valueId) stored by version \(reference.storedVersionId) is missing."
        case .corruptVersionRecord(let reason):
            return "A version record is corrupt: \(reason)"
        case .conflictingVersion(let id):
            return "The store already holds version \(id) with another record (predecessors, timestamp or metadata); a stored version is never replaced."
        case .unsupportedArbiterContext(let type):
            return "The merge arbiter reads from \(type); the store provides Store and AnyMergeContext."
        case .snapshotsUnsupported(let storage):
            return "The storage \(storage) cannot write or restore snapshots (it is not SnapshotCapable)."
        case let .revertConflicts(versionId, valueIds):
            return "Cannot revert version \(versionId): \(valueIds.map(\.rawValue).joined(separator: ", ")) changed again after it."
        case let .notAPredecessor(candidate, versionId):
            return "Version \(candidate) is not a predecessor of version \(versionId)."
        case let .mergeIdentifierMismatch(id, derived):
            return "Version \(id) presents itself as a merge, but its predecessors, changes and metadata derive identifier \(derived): its record is not the merge its identifier stands for."
        case .storage(let error):
            return "Storage failed: \(error)"
        case .map(let error):
            return "Map index failed: \(error)"
        case .history(let error):
            return "History rejected a version: \(error)"
        }
    }

    /// Runs `body`, converting lower layers' errors into ``StoreError``.
    static func wrapping<T>(_ body: () throws -> T) throws(StoreError) -> T {
        do {
            return try body()
        } catch let error as StoreError {
            throw error
        } catch let error as ZoneError {
            throw .storage(error)
        } catch let error as MapError {
            throw .map(error)
        } catch let error as History.Error {
            throw .history(error)
        } catch {
            throw .storage(.io(operation: "access the store", path: "", reason: "\(error)"))
        }
    }
}
