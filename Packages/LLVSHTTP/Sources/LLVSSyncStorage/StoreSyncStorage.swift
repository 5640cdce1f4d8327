import Foundation
import LLVSCore
import LLVSExchange
import LLVSHistory
import LLVSStore
import LLVSSupport
import LLVSSyncProtocol

/// Serves one live LLVS `Store` through the sync API, so replicas sync with it directly,
/// peer to peer, without a relay (`llvs serve`).
///
/// The list of versions is the store's history in the order versions were added; sequence
/// `n` is the `n`-th version added. The cursor's identity is new for each `StoreSyncStorage`,
/// so after the peer restarts a client lists everything once. Versions other processes add
/// to the store's directory are picked up (`Store.reloadHistory()`) before each listing.
///
/// A push is checked in full (predecessors, repeated versions) before anything is added, so
/// a rejected push adds nothing; each version is then added with `Store.addVersion`, which
/// validates its changes. Snapshots are not held by a peer: those requests throw
/// ``SyncStorageError/unsupported(_:)``.
public final class StoreSyncStorage: SyncStorage {
    /// `store`.
    public let kind = "store"
    /// The store served.
    public let store: Store
    /// The name it is served under.
    public let storeName: SyncStoreName
    private let identity = UUID().uuidString
    private let pushes = Locked(())

    /// Serves `store` under `storeName`.
    public init(store: Store, storeName: SyncStoreName) {
        self.store = store
        self.storeName = storeName
    }

    private func check(_ name: SyncStoreName) throws {
        guard name == storeName else { throw SyncStorageError.unsupported("this peer serves only the store named \(storeName)") }
    }

    private func reload() throws {
        do {
            try store.reloadHistory()
        } catch {
            throw SyncStorageError.unavailable("cannot read the store's history: \(error)")
        }
    }

    /// Reads the store's history.
    ///
    /// - Throws: ``SyncStorageError/unavailable(_:)``.
    public func checkHealth() async throws {
        try reload()
    }

    /// See ``SyncStorage/listVersions(in:after:limit:)``.
    ///
    /// - Throws: ``SyncStorageError/unsupported(_:)`` for another store name,
    ///   ``SyncStorageError/unavailable(_:)``.
    public func listVersions(in name: SyncStoreName, after cursor: SyncCursor?, limit: Int) async throws -> SyncListingPage {
        try check(name)
        try reload()
        let identity = self.identity
        return store.queryHistory { history in
            let start = SyncListing.startSequence(cursor, identity: identity, lastSequence: Int64(history.count))
            let ids = history.versionIdentifiers(addedAt: Int(start)..<(Int(start) + limit + 1))
            let rows = ids.enumerated().map { (sequence: start + Int64($0.offset) + 1, id: $0.element) }
            return SyncListing.page(rows, identity: identity, start: start, limit: limit)
        }
    }

    /// See ``SyncStorage/latestCursor(in:)``.
    ///
    /// - Throws: ``SyncStorageError/unsupported(_:)``, ``SyncStorageError/unavailable(_:)``.
    public func latestCursor(in name: SyncStoreName) async throws -> SyncCursor {
        try check(name)
        try reload()
        return SyncCursor(storeIdentity: identity, sequence: Int64(store.queryHistory(\.count)))
    }

    /// See ``SyncStorage/versionRecords(in:identifiedBy:)``.
    ///
    /// - Throws: ``SyncStorageError/unsupported(_:)``, ``SyncStorageError/unavailable(_:)``.
    public func versionRecords(in name: SyncStoreName, identifiedBy ids: [Version.ID]) async throws -> [Data] {
        try check(name)
        return try ids.compactMap { id in
            guard var version = store.version(identifiedBy: id) else { return nil }
            version.successors = .init()
            return try CanonicalJSON.encode(version)
        }
    }

