import Foundation
import LLVSCore
import LLVSStore
import LLVSSupport
import LLVSZones

/// The directory exchange's formats (SPEC.md section 11) over any ``ExchangeFolder``: what
/// ``FileSystemExchange`` runs over a local directory and `WebDAVExchange` over WebDAV, and
/// what an exchange through storage of your own can run over.
///
/// Layout, format 2 (new folders get it):
///
/// ```
/// llvs-exchange.json                 {"checksums":true,"format":"llvs-file-exchange","formatVersion":2,"identifier":"<UUID>"}
/// batches/<shard>/<sha256>.batch     every version one send wrote, with its changes (binary), named by its SHA-256
/// log/<random>.log                   which batches are complete and the versions each holds, in the order sent
/// snapshots/...                      snapshot manifests and chunks
/// ```
///
/// Format 1 (``DirectoryFormat/versionFiles``), for peers running an LLVS from before
/// format 2:
///
/// ```
/// versions/<shard>/<name>.json       a version record (the Version JSON form), with its checksum
/// changes/<shard>/<name>.json        the changes it made (an array of Value.Change JSON), with its checksum
/// log/<random>.log                   the identifiers of the complete versions, in the order sent
/// ```
///
/// Every file appears atomically and is never replaced with other content. In format 2 a
/// send publishes one batch file durably, then appends one record naming it and its
/// versions to the sender's own log segment; in format 1 it publishes each version's two
/// files, makes them durable, then appends the versions' identifiers. Readers list only
/// logged versions, so a sender stopped midway leaves nothing anybody reads: the next send
/// of the same batch reuses a batch file it finds (the same name is the same content),
/// format 1 files are replaced. Several stores and processes may use the folder at once.
/// The log gives cursors: each retrieve reads only what was logged since the last one; the
/// exchange maps logged versions to their batch files as it reads the log, and reads each
/// batch file once for a retrieve (decoded batches are kept up to 32 MB). A version the log
/// lists is never written again: the same content resent is a no-op, other content is
/// ``ExchangeError/conflictingVersion(_:location:)``. Each batch file is checked against the
/// SHA-256 its log record names, and each format 1 file against the checksum it carries,
/// before anything read from it is used: a damaged byte gives
/// ``ExchangeError/damagedFile(_:location:reason:)``, and a malformed or truncated file
/// another ``ExchangeError`` naming it. Temporary files (`.tmp-*`) that stopped senders left
/// behind are removed once they are an hour old (``removeStaleTemporaryFiles(olderThan:now:)``).
public final class FolderExchange: RestorationStateKeeping, SnapshotExchange {
    /// Where the files are.
    public let folder: any ExchangeFolder
    /// The local store.
    public let store: Store
    /// How soon ``newVersionsAvailable`` looks at the log again after a change.
    public let pollingInterval: Duration
    /// The longest ``newVersionsAvailable`` waits between looks at an idle log.
    public let maximumPollingInterval: Duration
    /// See ``Exchange/maximumBatchByteCount``.
    public let maximumBatchByteCount: Int
    /// True: each batch costs a batch file, a log record and their syncs to disk (over a
    /// remote folder, ``ExchangeFolder/isRemote``, a dozen requests and more), so a send
    /// joins the small parts an exchange wrapping this one prepares (an encrypted exchange
    /// seals) into batches as large as ``maximumBatchByteCount``.
    public var prefersFewBatches: Bool { true }
    /// The format the folder gets if this exchange creates it (an existing folder keeps its own).
    public let newDirectoryFormat: DirectoryFormat

    let log: any ExchangeFolderLog
    /// The remembered cursor and remote heads (see ``Exchange/restorationState``).
    public let restoration = ExchangeRestorationState()
    private let marker = Locked<Marker?>(nil)
    let sweptTemporaryFiles = Locked(false)
    /// Which batch holds each logged version (format 2), read from the log incrementally.
    let batchIndex = Locked(BatchIndex())
    /// Batch files read lately (format 2), bounded by ``BatchCache/byteBudget``.
    let batchCache = Locked(BatchCache())

    /// The layouts of an exchange folder, named by the marker's `formatVersion`.
    public enum DirectoryFormat: Int, Sendable, CaseIterable {
        /// Format 1: two JSON files per version (its record, its changes), a log of version
        /// identifiers. Readable by every LLVS version; each file costs a write to send.
        case versionFiles = 1
        /// Format 2: one binary batch file per send, a log of batch records. LLVS versions
        /// before it refuse such a folder (`ExchangeError.unsupportedFormat`).
        case batches = 2
    }

