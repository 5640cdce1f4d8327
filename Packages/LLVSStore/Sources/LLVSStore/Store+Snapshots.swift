import Foundation
import LLVSCore
import LLVSZones

extension Store {
    /// What a snapshot archive of a store holds.
    public struct SnapshotContents: Hashable, Sendable {
        /// The storage's archive format (``SnapshotCapable/snapshotFormat``).
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
    /// harmless duplicates. The archive is checked completely before anything is written, so
    /// a malformed archive leaves the store as it was.
    ///
    /// - Returns: What the archive held.
    /// - Throws: ``StoreError/snapshotsUnsupported(storage:)``,
    ///   ``StoreError/storage(_:)`` wrapping the storage's description of a bad archive.
    @discardableResult
    public func restoreSnapshot(from source: () throws -> Data?) throws -> SnapshotContents {
        guard let storage = storage as? any SnapshotCapable else {
            throw StoreError.snapshotsUnsupported(storage: "\(type(of: self.storage))")
        }
        let summary = try StoreError.wrapping { try storage.restoreSnapshot(intoStoreAt: rootDirectoryURL, from: source) }
        try reloadHistory()
        return SnapshotContents(format: storage.snapshotFormat, versionCount: summary.versionRecordCount, mostRecentHead: mostRecentHead?.id, archive: summary)
    }
}
