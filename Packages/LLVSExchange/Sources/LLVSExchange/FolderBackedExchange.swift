import Foundation
import LLVSCore
import LLVSStore

/// An exchange that is a ``FolderExchange`` over a folder of its own kind
/// (``FileSystemExchange``, `WebDAVExchange`): every part of ``Exchange`` and
/// ``SnapshotExchange`` is the folder exchange's, so such a type only says how it reaches
/// its folder.
public protocol FolderBackedExchange: RestorationStateKeeping, SnapshotExchange {
    /// The exchange that does the work.
    var folderExchange: FolderExchange { get }
}

extension FolderBackedExchange {
    /// The local store.
    public var store: Store { folderExchange.store }
    /// The folder exchange's restoration state.
    public var restoration: ExchangeRestorationState { folderExchange.restoration }
    /// See ``Exchange/maximumBatchByteCount``.
    public var maximumBatchByteCount: Int { folderExchange.maximumBatchByteCount }
    /// Whether the folder is remote (each batch costs requests).
    public var prefersFewBatches: Bool { folderExchange.prefersFewBatches }
    /// See ``FolderExchange/newVersionsAvailable``.
    public var newVersionsAvailable: AsyncStream<Void> { folderExchange.newVersionsAvailable }

    /// See ``FolderExchange/prepareToRetrieve()``.
    ///
    /// - Throws: What ``FolderExchange/prepareToRetrieve()`` throws.
    public func prepareToRetrieve() async throws { try await folderExchange.prepareToRetrieve() }

    /// See ``FolderExchange/retrieveAllVersionIdentifiers()``.
    ///
    /// - Throws: What ``FolderExchange/retrieveAllVersionIdentifiers()`` throws.
    public func retrieveAllVersionIdentifiers() async throws -> [Version.ID] {
        try await folderExchange.retrieveAllVersionIdentifiers()
    }

    /// See ``FolderExchange/retrieveVersionIdentifiers(after:)``.
    ///
    /// - Throws: What ``FolderExchange/retrieveVersionIdentifiers(after:)`` throws.
    public func retrieveVersionIdentifiers(after cursor: ExchangeCursor?) async throws -> VersionIdentifierPage {
        try await folderExchange.retrieveVersionIdentifiers(after: cursor)
    }

    /// See ``FolderExchange/retrieveVersions(identifiedBy:)``.
    ///
    /// - Throws: What ``FolderExchange/retrieveVersions(identifiedBy:)`` throws.
    public func retrieveVersions(identifiedBy versionIds: [Version.ID]) async throws -> [Version] {
        try await folderExchange.retrieveVersions(identifiedBy: versionIds)
    }

    /// See ``FolderExchange/retrieveValueChanges(forVersionsIdentifiedBy:)``.
    ///
    /// - Throws: What ``FolderExchange/retrieveValueChanges(forVersionsIdentifiedBy:)`` throws.
    public func retrieveValueChanges(forVersionsIdentifiedBy versionIds: [Version.ID]) async throws -> [Version.ID: [Value.Change]] {
        try await folderExchange.retrieveValueChanges(forVersionsIdentifiedBy: versionIds)
    }

    /// See ``FolderExchange/prepareToSend()``.
    ///
    /// - Throws: What ``FolderExchange/prepareToSend()`` throws.
    public func prepareToSend() async throws { try await folderExchange.prepareToSend() }

    /// See ``FolderExchange/send(versionChanges:)``.
    ///
    /// - Throws: What ``FolderExchange/send(versionChanges:)`` throws.
    public func send(versionChanges: [VersionChanges]) async throws {
        try await folderExchange.send(versionChanges: versionChanges)
    }

    /// See ``FolderExchange/prepare(forSending:)``.
    public func prepare(forSending versionChanges: [VersionChanges]) throws -> PreparedBatch {
        try folderExchange.prepare(forSending: versionChanges)
    }

    /// See ``FolderExchange/send(prepared:)``.
    ///
    /// - Throws: What ``FolderExchange/send(prepared:)`` throws.
    public func send(prepared batch: PreparedBatch) async throws {
        try await folderExchange.send(prepared: batch)
    }

    /// See ``FolderExchange/retrieveSnapshotManifest()``.
    ///
    /// - Throws: What ``FolderExchange/retrieveSnapshotManifest()`` throws.
    public func retrieveSnapshotManifest() async throws -> SnapshotManifest? {
        try await folderExchange.retrieveSnapshotManifest()
    }

    /// See ``FolderExchange/retrieveSnapshotChunk(index:of:)``.
    ///
    /// - Throws: What ``FolderExchange/retrieveSnapshotChunk(index:of:)`` throws.
    public func retrieveSnapshotChunk(index: Int, of manifest: SnapshotManifest) async throws -> Data {
        try await folderExchange.retrieveSnapshotChunk(index: index, of: manifest)
    }

    /// See ``FolderExchange/sendSnapshot(manifest:chunk:)``.
    ///
    /// - Throws: What ``FolderExchange/sendSnapshot(manifest:chunk:)`` throws.
    public func sendSnapshot(manifest: SnapshotManifest, chunk: (Int) throws -> Data) async throws {
        try await folderExchange.sendSnapshot(manifest: manifest, chunk: chunk)
    }

    /// See ``FolderExchange/removeStaleTemporaryFiles(olderThan:now:)``.
    @discardableResult
    public func removeStaleTemporaryFiles(olderThan age: TimeInterval = FolderExchange.staleTemporaryFileAge,
                                          now: Date = Date()) async -> [String] {
        await folderExchange.removeStaleTemporaryFiles(olderThan: age, now: now)
    }
}
