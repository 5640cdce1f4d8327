import Foundation
import LLVSCore
import LLVSSyncProtocol

/// A pushed version as a storage keeps it: its identifier, its predecessors, and the
/// canonical JSON of its record and of its changes, served back byte for byte.
public struct StoredVersion: Sendable {
    /// The version's identifier.
    public var id: Version.ID
    /// Its predecessors.
    public var predecessorIds: [Version.ID]
    /// Canonical JSON of the `Version` (its successors empty).
    public var record: Data
    /// Canonical JSON of its `[Value.Change]`.
    public var changes: Data
    /// The decoded push, when the version came from one (a peer adds it to its store from
    /// this instead of decoding the JSON again).
    public var message: VersionChangesMessage?

    /// Encodes a pushed version.
    ///
    /// - Throws: `EncodingError` (not expected for decoded input).
    public init(_ message: VersionChangesMessage) throws {
        var version = message.version
        version.successors = .init()
        id = version.id
        predecessorIds = version.predecessorIds
        record = try CanonicalJSON.encode(version)
        changes = try CanonicalJSON.encode(message.valueChanges)
        self.message = VersionChangesMessage(version: version, valueChanges: message.valueChanges)
    }

    /// Creates a stored version from its parts.
    public init(id: Version.ID, predecessorIds: [Version.ID], record: Data, changes: Data) {
        self.id = id
        self.predecessorIds = predecessorIds
        self.record = record
        self.changes = changes
    }
}

/// Decides what a push stores, given the records already stored of the pushed versions and
/// their predecessors. Shared by every SQL backend so they agree exactly.
public struct PushPlan: Sendable {
    /// The versions to insert, in push order.
    public var toInsert: [StoredVersion] = []
    /// How many pushed versions were stored already (with the same record).
    public var alreadyPresentCount = 0

    /// Plans the push.
    ///
    /// - Parameters:
    ///   - versions: The pushed versions, each after its predecessors.
    ///   - storedRecords: The stored records of every pushed identifier and predecessor
    ///     that is stored (others absent).
    /// - Throws: ``SyncStorageError/conflictingVersion(_:)`` for a stored version pushed
    ///   with another record; ``SyncStorageError/unknownPredecessors(_:)`` listing every
    ///   version whose predecessor is neither stored nor earlier in the push.
    public init(versions: [StoredVersion], storedRecords: [Version.ID: Data]) throws {
        var accepted = Set<Version.ID>()
        var missing: [Version.ID: [Version.ID]] = [:]
        for version in versions {
            if let stored = storedRecords[version.id] {
                guard stored == version.record else { throw SyncStorageError.conflictingVersion(version.id) }
                alreadyPresentCount += 1
                continue
            }
            let absent = version.predecessorIds.filter { storedRecords[$0] == nil && !accepted.contains($0) }
            if !absent.isEmpty { missing[version.id] = absent }
            accepted.insert(version.id)
            toInsert.append(version)
        }
        guard missing.isEmpty else { throw SyncStorageError.unknownPredecessors(missing) }
    }

    /// Every identifier whose stored record the plan needs: the pushed versions and their
    /// predecessors.
    public static func identifiersToLookUp(_ versions: [StoredVersion]) -> [Version.ID] {
        var seen = Set<Version.ID>()
        var result: [Version.ID] = []
        for version in versions {
            for id in [version.id] + version.predecessorIds where seen.insert(id).inserted { result.append(id) }
        }
        return result
    }
}
