import Foundation
import LLVSCore
import LLVSStore
import LLVSZones

/// An exchange through a shared directory: push and pull between stores that can all reach
/// one directory (a network share, a synced folder, an app-group container, a USB stick).
///
/// Layout (SPEC.md, "File-system exchange"):
///
/// ```
/// <root>/llvs-exchange.json                 {"checksums":true,"format":"llvs-file-exchange","formatVersion":1,"identifier":"<UUID>"}
/// <root>/versions/<shard>/<name>.json       a version record (the Version JSON form), with its checksum
/// <root>/changes/<shard>/<name>.json        the changes it made (an array of Value.Change JSON), with its checksum
/// <root>/log/<random>.log                   which versions are complete, in the order sent
/// <root>/snapshots/...                      snapshot manifests and chunks (SnapshotExchange)
/// ```
///
/// Every file appears atomically and is never replaced. A sender writes a version's two
/// files, makes them durable, and only then appends the version's identifier to its own
/// log segment; readers list only logged versions, so a sender killed midway leaves files
/// nobody reads until the next send logs them. Several stores and processes may use the
/// directory at once. The log gives cursors: each retrieve reads only what was logged
/// since the last one. Each version and changes file carries the SHA-256 of its content,
/// checked before anything read from it is used: a damaged byte gives
/// ``ExchangeError/damagedFile(_:location:reason:)``, and a malformed or truncated file
/// another ``ExchangeError`` naming it. Temporary files that killed senders left behind
/// are removed once they are an hour old (``removeStaleTemporaryFiles(olderThan:now:)``).
public final class FileSystemExchange: Exchange, SnapshotExchange {
    /// The shared directory.
    public let rootDirectoryURL: URL
    /// The local store.
    public let store: Store
    /// How often ``newVersionsAvailable`` looks at the directory.
    public let pollingInterval: Duration
    /// See ``Exchange/maximumBatchByteCount``.
    public let maximumBatchByteCount: Int

    private let log: FileVersionLog
    private let state = Locked<Data?>(nil)
    private let marker = Locked<Marker?>(nil)
    let sweptTemporaryFiles = Locked(false)

    /// The format this version of LLVS writes and reads.
    public static let formatVersion = 1
    static let markerFileName = "llvs-exchange.json"

    /// Creates an exchange between `store` and the directory at `rootDirectoryURL` (created
    /// on first use).
    ///
    /// - Parameters:
    ///   - pollingInterval: How often ``newVersionsAvailable`` checks the directory.
    ///   - maximumBatchByteCount: The most bytes of value data per batch (5 MB by default).
    public init(rootDirectoryURL: URL, store: Store, pollingInterval: Duration = .seconds(1), maximumBatchByteCount: Int = 5_000_000) {
        self.rootDirectoryURL = rootDirectoryURL.standardizedFileURL
        self.store = store
        self.pollingInterval = pollingInterval
        self.maximumBatchByteCount = maximumBatchByteCount
        self.log = FileVersionLog(directoryURL: self.rootDirectoryURL.appendingPathComponent("log", isDirectory: true))
    }

    /// The remembered cursor and remote heads (see ``Exchange/restorationState``).
    public var restorationState: Data? {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }

    // MARK: Layout

    struct Marker: Codable, Equatable {
        /// True in directories made since files carry checksums: every version and changes
        /// file must carry one. Absent (nil) in older directories, whose files are checked
        /// when they carry one.
        var checksums: Bool?
        var format: String
        var formatVersion: Int
        var identifier: String

        /// Every key a marker may have: any other is refused, so that a damaged key name
        /// cannot quietly turn checking off.
        static let keys: Set<String> = ["checksums", "format", "formatVersion", "identifier"]
    }

    /// The directory's identifier, creating the directory and its marker on first use.
    func directoryIdentifier() throws -> String {
        try directoryMarker().identifier
    }

    /// The directory's marker, creating the directory and its marker on first use.
    func directoryMarker() throws -> Marker {
        if let known = marker.withLock({ $0 }) { return known }
        let url = rootDirectoryURL.appendingPathComponent(Self.markerFileName)
        try transport("create directory", rootDirectoryURL) { try DurableFile.createDirectory(rootDirectoryURL) }
        if !FileManager.default.fileExists(atPath: url.path) {
            let marker = Marker(checksums: true, format: "llvs-file-exchange", formatVersion: Self.formatVersion, identifier: UUID().uuidString)
            _ = try transport("write", url) { try DurableFile.create(try CanonicalJSON.encode(marker), at: url) }
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw ExchangeError.transport(operation: "read", location: url.path, reason: "cannot read the exchange marker")
        }
        let found: Marker
        do {
            found = try CanonicalJSON.decode(Marker.self, from: data)
        } catch {
            throw ExchangeError.malformedData(location: url.path, reason: Self.describe(error))
        }
        let keys = (try? JSONSerialization.jsonObject(with: data) as? [String: Any]).map { Set($0.keys) } ?? []
        if let unknown = keys.subtracting(Marker.keys).sorted().first {
            throw ExchangeError.malformedData(location: url.path, reason: "unknown key \"\(unknown)\" in the exchange marker")
        }
        guard found.format == "llvs-file-exchange", found.formatVersion == Self.formatVersion else {
            throw ExchangeError.unsupportedFormat(location: url.path, found: "\(found.format) version \(found.formatVersion)")
        }
        marker.withLock { $0 = found }
        return found
    }