    /// See ``SyncStorage/valueChanges(in:identifiedBy:)``.
    ///
    /// - Throws: ``SyncStorageError/unsupported(_:)``, ``SyncStorageError/unavailable(_:)``.
    public func valueChanges(in name: SyncStoreName, identifiedBy ids: [Version.ID]) async throws -> [(Version.ID, Data)] {
        try check(name)
        var result: [(Version.ID, Data)] = []
        for id in ids where store.historyIncludesVersions(identifiedBy: [id]) {
            do {
                result.append((id, try CanonicalJSON.encode(try store.valueChanges(madeInVersionIdentifiedBy: id))))
            } catch {
                throw SyncStorageError.unavailable("cannot read the changes of \(id): \(error)")
            }
        }
        return result
    }

    /// See ``SyncStorage/push(_:to:)``.
    ///
    /// - Throws: ``SyncStorageError/unknownPredecessors(_:)``, ``SyncStorageError/conflictingVersion(_:)``,
    ///   ``SyncStorageError/unsupported(_:)``, ``SyncStorageError/invalidInput(_:)`` (the store
    ///   refused a version, for example changes that contradict its predecessors),
    ///   ``SyncStorageError/unavailable(_:)`` (the store's storage failed).
    public func push(_ versions: [StoredVersion], to name: SyncStoreName) async throws -> SyncPushOutcome {
        try check(name)
        let identity = self.identity
        return try pushes.withLock { _ in
            try reload()
            var stored: [Version.ID: Data] = [:]
            for id in PushPlan.identifiersToLookUp(versions) {
                guard var version = store.version(identifiedBy: id) else { continue }
                version.successors = .init()
                stored[id] = try CanonicalJSON.encode(version)
            }
            let plan = try PushPlan(versions: versions, storedRecords: stored)
            var added: [Version.ID] = []
            for version in plan.toInsert {
                let message = try version.message ?? VersionChangesMessage(
                    version: CanonicalJSON.decode(Version.self, from: version.record),
                    valueChanges: CanonicalJSON.decode([Value.Change].self, from: version.changes))
                do {
                    if try store.addVersion(message.version, storing: message.valueChanges) { added.append(version.id) }
                } catch let error as StoreError where Self.isRefusalOfInput(error) {
                    throw SyncStorageError.invalidInput("the store refused version \(version.id): \(error)")
                } catch {
                    throw SyncStorageError.unavailable("the store refused version \(version.id): \(error)")
                }
            }
            return SyncPushOutcome(added: added, alreadyPresentCount: versions.count - added.count,
                                   cursor: SyncCursor(storeIdentity: identity, sequence: Int64(store.queryHistory(\.count))))
        }
    }

    /// True for the store's refusals of what a push holds (they would recur on a retry), as
    /// opposed to failures of the store's storage.
    static func isRefusalOfInput(_ error: StoreError) -> Bool {
        switch error {
        case .unknownPredecessor, .conflictingChanges, .invalidPreservedReference, .conflictingVersion, .history:
            return true
        default:
            return false
        }
    }

    /// A peer holds no snapshots: always nil.
    public func snapshotManifest(in name: SyncStoreName) async throws -> Data? {
        try check(name)
        return nil
    }

    /// Throws ``SyncStorageError/unsupported(_:)``: a peer holds no snapshots.
    public func storeSnapshotChunk(_ data: Data, index: Int, snapshotId: String, in name: SyncStoreName) async throws {
        throw SyncStorageError.unsupported("a peer serving its store holds no snapshots; use a sync server")
    }

    /// Always nil: a peer holds no snapshots.
    public func snapshotChunk(index: Int, snapshotId: String, in name: SyncStoreName) async throws -> Data? {
        try check(name)
        return nil
    }

    /// Throws ``SyncStorageError/unsupported(_:)``: a peer holds no snapshots.
    public func publishSnapshot(_ manifest: SnapshotManifest, in name: SyncStoreName) async throws {
        throw SyncStorageError.unsupported("a peer serving its store holds no snapshots; use a sync server")
    }
}
