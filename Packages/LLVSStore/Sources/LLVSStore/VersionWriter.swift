import Foundation
import LLVSCore
import LLVSMap
import LLVSZones

/// Writes one version: checks the changes, builds the new map nodes, then has the engine
/// store the new value data and nodes and append the version record — the step that makes
/// it visible. A large version's data and nodes are stored in parts before that step
/// (``StoreEngine/partByteCount``). A failure before the record is appended leaves only
/// unreferenced data behind.
struct VersionWriter {
    let store: Store

    /// Writes `version` with `changes`; returns the stored version (with its value data
    /// size) and whether it was added (false if a version with its identifier existed).
    /// `trusted` lists references the caller took from the predecessors' maps itself (a
    /// merge's carried changes), which need no check. A version already stored with the
    /// same record is not written again; with another record it is refused.
    ///
    /// - Throws: ``StoreError/conflictingVersion(_:)`` when the store holds the identifier
    ///   with other predecessors, timestamp or metadata; the errors of the checks and the
    ///   write.
    func write(_ version: Version, changes: some Collection<Value.Change>, trusted: Set<Value.Reference> = [],
               batch: StoreEngine.Batch? = nil, checkingMergeIdentity: Bool = false) throws(StoreError) -> (version: Version, added: Bool) {
        if let existing = store.version(identifiedBy: version.id) { return (try Self.same(existing, as: version), false) }
        var mapChanges = try validate(changes, of: version, trusted: trusted)
        if checkingMergeIdentity { try store.checkMergeIdentity(of: version, changes: changes) }
        let base = try version.predecessors.map { (predecessors) throws(StoreError) in try store.root(of: predecessors.idOfFirst) } ?? nil
        var update: MapUpdate
        do {
            update = try store.withMap { (map, overlay) throws(MapError) in
                // The map update rejects an identifier changed twice (it sorts the changes
                // anyway, so repeats come out adjacent) and, given the only reference to
                // them, frees the map changes as soon as they are sorted.
                try map.update(base, applying: Self.taking(&mapChanges), location: version.id, overlay: overlay, rejectingRepeats: true)
            }
        } catch .map(.repeatedChange(let valueId)) {
            throw .conflictingChanges(valueId: valueId)
        }
        // The items are made after the map, so that a bulk version's million items and its
        // map's entries are never in memory together. Outside a batch, a large version's
        // items and new map nodes are stored in parts ahead of the commit, each let go once
        // stored; the commit makes them durable and only then logs the record.
        var stored = version
        stored.successors = Version.Successors()
        let (items, valueDataSize) = try valueItems(of: changes, storedBy: version.id, inParts: batch == nil)
        if batch == nil { try storeNodesInParts(of: &update) }
        stored.valueDataSize = valueDataSize
        let added = try store.engine.commit(VersionRecord(version: stored, root: update.root), values: items, mapUpdate: update, batch: batch)
        guard let existing = store.version(identifiedBy: version.id) else { return (stored, added) }
        return (added ? existing : try Self.same(existing, as: version), added)
    }

    /// The value items `changes` store under `versionId` and the bytes of their data. When
    /// `inParts` and they hold more than a part's bytes (``StoreEngine/partByteCount``),
    /// they are stored in parts in key order (so that the parts hold disjoint ranges of
    /// keys: SQLite's index grows at its end, packs do not overlap) and none is returned;
    /// otherwise all of them are returned, for the commit.
    ///
    /// - Throws: ``StoreError`` when a part cannot be stored.
    private func valueItems<Changes: Collection<Value.Change>>(of changes: Changes, storedBy versionId: Version.ID,
                                                                inParts: Bool) throws(StoreError) -> (items: [ZoneItem], dataSize: Int64) {
        var dataSize: Int64 = 0, byteCount = 0
        for change in changes {
            guard let value = Self.storedValue(of: change) else { continue }
            dataSize += Int64(value.data.count)
            byteCount += Self.partBytes(of: value)
        }
        let item = { (value: Value) in ZoneItem(reference: ZoneReference(key: .init(storage: value.id.storage), version: versionId), data: value.data) }
        guard inParts, byteCount > store.engine.partByteCount else {
            return (changes.compactMap { Self.storedValue(of: $0).map(item) }, dataSize)
        }
        var positions: [Changes.Index] = []
        var keys: [ZoneReference.Key] = []
        for position in changes.indices {
            guard let value = Self.storedValue(of: changes[position]) else { continue }
            positions.append(position)
            keys.append(.init(storage: value.id.storage))
        }
        // The map update has refused repeated identifiers, so every position stays.
        let order = KeyOrder.positionsOfLastOccurrences(keys)
        keys = []
        var part: [ZoneItem] = []
        var partByteCount = 0
        for index in order {
            guard let value = Self.storedValue(of: changes[positions[index]]) else { continue }
            part.append(item(value))
            partByteCount += Self.partBytes(of: value)
            if partByteCount >= store.engine.partByteCount {
                try store.engine.storePart(values: part, maps: [])
                part.removeAll(keepingCapacity: true)
                partByteCount = 0
            }
        }
        if !part.isEmpty { try store.engine.storePart(values: part, maps: []) }
        return ([], dataSize)
    }