    func fileURL(in folder: String, for version: Version.ID) -> URL {
        rootDirectoryURL.appendingPathComponent(folder, isDirectory: true)
            .appendingPathComponent(FileNaming.shardName(for: version), isDirectory: true)
            .appendingPathComponent(FileNaming.directoryName(for: version) + ".json")
    }

    // MARK: Exchange parts

    /// Creates the directory and its marker if needed and checks the format.
    ///
    /// - Throws: ``ExchangeError/unsupportedFormat(location:found:)``,
    ///   ``ExchangeError/transport(operation:location:reason:)``.
    public func prepareToRetrieve() async throws {
        _ = try directoryIdentifier()
    }

    /// Same as ``prepareToRetrieve()``.
    ///
    /// - Throws: See ``prepareToRetrieve()``.
    public func prepareToSend() async throws {
        _ = try directoryIdentifier()
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
        let directory = try directoryIdentifier()
        let saved = cursor.flatMap { try? JSONDecoder().decode(LogCursor.self, from: $0.rawValue) }
        let start = saved?.directory == directory ? saved : nil
        let (records, next) = try readLog(after: VersionLogCursor(positions: start?.positions ?? [:]))
        var ids: [Version.ID] = []
        ids.reserveCapacity(records.count)
        for record in records {
            // Any UTF-8 is an identifier, the empty one included (SPEC.md section 1).
            guard let string = String(data: record, encoding: .utf8) else {
                throw ExchangeError.malformedData(location: log.directoryURL.path, reason: "a log record is not UTF-8, so not a version identifier")
            }
            ids.append(Version.ID(string))
        }
        let encoded = try JSONEncoder().encode(LogCursor(directory: directory, positions: next.positions))
        return VersionIdentifierPage(versionIds: ids, cursor: ExchangeCursor(rawValue: encoded), isCompleteListing: start == nil)
    }

    /// Reads each version's record file, checking its checksum first.
    ///
    /// - Throws: ``ExchangeError/damagedFile(_:location:reason:)`` when a file does not match
    ///   its checksum (or carries none where the directory requires one),
    ///   ``ExchangeError/missingVersion(_:)`` when a file is absent,
    ///   ``ExchangeError/malformedData(location:reason:)`` naming a malformed or truncated
    ///   file or one holding another version.
    public func retrieveVersions(identifiedBy versionIds: [Version.ID]) async throws -> [Version] {
        let requiresChecksums = try directoryMarker().checksums == true
        return try versionIds.map { id in
            let url = fileURL(in: "versions", for: id)
            guard let data = FileManager.default.contents(atPath: url.path) else { throw ExchangeError.missingVersion(id) }
            let content = try checkedContent(data, of: id, at: url, requiringChecksum: requiresChecksums)
            let version: Version = try decode(Version.self, from: content, at: url)
            guard version.id == id else {
                throw ExchangeError.malformedData(location: url.path, reason: "holds version \(version.id), expected \(id)")
            }
            return version
        }
    }

    /// Reads each version's changes file, checking every file's checksum before returning
    /// any of them.
    ///
    /// - Throws: ``ExchangeError/damagedFile(_:location:reason:)`` when a file does not match
    ///   its checksum (or carries none where the directory requires one),
    ///   ``ExchangeError/missingValueChanges(_:)`` when a file is absent,
    ///   ``ExchangeError/malformedData(location:reason:)`` naming a malformed or truncated file.
    public func retrieveValueChanges(forVersionsIdentifiedBy versionIds: [Version.ID]) async throws -> [Version.ID: [Value.Change]] {
        let requiresChecksums = try directoryMarker().checksums == true
        var result: [Version.ID: [Value.Change]] = [:]
        for id in versionIds {
            let url = fileURL(in: "changes", for: id)
            guard let data = FileManager.default.contents(atPath: url.path) else { throw ExchangeError.missingValueChanges(id) }
            let content = try checkedContent(data, of: id, at: url, requiringChecksum: requiresChecksums)
            let file = try decode(ChangesFile.self, from: content, at: url)
            guard file.version == id else {
                throw ExchangeError.malformedData(location: url.path, reason: "holds the changes of version \(file.version), expected \(id)")
            }
            result[id] = file.valueChanges
        }
        return result
    }

