import Foundation
import LLVSCore
import LLVSHistory
import LLVSMap
import LLVSZones

/// The state one opened store shares between its `Store` and that store's merge views:
/// storage, the map index, and the in-memory history with each version's map root.
final class StoreEngine: Sendable {
    struct State: Sendable {
        var history = History()
        /// Map roots of versions with a non-empty map.
        var roots: [Version.ID: NodeReference] = [:]
        /// Records read from the log whose predecessors are not known yet (another writer's
        /// record can be read before the record it builds on); retried on every reload.
        var deferred: [Version.ID: VersionRecord] = [:]
    }

    let zones: StoreZones
    let map: Map
    let state = Locked(State())
    /// The log position read so far; its lock also serializes reloads.
    private let cursor = Locked(VersionLogCursor.start)

    init(zones: StoreZones) throws(StoreError) {
        self.zones = zones
        self.map = Map(zone: zones.maps)
        try reload()
    }

    /// Reads the records appended to the log since the last reload — by this process or any
    /// other — and adds their versions to the history.
    func reload() throws(StoreError) {
        try cursor.withLock { (cursor) throws(StoreError) in
            let (records, next) = try StoreError.wrapping { try zones.versions.records(after: cursor) }
            var decoded: [VersionRecord] = []
            decoded.reserveCapacity(records.count)
            for record in records { decoded.append(try VersionRecord.decode(record)) }
            try state.withLock { (state) throws(StoreError) in try state.integrate(decoded) }
            cursor = next
        }
    }

    /// Appends a version's record and adds it to the history, unless a version with its
    /// identifier is already there. Returns whether it was added.
    func commit(_ record: VersionRecord) throws(StoreError) -> Bool {
        let root = record.root
        let encoded = record.encoded()
        return try state.withLock { (state) throws(StoreError) -> Bool in
            guard !state.history.contains(record.version.id) else { return false }
            for predecessor in record.version.predecessorIds where !state.history.contains(predecessor) {
                throw .unknownPredecessor(predecessor, of: record.version.id)
            }
            try StoreError.wrapping { try zones.versions.append([encoded]) }
            try StoreError.wrapping { try state.history.add(record.version) }
            state.roots[record.version.id] = root
            return true
        }
    }
}

extension StoreEngine.State {
    /// Adds every record whose predecessors are known (in the history or among the records),
    /// in any order; the rest wait in ``deferred``. Linear in the number of records when, as
    /// usual, none has to wait.
    mutating func integrate(_ records: [VersionRecord]) throws(StoreError) {
        var pending = Array(deferred.values)
        deferred = [:]
        var pendingIds = Set(pending.map(\.version.id))
        pending.reserveCapacity(pending.count + records.count)
        for record in records where !history.contains(record.version.id) && pendingIds.insert(record.version.id).inserted {
            pending.append(record)
        }
        guard !pending.isEmpty else { return }

        // A record waits when a predecessor is neither in the history nor a pending record
        // that can be added; repeat until no more records start waiting.
        var waiting: Set<Version.ID> = []
        var changed = true
        while changed {
            changed = false
            for record in pending where !waiting.contains(record.version.id) {
                let blocked = record.version.predecessorIds.contains { predecessor in
                    !history.contains(predecessor) && (!pendingIds.contains(predecessor) || waiting.contains(predecessor))
                }
                if blocked {
                    waiting.insert(record.version.id)
                    changed = true
                }
            }
        }
        let ready = waiting.isEmpty ? pending : pending.filter { !waiting.contains($0.version.id) }
        try StoreError.wrapping { try history.add(contentsOf: ready.lazy.map(\.version)) }
        roots.reserveCapacity(roots.count + ready.count)
        for record in ready {
            if let root = record.root { roots[record.version.id] = root }
        }
        for record in pending where waiting.contains(record.version.id) {
            deferred[record.version.id] = record
        }
    }
}
