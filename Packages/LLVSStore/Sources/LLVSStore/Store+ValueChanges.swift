import LLVSCore
import LLVSMap

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
        var changes: [Value.Change] = []
        changes.reserveCapacity(differences.count)
        for difference in differences {
            guard let new = difference.new else {
                let alsoAbsentOnSecond = try second.map { (id) throws(StoreError) in try reference(of: difference.valueId, at: id) == nil } ?? false
                changes.append(alsoAbsentOnSecond ? .preserveRemoval(difference.valueId) : .remove(difference.valueId))
                continue
            }
            if new.storedVersionId == versionId {
                let value = try requiredValue(at: new)
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
        return try differences.map { difference in
            guard let new = difference.new else { return .remove(difference.valueId) }
            let value = try requiredValue(at: new)
            return difference.old == nil ? .insert(value) : .update(value)
        }
    }
}