    /// Writes each version's two files, each carrying its checksum (without fsync), makes
    /// them durable with one sync, then logs the versions in one append. Files of a version
    /// the log already lists are never replaced: the same content is a no-op (with or
    /// without a checksum, as a sender from before checksums wrote it), other content an
    /// error. The first send of each exchange object also removes stale temporary files
    /// (``removeStaleTemporaryFiles(olderThan:now:)``).
    ///
    /// - Throws: ``ExchangeError/conflictingVersion(_:location:)`` when the directory
    ///   already logs a version with other content (nothing of that batch is logged then),
    ///   ``ExchangeError/transport(operation:location:reason:)`` when a file cannot be
    ///   written.
    public func send(versionChanges: [VersionChanges]) async throws {
        guard !versionChanges.isEmpty else { return }
        _ = try directoryIdentifier()
        sweepTemporaryFilesOnce()
        var logged: Set<Version.ID>?
        for (version, changes) in versionChanges {
            var record = version
            record.successors = .init()
            let files = [(try CanonicalJSON.encode(ChangesFile(version: version.id, valueChanges: changes)), fileURL(in: "changes", for: version.id)),
                         (try CanonicalJSON.encode(record), fileURL(in: "versions", for: version.id))]
            for (unsealed, url) in files {
                let data = ExchangeFileChecksum.seal(unsealed)
                let kept = try await place(data, at: url) {
                    // Read the log only on this rare path: a file already there with other content.
                    if logged == nil { logged = Set(try await retrieveAllVersionIdentifiers()) }
                    return logged?.contains(version.id) == true
                }
                // A logged file written before checksums, with this content, is the same file.
                if let kept, FileManager.default.contents(atPath: kept.path) != unsealed {
                    throw ExchangeError.conflictingVersion(version.id, location: kept.path)
                }
            }
        }
        DurableFile.synchronizeAll()
        try transport("append to", log.directoryURL) {
            try log.append(versionChanges.map { Data($0.version.id.rawValue.utf8) })
        }
    }

    /// A stream that checks the log every ``pollingInterval`` and yields when it lists a
    /// version the store lacks. It ends when the consumer stops iterating or the exchange
    /// is released.
    public var newVersionsAvailable: AsyncStream<Void> {
        let interval = pollingInterval
        return AsyncStream { [weak self] continuation in
            let task = Task { [weak self] in
                var cursor: ExchangeCursor?
                while !Task.isCancelled {
                    guard let exchange = self else { break }
                    if let page = try? await exchange.retrieveVersionIdentifiers(after: cursor) {
                        cursor = page.cursor
                        if !exchange.store.historyIncludesVersions(identifiedBy: page.versionIds) {
                            continuation.yield()
                        }
                    }
                    try? await Task.sleep(for: interval)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    // MARK: Files

    /// The content of a changes file.
    struct ChangesFile: Codable {
        /// The version whose changes these are (checked on reading).
        var version: Version.ID
        var valueChanges: [Value.Change]
    }

    /// A log cursor tied to the directory it was read from.
    struct LogCursor: Codable, Equatable {
        var directory: String
        var positions: [String: Int]
    }

    /// Creates the file unless it exists with this content. An existing file that differs
    /// is replaced when `isLogged` says its version is not logged yet (a file left
    /// truncated by a crash before sync, which no reader has seen); when it is logged, the
    /// file stays as it is and its URL is returned, for the caller to report.
    private func place(_ data: Data, at url: URL, isLogged: () async throws -> Bool) async throws -> URL? {
        let differs = try transport("write", url) {
            try DurableFile.createDirectory(url.deletingLastPathComponent())
            return try !DurableFile.create(data, at: url, syncing: false) && FileManager.default.contents(atPath: url.path) != data
        }
        guard differs else { return nil }
        if try await isLogged() { return url }
        try transport("write", url) { try DurableFile.write(data, to: url) }
        return nil
    }

    /// The content of a version or changes file of `version`, checked against the checksum
    /// it carries; a file without one is accepted only where the directory does not
    /// require checksums (a directory made before them).
    private func checkedContent(_ data: Data, of version: Version.ID, at url: URL, requiringChecksum: Bool) throws -> Data {
        switch ExchangeFileChecksum.check(data) {
        case .verified(let content):
            return content
        case .unsealed:
            guard !requiringChecksum else {
                throw ExchangeError.damagedFile(version, location: url.path, reason: "it carries no checksum, which every file of this directory must")
            }
            return data
        case .mismatch(let reason):
            throw ExchangeError.damagedFile(version, location: url.path, reason: reason)
        }
    }

    private func readLog(after cursor: VersionLogCursor) throws -> (records: [Data], cursor: VersionLogCursor) {
        do {
            return try log.records(after: cursor)
        } catch let error as ZoneError {
            if case let .corrupt(path, reason) = error { throw ExchangeError.malformedData(location: path, reason: reason) }
            throw ExchangeError.transport(operation: "read", location: log.directoryURL.path, reason: "\(error)")
        }
    }

    private func decode<T: Decodable>(_ type: T.Type, from data: Data, at url: URL) throws -> T {
        do {
            return try CanonicalJSON.decode(type, from: data)
        } catch {
            throw ExchangeError.malformedData(location: url.path, reason: Self.describe(error))
        }
    }

    static func describe(_ error: any Error) -> String {
        ExchangeError.describe(decodingError: error)
    }

    func transport<T>(_ operation: String, _ url: URL, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as ExchangeError {
            throw error
        } catch {
            throw ExchangeError.transport(operation: operation, location: url.path, reason: "\(error)")
        }
    }
}