    /// The format new folders get (``DirectoryFormat/batches``).
    public static let formatVersion = DirectoryFormat.batches.rawValue
    static let markerFileName = "llvs-exchange.json"
    static let logFolder = "log"

    /// Creates an exchange between `store` and `folder` (its marker created on first use).
    ///
    /// - Parameters:
    ///   - store: The store whose versions are sent and retrieved.
    ///   - folder: The shared folder.
    ///   - pollingInterval: How soon ``newVersionsAvailable`` checks the log again after it
    ///     changed.
    ///   - maximumPollingInterval: The longest wait between checks of an idle log; the wait
    ///     doubles from `pollingInterval` up to it (nil: no backoff, every check
    ///     `pollingInterval` apart).
    ///   - maximumBatchByteCount: The most bytes of value data per batch (5 MB by default).
    ///   - newDirectoryFormat: The layout of the folder if this exchange creates it.
    public init(folder: any ExchangeFolder, store: Store, pollingInterval: Duration = .seconds(1), maximumPollingInterval: Duration? = nil,
                maximumBatchByteCount: Int = 5_000_000, newDirectoryFormat: DirectoryFormat = .batches) {
        self.folder = folder
        self.store = store
        self.pollingInterval = pollingInterval
        self.maximumPollingInterval = max(maximumPollingInterval ?? pollingInterval, pollingInterval)
        self.maximumBatchByteCount = maximumBatchByteCount
        self.newDirectoryFormat = newDirectoryFormat
        self.log = folder.log(at: Self.logFolder)
    }

    // MARK: Layout

    struct Marker: Codable, Equatable {
        /// True in folders made since files carry checksums: every version and changes
        /// file must carry one (format 1; format 2 batch files are always checked). Absent
        /// (nil) in older folders, whose files are checked when they carry one.
        var checksums: Bool?
        var format: String
        var formatVersion: Int
        var identifier: String

        /// Every key a marker may have: any other is refused, so that a damaged key name
        /// cannot quietly turn checking off.
        static let keys: Set<String> = ["checksums", "format", "formatVersion", "identifier"]
    }

    /// The folder's identifier, creating its marker on first use.
    func directoryIdentifier() async throws -> String {
        try await directoryMarker().identifier
    }

    /// The folder's marker, creating it on first use.
    func directoryMarker() async throws -> Marker {
        if let known = marker.withLock({ $0 }) { return known }
        let path = Self.markerFileName
        var data = try await folder.read(path)
        if data == nil {
            let new = try CanonicalJSON.encode(Marker(checksums: true, format: "llvs-file-exchange", formatVersion: newDirectoryFormat.rawValue,
                                                      identifier: UUID().uuidString))
            // Another exchange may create it first: then its marker is the one.
            data = try await folder.create(new, at: path, durably: true) ? new : try await folder.read(path)
        }
        guard let data else {
            throw ExchangeError.transport(operation: "read", location: folder.location(of: path), reason: "cannot read the exchange marker")
        }
        let found: Marker
        do {
            found = try CanonicalJSON.decode(Marker.self, from: data)
        } catch {
            throw ExchangeError.malformedData(location: folder.location(of: path), reason: Self.describe(error))
        }
        let keys = (try? JSONSerialization.jsonObject(with: data) as? [String: Any]).map { Set($0.keys) } ?? []
        if let unknown = keys.subtracting(Marker.keys).sorted().first {
            throw ExchangeError.malformedData(location: folder.location(of: path), reason: "unknown key \"\(unknown)\" in the exchange marker")
        }
        guard found.format == "llvs-file-exchange", DirectoryFormat(rawValue: found.formatVersion) != nil else {
            throw ExchangeError.unsupportedFormat(location: folder.location(of: path), found: "\(found.format) version \(found.formatVersion)")
        }
        marker.withLock { $0 = found }
        return found
    }

    /// The folder's format, creating its marker on first use.
    func directoryFormat() async throws -> DirectoryFormat {
        DirectoryFormat(rawValue: try await directoryMarker().formatVersion) ?? .batches
    }

    // MARK: Exchange parts

