import Foundation

/// A storage backend that can dump a whole store as one archive and restore it elsewhere,
/// so a new replica starts from a snapshot instead of replaying every version.
///
/// The archive is a byte stream handed out in pieces; the exchange layer cuts it into
/// checksummed chunks (`SnapshotManifest`). `FileStorage` conforms; an SQLite backend will.
public protocol SnapshotCapable: Storage {
    /// The name of the archive format, recorded in snapshot manifests; a restore refuses an
    /// archive of another format.
    var snapshotFormat: String { get }

    /// Writes an archive of the store at `rootDirectoryURL`, handing it to `sink` in
    /// consecutive pieces. The archive holds every version whose record was complete when
    /// the call began (later writers may add more meanwhile; they are not included).
    ///
    /// - Returns: What the archive holds.
    /// - Throws: ``ZoneError`` when the store cannot be read, or what `sink` throws.
    func writeSnapshot(ofStoreAt rootDirectoryURL: URL, to sink: (Data) throws -> Void) throws -> SnapshotArchiveSummary

    /// Adds the content of an archive, read from `source` in consecutive pieces (nil at the
    /// end), to the store at `rootDirectoryURL`. The whole archive is read and checked before
    /// anything is written to the store: a malformed or truncated archive throws and leaves
    /// the store untouched. The versions then become visible together (reload the store's
    /// history to see them).
    ///
    /// `checkRecords` gets every version record of the archive once the archive itself is
    /// checked and before anything is written; what it throws ends the restore with the
    /// store untouched (a store checks that each record decodes and fits its history, so a
    /// hostile archive cannot leave a log the store can no longer open).
    ///
    /// - Returns: What the archive held.
    /// - Throws: ``ZoneError/corrupt(path:reason:)`` naming the bad entry,
    ///   ``ZoneError/io(operation:path:reason:)``, or what `checkRecords` throws.
    func restoreSnapshot(intoStoreAt rootDirectoryURL: URL, from source: () throws -> Data?,
                         checkingRecords checkRecords: ([Data]) throws -> Void) throws -> SnapshotArchiveSummary
}

extension SnapshotCapable {
    /// Restores an archive with no check of its version records beyond the storage's own
    /// (``restoreSnapshot(intoStoreAt:from:checkingRecords:)``); a `Store` always passes its check.
    ///
    /// - Throws: See ``restoreSnapshot(intoStoreAt:from:checkingRecords:)``.
    public func restoreSnapshot(intoStoreAt rootDirectoryURL: URL, from source: () throws -> Data?) throws -> SnapshotArchiveSummary {
        try restoreSnapshot(intoStoreAt: rootDirectoryURL, from: source, checkingRecords: { _ in })
    }
}

/// What a snapshot archive holds.
public struct SnapshotArchiveSummary: Hashable, Sendable {
    /// The number of version records.
    public var versionRecordCount: Int
    /// The number of files (or items) in the archive.
    public var entryCount: Int
    /// The bytes of the archive.
    public var byteCount: Int64

    /// Creates a summary.
    public init(versionRecordCount: Int, entryCount: Int, byteCount: Int64) {
        self.versionRecordCount = versionRecordCount
        self.entryCount = entryCount
        self.byteCount = byteCount
    }
}
