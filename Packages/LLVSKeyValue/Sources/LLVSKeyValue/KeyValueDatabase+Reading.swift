import Foundation
import LLVSCore
import LLVSMerge
import LLVSStore

extension KeyValueDatabase {
    /// Every current version of `key` in `scope`, oldest first: none when it was never
    /// written, one normally, several after a merge of concurrent writes. A delete is a
    /// version whose value is `.null` (so `read(key:).isDeleted` is true after a delete), and
    /// a delete concurrent with a write is kept beside it: two versions, as in KeyValueCRDT.
    ///
    /// - Throws: ``KeyValueDatabaseError/unreadableValue(_:reason:)`` when the stored value
    ///   is corrupt, ``KeyValueDatabaseError/closed`` after ``close()``, or a `StoreError`.
    public func read(key: String, scope: String = "") throws -> [Version] {
        try read(key: key, scope: scope, at: currentVersionId)
    }

    /// The values of `key` as they were at store version `versionId` (full history).
    ///
    /// - Throws: `StoreError.unknownVersion` for a version the store lacks, or see
    ///   ``read(key:scope:)``.
    public func read(key: String, scope: String = "", at versionId: LLVSCore.Version.ID?) throws -> [Version] {
        try checkOpenForReading()
        return try register(StoreKeys.valueId(ScopedKey(scope: scope, key: key)), at: versionId).map(Version.versions(of:)) ?? []
    }

    /// Every key that has a value (not only a delete), sorted: KeyValueCRDT's `keys`.
    ///
    /// - Throws: See ``read(key:scope:)``.
    public var keys: [ScopedKey] {
        get throws { try keys(scope: nil, key: nil) }
    }

    /// The keys that have a value: all of them, those in `scope`, those named `key` (in any
    /// scope), or the one key of both, sorted by scope then key.
    ///
    /// - Throws: See ``read(key:scope:)``.
    public func keys(scope: String? = nil, key: String? = nil) throws -> [ScopedKey] {
        try checkOpenForReading()
        return try liveRegisters(at: currentVersionId) { candidate in
            ScopedKey.matches(candidate, scope: scope, key: key)
        }.map(\.key).sorted()
    }

    /// The versions of every key `isIncluded` accepts, read at one version (a consistent
    /// snapshot however many keys). Deleted keys are included with their `.null` version,
    /// as KeyValueCRDT's `bulkRead` includes them; ``keys(scope:key:)`` leaves them out.
    ///
    /// - Throws: See ``read(key:scope:)``.
    public func bulkRead(isIncluded: (ScopedKey) -> Bool) throws -> [ScopedKey: [Version]] {
        try checkOpenForReading()
        var result: [ScopedKey: [Version]] = [:]
        for (key, register) in try registers(at: currentVersionId, isIncluded) {
            result[key] = Version.versions(of: register)
        }
        return result
    }

    /// The versions of every key in `scope` and named `key` (nil for any), as KeyValueCRDT's
    /// `bulkRead(scope:key:)`.
    ///
    /// - Throws: See ``read(key:scope:)``.
    public func bulkRead(scope: String? = nil, key: String? = nil) throws -> [ScopedKey: [Version]] {
        try bulkRead { candidate in ScopedKey.matches(candidate, scope: scope, key: key) }
    }

    /// The versions of every key, in any scope, that starts with `keyPrefix` (KeyValueCRDT's
    /// `bulkReadAllScopes(keyPrefix:)`).
    ///
    /// - Throws: See ``read(key:scope:)``.
    public func bulkReadAllScopes(keyPrefix: String) throws -> [ScopedKey: [Version]] {
        try bulkRead { $0.key.utf8.starts(with: keyPrefix.utf8) }
    }

    /// The values of these keys, read at one version; keys without a value map to `[]`.
    ///
    /// - Throws: See ``read(key:scope:)``.
    public func bulkRead(keys: [ScopedKey]) throws -> [ScopedKey: [Version]] {
        try checkOpenForReading()
        let head = currentVersionId
        var result: [ScopedKey: [Version]] = [:]
        for key in keys {
            result[key] = try register(StoreKeys.valueId(key), at: head).map(Version.versions(of:)) ?? []
        }
        return result
    }

    /// One state of a key in its history.
    public struct HistoryEntry: Sendable {
        /// The store version that wrote this state of the key (a write, or a merge that
        /// joined concurrent values).
        public let storeVersion: LLVSCore.Version
        /// The key's versions in that state (a delete is a `.null` version).
        public let versions: [Version]
    }