    /// Stores the new nodes of a map update larger than a part in parts, in ascending order
    /// of their keys, taking them all from `update` (the commit would otherwise look for
    /// its share among the parts, reading them back); a smaller update's nodes stay in it,
    /// for the commit.
    ///
    /// - Throws: ``StoreError`` when a part cannot be stored.
    private func storeNodesInParts(of update: inout MapUpdate) throws(StoreError) {
        guard update.newNodes.reduce(0, { $0 + $1.bytes.count }) > store.engine.partByteCount else { return }
        update.sortNewNodesByDescendingHash()
        while !update.newNodes.isEmpty {
            try store.engine.storePart(values: [], maps: update.removeLastNodes(holdingAbout: store.engine.partByteCount))
        }
    }

    /// The value a change stores, if it stores one.
    private static func storedValue(of change: Value.Change) -> Value? {
        switch change {
        case .insert(let value), .update(let value): value
        case .remove, .preserve, .preserveRemoval: nil
        }
    }

    /// What a value counts for in a part: its data and its item.
    private static func partBytes(of value: Value) -> Int {
        value.data.count + MemoryLayout<ZoneItem>.stride
    }

    /// About how many bytes of a large version's items (or new map nodes) are stored in one
    /// part ahead of its commit, unless the store was opened with another size.
    static let partByteCount = 8 << 20

    /// The array `array` held, leaving it empty: passed on as the only reference to it.
    private static func taking(_ array: inout [MapChange]) -> [MapChange] {
        defer { array = [] }
        return array
    }

    /// `existing`, if its record is `version`'s (another process may have written it).
    private static func same(_ existing: Version, as version: Version) throws(StoreError) -> Version {
        guard existing.predecessors == version.predecessors, existing.timestamp == version.timestamp,
              existing.metadata == version.metadata else { throw .conflictingVersion(version.id) }
        return existing
    }

    /// Checks predecessors and changes, returning the map changes they make. (An identifier
    /// changed twice is caught by the map update, which sorts the changes.)
    func validate(_ changes: some Collection<Value.Change>, of version: Version, trusted: Set<Value.Reference> = []) throws(StoreError) -> [MapChange] {
        let predecessors = version.predecessorIds
        if predecessors.count == 2, predecessors[0] == predecessors[1] {
            throw .history(.identicalPredecessors(version.id))
        }
        if !store.historyIncludesVersions(identifiedBy: predecessors) {
            // Another process may have added them since this store last read the log.
            try store.engine.reload()
            for predecessor in predecessors where !store.historyIncludesVersions(identifiedBy: [predecessor]) {
                throw .unknownPredecessor(predecessor, of: version.id)
            }
        }
        var mapChanges: [MapChange] = []
        mapChanges.reserveCapacity(changes.count)
        for change in changes {
            switch change {
            case .insert(let value), .update(let value):
                mapChanges.append(.set(Value.Reference(valueId: value.id, storedVersionId: version.id)))
            case .remove(let id), .preserveRemoval(let id):
                mapChanges.append(.remove(id))
            case .preserve(let reference):
                if !trusted.contains(reference) { try checkPreservable(reference, predecessors: predecessors) }
                mapChanges.append(.set(reference))
            }
        }
        return mapChanges
    }

    /// A preserved reference must be data the new version's ancestry stored: present in a
    /// predecessor's map (the usual case, in merges), or stored by a predecessor or one of
    /// its ancestors (reverting to an older value). Exchanges rely on this: a receiver that
    /// holds the predecessors holds the data.
    private func checkPreservable(_ reference: Value.Reference, predecessors: [Version.ID]) throws(StoreError) {
        for predecessor in predecessors where try store.reference(of: reference.valueId, at: predecessor) == reference {
            return
        }
        let storedBy = reference.storedVersionId
        let inAncestry = store.queryHistory { history in
            history.contains(storedBy) && predecessors.contains { predecessor in
                predecessor == storedBy || ((try? history.isAncestor(storedBy, of: predecessor)) ?? false)
            }
        }
        guard inAncestry, try store.data(for: reference) != nil else { throw .invalidPreservedReference(reference) }
    }
}
