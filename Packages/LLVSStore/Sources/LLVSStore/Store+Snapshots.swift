import Foundation
import LLVSCore
import LLVSZones

extension Store {
    /// What a snapshot archive of a store holds.
    public struct SnapshotContents: Hashable, Sendable {
        /// The storage's archive format (`SnapshotCapable.snapshotFormat`).
        public var format: String
        /// The number of versions in the archive.
        public var versionCount: Int
        /// The most recent head when the archive was written (nil for an empty store); the
        /// archive holds it and all of its ancestors.
        public var mostRecentHead: Version.ID?
        /// The storage's summary of the archive.
        public var archive: SnapshotArchiveSummary
    }

    /// True when the storage can write and restore snapshot archives.
    public var supportsSnapshots: Bool {
        storage is any SnapshotCapable
    }

    /// Writes an archive of the whole store, handing it to `sink` in consecutive pieces.
    /// Versions other writers add meanwhile may or may not be included; everything the
    /// store held when the call began is.
    ///
    /// - Throws: ``StoreError/snapshotsUnsupported(storage:)`` when the storage is not
    ///   `SnapshotCapable`, a storage error, or what `sink` throws.
    @discardableResult
    public func writeSnapshot(to sink: (Data) throws -> Void) throws -> SnapshotContents {
        guard let storage = storage as? any SnapshotCapable else {
            throw StoreError.snapshotsUnsupported(storage: "\(type(of: self.storage))")
        }
        try reloadHistory()
        let head = mostRecentHead?.id
        let summary = try StoreError.wrapping { try storage.writeSnapshot(ofStoreAt: rootDirectoryURL, to: sink) }
        return SnapshotContents(format: storage.snapshotFormat, versionCount: summary.versionRecordCount, mostRecentHead: head, archive: summary)
    }

    /// Adds the versions of a snapshot archive, read from `source` in consecutive pieces
    /// (nil at the end), to this store, then reloads the history. Meant for a store that
    /// holds nothing yet (bootstrapping a replica); versions the store already has are
    /// harmless duplicates. The archive is checked completely before anything is written —
    /// its bytes by the storage, and each version record: it decodes (SPEC.md section 8),
    /// its predecessors are in the store or the archive, and a version the store holds has
    /// the same record there (one identifier, one record) — so a malformed or hostile
    /// archive leaves the store as it was.
    ///
    /// - Returns: What the archive held.
    /// - Throws: ``StoreError/snapshotsUnsupported(storage:)``,
    ///   ``StoreError/storage(_:)`` wrapping the storage's description of a bad archive,
    ///   ``StoreError/corruptVersionRecord(reason:)``, ``StoreError/unknownPredecessor(_:of:)``
    ///   or ``StoreError/conflictingVersion(_:)`` for a record that cannot join the store.
    @discardableResult
    public func restoreSnapshot(from source: () throws -> Data?) throws -> SnapshotContents {
        guard let storage = storage as? any SnapshotCapable else {
            throw StoreError.snapshotsUnsupported(storage: "\(type(of: self.storage))")
        }
        try reloadHistory()
        let summary = try StoreError.wrapping {
            try storage.restoreSnapshot(intoStoreAt: rootDirectoryURL, from: source, checkingRecords: { try checkRecordsJoining($0) })
        }
        try reloadHistory()
        return SnapshotContents(format: storage.snapshotFormat, versionCount: summary.versionRecordCount, mostRecentHead: mostRecentHead?.id, archive: summary)
    }

    /// Whether a snapshot's records can join this store's log: each decodes, names
    /// predecessors the store or the records hold, and equals the record the store holds
    /// for its identifier, if any.
    ///
    /// - Throws: ``StoreError/corruptVersionRecord(reason:)``,
    ///   ``StoreError/unknownPredecessor(_:of:)``, ``StoreError/conflictingVersion(_:)``.
    /// - Complexity: O(n) in the archive's records.
    private func checkRecordsJoining(_ records: [Data]) throws(StoreError) {
        var decoded: [Version.ID: VersionRecord] = [:]
        for bytes in records {
            let record = try VersionRecord.decode(bytes)
            let id = record.version.id
            if let earlier = decoded[id] {
                guard earlier.encoded() == bytes else { throw .conflictingVersion(id) }
            } else if let held = version(identifiedBy: id) {
                guard VersionRecord(version: held, root: try root(of: id)).encoded() == bytes else { throw .conflictingVersion(id) }
            }
            decoded[id] = record
        }
        for record in decoded.values {
            for predecessor in record.version.predecessorIds where decoded[predecessor] == nil && version(identifiedBy: predecessor) == nil {
                throw .unknownPredecessor(predecessor, of: record.version.id)
            }
        }
    }
}
