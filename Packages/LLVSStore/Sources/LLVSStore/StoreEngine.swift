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
    /// in any order; the rest wait in ``deferred``.
    mutating func integrate(_ records: [VersionRecord]) throws(StoreError) {
        var candidates = deferred
        for record in records where !history.contains(record.version.id) && candidates[record.version.id] == nil {
            candidates[record.version.id] = record
        }
        guard !candidates.isEmpty else { return }
        // Drop, repeatedly, records that build on versions found nowhere.
        var ready = candidates
        var changed = true
        while changed {
            changed = false
            for (id, record) in ready where record.version.predecessorIds.contains(where: { !history.contains($0) && ready[$0] == nil }) {
                ready[id] = nil
                changed = true
            }
        }
        let roots = ready.values.compactMap { record in record.root.map { (record.version.id, $0) } }
        let versions = ready.values.map(\.version)
        try StoreError.wrapping { try history.add(contentsOf: versions) }
        for (id, root) in roots { self.roots[id] = root }
        deferred = candidates.filter { ready[$0.key] == nil }
    }
}
