import Foundation
import LLVSCore
import LLVSMerge
import LLVSStore

extension KeyValueDatabase {
    /// Writes text to `key` in `scope`: one new store version. The write supersedes every
    /// value of the key this database has seen.
    ///
    /// - Throws: A `StoreError` when the version cannot be written, or a
    ///   ``KeyValueDatabaseError`` when a stored value or the index cannot be read.
    public func writeText(_ text: String, to key: String, scope: String = "") throws {
        try bulkWrite { $0.writeText(text, to: key, scope: scope) }
    }

    /// Writes a JSON document (kept as its text, and read back only through `.json`).
    ///
    /// - Throws: ``KeyValueDatabaseError/invalidJSON(_:reason:)`` when `json` is not JSON;
    ///   otherwise see ``writeText(_:to:scope:)``.
    public func writeJSON(_ json: String, to key: String, scope: String = "") throws {
        try bulkWrite { try $0.writeJSON(json, to: key, scope: scope) }
    }

    /// KeyValueCRDT's spelling of ``writeJSON(_:to:scope:)``.
    ///
    /// - Throws: See ``writeJSON(_:to:scope:)``.
    public func writeJson(_ json: String, to key: String, scope: String = "") throws {
        try writeJSON(json, to: key, scope: scope)
    }

    /// Writes bytes.
    ///
    /// - Throws: See ``writeText(_:to:scope:)``.
    public func writeBlob(_ data: Data, to key: String, scope: String = "") throws {
        try bulkWrite { $0.writeBlob(data, to: key, scope: scope) }
    }

    /// Deletes the key: a tombstone (read back as a `.null` version) that supersedes the
    /// values this database has seen; a write it has not seen is kept beside it by a merge.
    ///
    /// - Throws: See ``writeText(_:to:scope:)``.
    public func delete(key: String, scope: String = "") throws {
        try bulkWrite { $0.delete(key: key, scope: scope) }
    }

    /// Writes every value of `values` in one store version and one transaction.
    ///
    /// - Throws: See ``writeText(_:to:scope:)``; JSON values are checked as in
    ///   ``writeJSON(_:to:scope:)``.
    public func bulkWrite(_ values: [ScopedKey: Value]) throws {
        try bulkWrite { writer in
            for (key, value) in values { try writer.write(value, to: key) }
        }
    }

    /// Collects writes and deletes in `body`, then makes them all one store version, in
    /// one transaction. Nothing is written if `body` throws or writes nothing.
    ///
    /// ```swift
    /// try database.bulkWrite { writer in
    ///     writer.writeText("title", to: "title", scope: "item 1")
    ///     writer.delete(key: "draft", scope: "item 1")
    /// }
    /// ```
    ///
    /// - Throws: What `body` throws, or see ``writeText(_:to:scope:)``.
    public func bulkWrite(_ body: (inout BulkWriter) throws -> Void) throws {
        var writer = BulkWriter()
        try body(&writer)
        guard !writer.pending.isEmpty else { return }
        try commit(writer.pending)
    }

    /// Writes collected by `KeyValueDatabase.bulkWrite(_:)-(_)`; the last write to a key wins.
    public struct BulkWriter {
        var pending: [ScopedKey: MultiValueRegister.Payload] = [:]

        /// Writes text.
        public mutating func writeText(_ text: String, to key: String, scope: String = "") {
            pending[ScopedKey(scope: scope, key: key)] = .text(text)
        }

        /// Writes a JSON document.
        ///
        /// - Throws: ``KeyValueDatabaseError/invalidJSON(_:reason:)`` when `json` is not JSON.
        public mutating func writeJSON(_ json: String, to key: String, scope: String = "") throws {
            try write(.json(json), to: ScopedKey(scope: scope, key: key))
        }

        /// Writes bytes.
        public mutating func writeBlob(_ data: Data, to key: String, scope: String = "") {
            pending[ScopedKey(scope: scope, key: key)] = .blob(data)
        }

