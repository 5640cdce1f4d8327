import Foundation
import LLVSCore
import LLVSMap
import LLVSZones

extension Store {
    /// Exactly the changes version `versionId` made: applied with ``addVersion(_:storing:)``
    /// to a store holding its predecessors, they rebuild the version. This is what an
    /// exchange ships.
    ///
    /// - Data the version stored comes as `.insert` (new to its first predecessor) or
    ///   `.update`, with the data.
    /// - Data it took from elsewhere in its ancestry — in a merge, the second branch's
    ///   changes — comes as `.preserve`, without data (the receiver has it).
    /// - Removals come as `.remove`, or `.preserveRemoval` when the second predecessor of a
    ///   merge lacks the value too.
    ///
    /// The changes are relative to the first predecessor; for an initial version, every
    /// value is an `.insert`.
    ///
    /// - Throws: ``StoreError/unknownVersion(_:)`` or a storage error.
    public func valueChanges(madeInVersionIdentifiedBy versionId: Version.ID) throws -> [Value.Change] {
        let version = try required(versionId)
        let base = try version.predecessors.map { (predecessors) throws(StoreError) in try root(of: predecessors.idOfFirst) } ?? nil
        let target = try root(of: versionId)
        let differences = try withMap { (map, overlay) throws(MapError) in
            try map.differences(from: base, to: target, overlay: overlay)
        }
        let second = version.predecessors?.idOfSecond
        // The data this version stored, read in one batch (one read of the storage, not
        // one per value).
        var stored = try requiredValues(at: differences.compactMap { $0.new.flatMap { $0.storedVersionId == versionId ? $0 : nil } })
            .makeIterator()
        var changes: [Value.Change] = []
        changes.reserveCapacity(differences.count)
        for difference in differences {
            guard let new = difference.new else {
                let alsoAbsentOnSecond = try second.map { (id) throws(StoreError) in try reference(of: difference.valueId, at: id) == nil } ?? false
                changes.append(alsoAbsentOnSecond ? .preserveRemoval(difference.valueId) : .remove(difference.valueId))
                continue
            }
            if new.storedVersionId == versionId, let value = stored.next() {
                changes.append(difference.old == nil ? .insert(value) : .update(value))
            } else {
                changes.append(.preserve(new))
            }
        }
        return changes
    }

    /// The changes that turn the values at `first` into the values at `second`: `.insert`
    /// and `.update` with the data at `second`, and `.remove`. A diff: O(changes × log n).
    ///
    /// - Throws: ``StoreError/unknownVersion(_:)`` or a storage error.
    public func valueChanges(madeBetween first: Version.ID, and second: Version.ID) throws -> [Value.Change] {
        let from = try root(of: first), to = try root(of: second)
        let differences = try withMap { (map, overlay) throws(MapError) in
            try map.differences(from: from, to: to, overlay: overlay)
        }
        var values = try requiredValues(at: differences.compactMap(\.new)).makeIterator()
        return differences.map { difference in
            guard difference.new != nil, let value = values.next() else { return .remove(difference.valueId) }
            return difference.old == nil ? .insert(value) : .update(value)
        }
    }

    /// The values at references the map holds (their data must exist), in order: from the
    /// merge overlay or the value cache, the rest with one read of the values zone.
    ///
    /// - Throws: ``StoreError/missingValueData(_:)`` for the first reference without data,
    ///   or a storage error.
    func requiredValues(at references: [Value.Reference]) throws(StoreError) -> [Value] {
        var found = [Data?](repeating: nil, count: references.count)
        var unread: [Int] = []
        for (index, reference) in references.enumerated() {
            if let data = overlay?.data(for: reference) ?? engine.valueCache.withLock({ $0.data(for: reference) }) {
                found[index] = data
            } else {
                unread.append(index)
            }
        }
        if !unread.isEmpty {
            let read = try StoreError.wrapping { try engine.zones.values.data(for: unread.map { ZoneReference(references[$0]) }) }
            for (index, data) in zip(unread, read) {
                found[index] = data
                if let data { engine.valueCache.withLock { $0.insert(data, for: references[index]) } }
            }
        }
        var values: [Value] = []
        values.reserveCapacity(references.count)
        for (reference, data) in zip(references, found) {
            guard let data else { throw .missingValueData(reference) }
            values.append(Value(id: reference.valueId, data: data, storedVersionId: reference.storedVersionId))
        }
        return values
    }
}