    /// Every state `key` has had in the store's history, newest first: the full history
    /// KeyValueCRDT does not keep. Reads the map of every version: O(versions × log keys).
    ///
    /// - Throws: See ``read(key:scope:)``.
    public func history(key: String, scope: String = "") throws -> [HistoryEntry] {
        try checkOpenForReading()
        let valueId = StoreKeys.valueId(ScopedKey(scope: scope, key: key))
        return try store.versionIds(for: valueId).compactMap { storedVersionId in
            guard let version = store.version(identifiedBy: storedVersionId),
                  let value = try store.value(storedAt: LLVSCore.Value.Reference(valueId: valueId, storedVersionId: storedVersionId)) else { return nil }
            return HistoryEntry(storeVersion: version, versions: Version.versions(of: try Self.decode(value)))
        }
    }

    /// The authors recorded in the database (every instance records its author with its
    /// first write), sorted by name.
    ///
    /// - Throws: See ``read(key:scope:)``.
    public func authors() throws -> [Author] {
        try checkOpenForReading()
        return try Self.authors(in: store, at: currentVersionId)
    }

    /// The authors recorded at `head` in `store`.
    static func authors(in store: Store, at head: LLVSCore.Version.ID?) throws -> [Author] {
        guard let head else { return [] }
        var authors: [Author] = []
        try store.enumerate(version: head) { reference in
            let id = reference.valueId.rawValue
            guard id.hasPrefix(StoreKeys.authorPrefix), let uuid = UUID(uuidString: String(id.dropFirst(StoreKeys.authorPrefix.count))),
                  let value = try store.value(storedAt: reference) else { return }
            let names = try decode(value).liveEntries.compactMap { entry -> String? in
                if case .text(let name) = entry.payload { return name }
                return nil
            }
            if let name = names.max() { authors.append(Author(id: uuid, name: name)) }
        }
        return authors.sorted { ($0.name, $0.id.uuidString) < ($1.name, $1.id.uuidString) }
    }

    // MARK: Registers

    /// Throws ``KeyValueDatabaseError/closed`` after ``close()``: every public read starts
    /// with this, as every write checks the same state. (Not from inside the state's lock,
    /// which is not reentrant.)
    func checkOpenForReading() throws(KeyValueDatabaseError) {
        if state.withLock({ $0.closed }) { throw .closed }
    }

    /// The register stored under `valueId` at `versionId`, or nil.
    func register(_ valueId: LLVSCore.Value.ID, at versionId: LLVSCore.Version.ID?) throws -> MultiValueRegister? {
        guard let versionId, let value = try store.value(valueId, at: versionId) else { return nil }
        return try Self.decode(value)
    }

    /// The keys accepted by `isIncluded` that have a live value at `versionId`, with their
    /// registers.
    func liveRegisters(at versionId: LLVSCore.Version.ID?, _ isIncluded: (ScopedKey) -> Bool) throws -> [(key: ScopedKey, register: MultiValueRegister)] {
        try registers(at: versionId, isIncluded).filter { !$0.register.liveEntries.isEmpty }
    }

    /// The keys accepted by `isIncluded` that have a register at `versionId` (deleted keys
    /// included), with their registers.
    func registers(at versionId: LLVSCore.Version.ID?, _ isIncluded: (ScopedKey) -> Bool) throws -> [(key: ScopedKey, register: MultiValueRegister)] {
        guard let versionId else { return [] }
        var result: [(key: ScopedKey, register: MultiValueRegister)] = []
        try store.enumerate(version: versionId) { reference in
            guard let key = StoreKeys.scopedKey(reference.valueId), isIncluded(key),
                  let value = try store.value(storedAt: reference) else { return }
            result.append((key, try Self.decode(value)))
        }
        return result
    }

    /// Decodes a stored register.
    ///
    /// - Throws: ``KeyValueDatabaseError/unreadableValue(_:reason:)``.
    static func decode(_ value: LLVSCore.Value) throws(KeyValueDatabaseError) -> MultiValueRegister {
        do {
            return try MultiValueRegister(decoding: value.data, valueId: value.id)
        } catch {
            let name = StoreKeys.scopedKey(value.id)?.description ?? value.id.rawValue
            if case .undecodable(_, let reason) = error { throw .unreadableValue(name, reason: reason) }
            throw .unreadableValue(name, reason: "\(error)")
        }
    }
}