        /// Deletes a key (a tombstone).
        public mutating func delete(key: String, scope: String = "") {
            pending[ScopedKey(scope: scope, key: key)] = .tombstone
        }

        /// Writes any value.
        ///
        /// - Throws: ``KeyValueDatabaseError/invalidJSON(_:reason:)`` for a `.json` value that
        ///   is not JSON.
        public mutating func write(_ value: Value, to key: ScopedKey) throws {
            if case .json(let json) = value {
                do {
                    _ = try JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed])
                } catch {
                    throw KeyValueDatabaseError.invalidJSON(key, reason: "\(error.localizedDescription)")
                }
            }
            pending[key] = value.payload
        }
    }

    /// Makes one version storing the new registers of `writes` (and this instance's author
    /// record the first time), and queues their texts for the index (written in one
    /// transaction per batch: ``PendingIndexUpdate``).
    /// `records` are writes to the database's own records (store identifiers under `meta/`).
    func commit(_ writes: [ScopedKey: MultiValueRegister.Payload], records: [LLVSCore.Value.ID: MultiValueRegister.Payload] = [:]) throws {
        let head = try state.withLock { state throws -> LLVSCore.Version.ID in
            guard !state.closed else { throw KeyValueDatabaseError.closed }
            let timestamp = Date().timeIntervalSinceReferenceDate
            var changes: [LLVSCore.Value.Change] = []
            var indexed: [(ScopedKey, [String])] = []
            func assign(_ payload: MultiValueRegister.Payload, to valueId: LLVSCore.Value.ID) throws -> MultiValueRegister {
                var register = try register(valueId, at: state.head) ?? MultiValueRegister()
                register.assign(payload, actor: actor, authorId: author.id, timestamp: timestamp)
                changes.append(.update(LLVSCore.Value(id: valueId, data: try register.encoded())))
                return register
            }
            for (key, payload) in writes.sorted(by: { $0.key < $1.key }) {
                indexed.append((key, Self.texts(of: try assign(payload, to: StoreKeys.valueId(key)))))
            }
            for (valueId, payload) in records.sorted(by: { $0.key < $1.key }) {
                _ = try assign(payload, to: valueId)
            }
            if !state.authorRecorded {
                if let change = try authorRecordChange(at: state.head, timestamp: timestamp) { changes.append(change) }
            }
            let metadata = [Self.authorMetadataKey: try LLVSCore.Version.MetadataValue(author.id)]
            let version = try store.makeVersion(basedOnPredecessor: state.head, storing: changes, metadata: metadata)
            let previous = state.head
            state.head = version.id
            state.authorRecorded = true
            state.pendingIndex.add(indexed, from: previous, to: version.id)
            if state.pendingIndex.isFull { try flushSearchIndex(&state) }
            return version.id
        }
        if !writes.isEmpty, observers.isObserved { notifyObservers(of: Array(writes.keys), at: head) }
    }

    /// The change storing this instance's author under `meta/authors/`, or nil when the
    /// database already records it under the same name.
    private func authorRecordChange(at head: LLVSCore.Version.ID?, timestamp: TimeInterval) throws -> LLVSCore.Value.Change? {
        let valueId = StoreKeys.authorId(author.id)
        var register = try register(valueId, at: head) ?? MultiValueRegister()
        if Set(register.liveEntries.map(\.payload)) == [.text(author.name)] { return nil }
        register.assign(.text(author.name), actor: actor, authorId: author.id, timestamp: timestamp)
        return .update(LLVSCore.Value(id: valueId, data: try register.encoded()))
    }

    /// The texts a register's live entries hold (what the full-text index keeps).
    static func texts(of register: MultiValueRegister) -> [String] {
        register.liveEntries.compactMap { entry in
            if case .text(let text) = entry.payload { return text }
            return nil
        }
    }
}