    /// Creates the folder's marker if needed and checks the format.
    ///
    /// - Throws: ``ExchangeError/unsupportedFormat(location:found:)``,
    ///   ``ExchangeError/transport(operation:location:reason:)``.
    public func prepareToRetrieve() async throws {
        _ = try await directoryIdentifier()
    }

    /// Same as ``prepareToRetrieve()``.
    ///
    /// - Throws: See ``prepareToRetrieve()``.
    public func prepareToSend() async throws {
        _ = try await directoryIdentifier()
    }

    /// Every logged version.
    ///
    /// - Throws: ``ExchangeError/malformedData(location:reason:)`` for a corrupt log segment.
    public func retrieveAllVersionIdentifiers() async throws -> [Version.ID] {
        try await retrieveVersionIdentifiers(after: nil).versionIds
    }

    /// The versions logged after `cursor`, read from where each log segment was left.
    ///
    /// - Throws: ``ExchangeError/malformedData(location:reason:)`` for a corrupt log segment.
    public func retrieveVersionIdentifiers(after cursor: ExchangeCursor?) async throws -> VersionIdentifierPage {
        let directory = try await directoryIdentifier()
        let saved = cursor.flatMap { try? JSONDecoder().decode(LogCursor.self, from: $0.rawValue) }
        let start = saved?.directory == directory ? saved : nil
        let from = VersionLogCursor(positions: start?.positions ?? [:])
        let (ids, next) = try await directoryFormat() == .batches ? listBatchedVersions(after: from) : listVersionFiles(after: from)
        let encoded = try JSONEncoder().encode(LogCursor(directory: directory, positions: next.positions))
        return VersionIdentifierPage(versionIds: ids, cursor: ExchangeCursor(rawValue: encoded), isCompleteListing: start == nil)
    }

    /// The records of the versions, read from the batch files that hold them (format 2;
    /// each file once, checked against the SHA-256 its log record names) or from each
    /// version's record file (format 1, checked against the checksum it carries).
    ///
    /// - Throws: ``ExchangeError/damagedFile(_:location:reason:)`` when a file does not match
    ///   its checksum (or a format 1 file carries none where the folder requires one),
    ///   ``ExchangeError/missingVersion(_:)`` when a version is not logged or its file is
    ///   absent, ``ExchangeError/malformedData(location:reason:)`` naming a malformed or
    ///   truncated file or one holding another version.
    public func retrieveVersions(identifiedBy versionIds: [Version.ID]) async throws -> [Version] {
        try await directoryFormat() == .batches ? batchedVersions(versionIds) : versionFileRecords(versionIds)
    }

    /// The changes of the versions, read from the batch files that hold them (format 2) or
    /// from each version's changes file (format 1); every file is checked before any
    /// changes are returned.
    ///
    /// - Throws: ``ExchangeError/damagedFile(_:location:reason:)`` when a file does not match
    ///   its checksum (or a format 1 file carries none where the folder requires one),
    ///   ``ExchangeError/missingValueChanges(_:)`` when a version is not logged or its file
    ///   is absent, ``ExchangeError/malformedData(location:reason:)`` naming a malformed or
    ///   truncated file.
    public func retrieveValueChanges(forVersionsIdentifiedBy versionIds: [Version.ID]) async throws -> [Version.ID: [Value.Change]] {
        try await directoryFormat() == .batches ? batchedValueChanges(versionIds) : versionFileChanges(versionIds)
    }

    /// Stores the versions with their changes. Format 2: one batch file holding them all,
    /// published durably, then one log record naming it and its versions, appended to this
    /// exchange's own segment. Format 1: each version's two files, each carrying its
    /// checksum, made durable, then the identifiers in one append. A version the log
    /// already lists is never written again: the same content is a no-op (in format 1 with
    /// or without a checksum, as a sender from before checksums wrote it), other content an
    /// error. The first send of each exchange object also removes stale temporary files
    /// (``removeStaleTemporaryFiles(olderThan:now:)``).
    ///
    /// - Throws: ``ExchangeError/conflictingVersion(_:location:)`` when the folder already
    ///   logs a version with other content (nothing of that batch is logged then),
    ///   ``ExchangeError/transport(operation:location:reason:)`` when a file cannot be
    ///   written, and what reading a logged version's batch throws when a resent version
    ///   must be compared with it.
    public func send(versionChanges: [VersionChanges]) async throws {
        try await send(versionChanges, encodedEntries: nil)
    }

