import Foundation
import LLVSCore
import LLVSMap
import LLVSMerge

extension Store: MergeContext {
    /// The reference of value `valueId` at version `versionId`, or nil if the value is
    /// absent there.
    ///
    /// - Throws: ``StoreError/unknownVersion(_:)``, or a storage error.
    public func valueReference(id valueId: Value.ID, at versionId: Version.ID) throws -> Value.Reference? {
        try reference(of: valueId, at: versionId)
    }

    /// The reference of value `valueId` at version `versionId` (the form merge arbiters use).
    ///
    /// - Throws: ``StoreError/unknownVersion(_:)``, or a storage error.
    public func valueReference(_ valueId: Value.ID, at versionId: Version.ID) throws -> Value.Reference? {
        try valueReference(id: valueId, at: versionId)
    }

    /// The value `valueId` as it is at version `versionId` — stored by that version or an
    /// earlier one — or nil if absent there.
    ///
    /// - Throws: ``StoreError/unknownVersion(_:)``, ``StoreError/missingValueData(_:)``, or
    ///   a storage error.
    public func value(id valueId: Value.ID, at versionId: Version.ID) throws -> Value? {
        guard let reference = try valueReference(id: valueId, at: versionId) else { return nil }
        return try requiredValue(at: reference)
    }

    /// The value `valueId` at version `versionId` (the form merge arbiters use).
    ///
    /// - Throws: See ``value(id:at:)``.
    public func value(_ valueId: Value.ID, at versionId: Version.ID) throws -> Value? {
        try value(id: valueId, at: versionId)
    }

    /// The value whose identifier is `idString` at version `versionId`.
    ///
    /// - Throws: See ``value(id:at:)``.
    public func value(idString: String, at versionId: Version.ID) throws -> Value? {
        try value(id: Value.ID(idString), at: versionId)
    }

    /// The value stored at `reference`, or nil if no such data was stored.
    ///
    /// - Throws: A storage error.
    public func value(storedAt reference: Value.Reference) throws -> Value? {
        try data(for: reference).map { Value(id: reference.valueId, data: $0, storedVersionId: reference.storedVersionId) }
    }

    /// The values stored at `references`, in order, read with one pass over storage for
    /// those not in memory (for many values, much cheaper than ``value(storedAt:)`` each).
    ///
    /// - Throws: ``StoreError/missingValueData(_:)`` for the first reference without data,
    ///   or a storage error.
    public func values(storedAt references: [Value.Reference]) throws -> [Value] {
        try requiredValues(at: references)
    }

    /// The references of every value at version `versionId`, in placement-hash order.
    ///
    /// - Throws: ``StoreError/unknownVersion(_:)``, or a storage error.
    public func valueReferences(at versionId: Version.ID) throws -> [Value.Reference] {
        let root = try root(of: versionId)
        return try StoreError.wrapping { try engine.map.references(in: root, overlay: overlay?.maps) }
    }

    /// Calls `body` with the reference of every value at version `versionId`.
    ///
    /// - Throws: ``StoreError/unknownVersion(_:)``, a storage error, or what `body` throws.
    public func enumerate(version versionId: Version.ID, executingForEach body: (Value.Reference) throws -> Void) throws {
        let root = try root(of: versionId)
        do {
            try engine.map.enumerate(root, overlay: overlay?.maps, body)
        } catch let error as MapError {
            throw StoreError.map(error)
        }
    }

    /// The number of values at version `versionId` (read from the map root: O(1)).
    ///
    /// - Throws: ``StoreError/unknownVersion(_:)``.
    public func valueCount(at versionId: Version.ID) throws -> Int {
        try root(of: versionId)?.count ?? 0
    }

    /// The versions that stored data for `valueId`, newest first in topological order.
    /// Reads the map of every version in the history: O(versions × log n).
    ///
    /// - Throws: A storage error.
    public func versionIds(for valueId: Value.ID) throws -> [Version.ID] {
        var seen: Set<Version.ID> = []
        var result: [Version.ID] = []
        for version in queryHistory({ Array($0) }) {
            if let stored = try valueReference(id: valueId, at: version.id)?.storedVersionId, seen.insert(stored).inserted {
                result.append(stored)
            }
        }
        return result
    }

    /// The reference of `valueId` at `versionId` (typed-throwing form for internal use).
    func reference(of valueId: Value.ID, at versionId: Version.ID) throws(StoreError) -> Value.Reference? {
        let root = try root(of: versionId)
        return try withMap { (map, overlay) throws(MapError) in try map.reference(of: valueId, in: root, overlay: overlay) }
    }

    /// The value at a reference the map holds: its data must exist.
    func requiredValue(at reference: Value.Reference) throws(StoreError) -> Value {
        guard let data = try data(for: reference) else { throw .missingValueData(reference) }
        return Value(id: reference.valueId, data: data, storedVersionId: reference.storedVersionId)
    }
}