    /// Encodes each version's batch file entry (its record and changes), so that a send
    /// encodes each part while the next is read from the store, and the write of a batch of
    /// joined parts only puts their entries together. A folder known to be of format 1
    /// (which has no batch files) gets the batch as it is.
    ///
    /// - Complexity: O(bytes of the versions' changes).
    public func prepare(forSending versionChanges: [VersionChanges]) throws -> PreparedBatch {
        guard marker.withLock({ $0?.formatVersion }) != DirectoryFormat.versionFiles.rawValue else {
            return PreparedBatch(versionChanges: versionChanges)
        }
        let entries = versionChanges.map { ExchangeBatchFile.encodeEntry($0.version, changes: $0.valueChanges) }
        return PreparedBatch(versionChanges: versionChanges, work: EncodedBatchEntries(versionIds: versionChanges.map(\.version.id), entries: entries))
    }

    /// Sends the batch as ``send(versionChanges:)`` does, with the entries
    /// ``prepare(forSending:)`` encoded for it (each part's, when parts were joined).
    ///
    /// - Throws: What ``send(versionChanges:)`` throws.
    public func send(prepared batch: PreparedBatch) async throws {
        try await send(batch.versionChanges, encodedEntries: EncodedBatchEntries.entries(of: batch))
    }

    /// Sends `versionChanges` in the directory's format; in a batch file, with
    /// `encodedEntries` (each version's entry, in order) when given.
    private func send(_ versionChanges: [VersionChanges], encodedEntries: [[UInt8]]?) async throws {
        guard !versionChanges.isEmpty else { return }
        let format = try await directoryFormat()
        await sweepTemporaryFilesOnce()
        switch format {
        case .batches: try await sendBatch(versionChanges, encodedEntries: encodedEntries)
        case .versionFiles: try await sendVersionFiles(versionChanges)
        }
    }

    /// A stream that checks the log and yields when it lists a version the store lacks.
    ///
    /// Checks are ``pollingInterval`` apart after one that found the log changed, and twice
    /// further apart after each idle one, up to ``maximumPollingInterval``
    /// (``PollingBackoff``). Where the log keeps a change token
    /// (``ExchangeFolderLog/changeToken(ifDifferentFrom:)``, one small request on WebDAV),
    /// an idle check reads only the token, and the records when it changed or after
    /// ``pollsBetweenLogReads`` idle checks; elsewhere it reads what the log gained. It ends
    /// when the consumer stops iterating or the exchange is released.
    public var newVersionsAvailable: AsyncStream<Void> {
        let (minimum, maximum) = (pollingInterval, maximumPollingInterval)
        return AsyncStream { [weak self] continuation in
            let task = Task { [weak self] in
                var backoff = PollingBackoff(minimumInterval: minimum, maximumInterval: maximum)
                var cursor: ExchangeCursor?
                var token: String?
                var checksWithoutRead = 0
                while !Task.isCancelled {
                    guard let exchange = self else { break }
                    let newToken = try? await exchange.log.changeToken(ifDifferentFrom: token)
                    var changed = newToken != token
                    if cursor == nil || newToken == nil || changed || checksWithoutRead >= Self.pollsBetweenLogReads {
                        checksWithoutRead = 0
                        if let page = try? await exchange.retrieveVersionIdentifiers(after: cursor) {
                            cursor = page.cursor
                            token = newToken
                            changed = changed || !page.versionIds.isEmpty
                            if !exchange.store.historyIncludesVersions(identifiedBy: page.versionIds) {
                                continuation.yield()
                            }
                        }
                    } else {
                        checksWithoutRead += 1
                    }
                    let delay = backoff.next(afterChange: changed)
                    try? await Task.sleep(for: delay)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// How many idle checks of a change token ``newVersionsAvailable`` makes before it reads
    /// the log anyway.
    public static let pollsBetweenLogReads = 10

    // MARK: Files

    /// A log cursor tied to the folder it was read from.
    struct LogCursor: Codable, Equatable {
        var directory: String
        var positions: [String: Int]
    }

    func decode<T: Decodable>(_ type: T.Type, from data: Data, at path: String) throws -> T {
        do {
            return try CanonicalJSON.decode(type, from: data)
        } catch {
            throw ExchangeError.malformedData(location: folder.location(of: path), reason: Self.describe(error))
        }
    }

    static func describe(_ error: any Error) -> String {
        ExchangeError.describe(decodingError: error)
    }
}
