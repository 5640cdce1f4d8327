import Crypto
import Foundation
import LLVSCore
import LLVSStore
import LLVSSupport
import LLVSZones

/// An exchange that can also hold a snapshot of the store, so a new replica bootstraps
/// from one archive instead of replaying every version. `FileSystemExchange` conforms.
public protocol SnapshotExchange: Exchange {
    /// The manifest of the newest complete snapshot on the other side, or nil if none.
    ///
    /// - Throws: ``ExchangeError/invalidSnapshotManifest(location:reason:)`` for a malformed
    ///   manifest, or the transport's error.
    func retrieveSnapshotManifest() async throws -> SnapshotManifest?

    /// The bytes of chunk `index` of the snapshot `manifest` describes (unchecked: the
    /// caller compares them with the manifest's checksum).
    ///
    /// - Throws: ``ExchangeError/corruptSnapshotChunk(snapshotId:index:)`` when the chunk is
    ///   missing, or the transport's error.
    func retrieveSnapshotChunk(index: Int, of manifest: SnapshotManifest) async throws -> Data

    /// Stores a snapshot: every chunk (`chunk(i)` gives chunk `i`), then the manifest, which
    /// makes it the newest snapshot. Readers never see a partly stored snapshot.
    ///
    /// - Throws: The transport's error, or what `chunk` throws.
    func sendSnapshot(manifest: SnapshotManifest, chunk: (Int) throws -> Data) async throws
}

extension SnapshotExchange {
    /// Writes a snapshot of the store and sends it: the archive is cut into chunks of
    /// `chunkSize` bytes, staged as files in `stagingDirectory` (removed afterwards) with
    /// each chunk's SHA-256, then sent with its manifest.
    ///
    /// `progress`, when given, hears the bytes sent of the whole archive as each chunk is
    /// handed to the transport, and a last report counting every version once all are sent.
    ///
    /// - Returns: The manifest sent, or nil when the store is empty.
    /// - Throws: `StoreError.snapshotsUnsupported` when the storage is not `SnapshotCapable`,
    ///   storage errors, or the transport's errors.
    @discardableResult
    public func sendSnapshot(chunkSize: Int = 4 << 20, stagingDirectory: URL? = nil,
                             progress: ExchangeProgressHandler? = nil) async throws -> SnapshotManifest? {
        let staging = try SnapshotStaging(parent: stagingDirectory)
        defer { staging.remove() }
        var writer = try SnapshotChunkWriter(staging: staging, chunkSize: max(1, chunkSize))
        let contents = try store.writeSnapshot { try writer.append($0) }
        try writer.finish()
        guard let head = contents.mostRecentHead else { return nil }
        let manifest = SnapshotManifest(
            format: contents.format, latestVersionId: head, versionCount: contents.versionCount,
            chunkCount: writer.checksums.count, totalSize: writer.totalSize, chunkSize: max(1, chunkSize),
            chunkChecksums: writer.checksums, sha256: writer.wholeChecksum)
        let report = Locked(ExchangeProgress(direction: .send, completedVersionCount: 0, totalVersionCount: manifest.versionCount,
                                             completedByteCount: 0, totalByteCount: manifest.totalSize))
        progress?(report.withLock { $0 })
        try await sendSnapshot(manifest: manifest) { index in
            let chunk = try staging.read(chunk: index)
            progress?(report.withLock { $0.completedByteCount += Int64(chunk.count); return $0 })
            return chunk
        }
        progress?(report.withLock { $0.completedVersionCount = $0.totalVersionCount; $0.completedByteCount = $0.totalByteCount; return $0 })
        return manifest
    }

    /// Downloads the newest snapshot and restores it into the store. Every chunk is
    /// downloaded to `stagingDirectory` and checked against the manifest before the store
    /// is touched; a damaged chunk throws and leaves the store as it was.
    ///
    /// - Returns: The manifest restored, or nil when the other side has no snapshot.
    /// - Throws: ``ExchangeError/corruptSnapshotChunk(snapshotId:index:)``,
    ///   ``ExchangeError/invalidSnapshotManifest(location:reason:)``,
    ///   ``ExchangeError/snapshotNotRestorable(reason:)`` (another archive format), storage
    ///   and transport errors.
    @discardableResult
    public func restoreSnapshot(stagingDirectory: URL? = nil, progress: ExchangeProgressHandler? = nil) async throws -> SnapshotManifest? {
        guard let manifest = try await retrieveSnapshotManifest() else { return nil }
        try await restoreSnapshot(manifest, stagingDirectory: stagingDirectory, progress: progress)
        return manifest
    }

    /// Restores the snapshot `manifest` describes (one ``retrieveSnapshotManifest()``
    /// returned) into the store, as ``restoreSnapshot(stagingDirectory:progress:)`` does.
    ///
    /// - Throws: See ``restoreSnapshot(stagingDirectory:progress:)``.
    public func restoreSnapshot(_ manifest: SnapshotManifest, stagingDirectory: URL? = nil,
                                progress: ExchangeProgressHandler? = nil) async throws {
        try manifest.validate(location: "snapshot \(manifest.snapshotId)")
        guard let storage = store.storage as? any SnapshotCapable else {
            throw ExchangeError.snapshotNotRestorable(reason: "the store's storage \(type(of: store.storage)) is not SnapshotCapable")
        }
        guard storage.snapshotFormat == manifest.format else {
            throw ExchangeError.snapshotNotRestorable(reason: "the snapshot's format is \(manifest.format), the store's storage restores \(storage.snapshotFormat)")
        }
        let staging = try SnapshotStaging(parent: stagingDirectory)
        defer { staging.remove() }
        var whole = SHA256()
        var report = ExchangeProgress(direction: .retrieve, completedVersionCount: 0, totalVersionCount: manifest.versionCount,
                                      completedByteCount: 0, totalByteCount: manifest.totalSize)
        progress?(report)
        for index in 0..<manifest.chunkCount {
            let data = try await retrieveSnapshotChunk(index: index, of: manifest)
            guard manifest.matches(data, chunk: index) else {
                throw ExchangeError.corruptSnapshotChunk(snapshotId: manifest.snapshotId, index: index)
            }
            whole.update(data: data)
            try staging.write(data, chunk: index)
            report.completedByteCount += Int64(data.count)
            progress?(report)
        }
        guard Hex.encode(Array(whole.finalize())) == manifest.sha256 else {
            throw ExchangeError.invalidSnapshotManifest(location: "snapshot \(manifest.snapshotId)", reason: "the chunks match their checksums but not the whole-archive SHA-256")
        }
        var next = 0
        let contents = try store.restoreSnapshot {
            guard next < manifest.chunkCount else { return nil }
            defer { next += 1 }
            return try staging.read(chunk: next)
        }
        guard store.historyIncludesVersions(identifiedBy: [manifest.latestVersionId]) else {
            throw ExchangeError.snapshotNotRestorable(reason: "after restoring, version \(manifest.latestVersionId) named by the manifest is missing")
        }
        report.completedVersionCount = contents.versionCount
        progress?(report)
    }
}

/// A private directory of chunk files.
struct SnapshotStaging {
    let directory: URL

    init(parent: URL?) throws {
        let base = parent ?? FileManager.default.temporaryDirectory
        directory = base.appendingPathComponent("llvs-snapshot-\(DurableFile.uniqueName())", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw ExchangeError.transport(operation: "create directory", location: directory.path, reason: "\(error)")
        }
    }

    func url(chunk index: Int) -> URL {
        directory.appendingPathComponent(String(format: "chunk-%06d", index))
    }

    func write(_ data: Data, chunk index: Int) throws {
        do {
            try data.write(to: url(chunk: index))
        } catch {
            throw ExchangeError.transport(operation: "write", location: url(chunk: index).path, reason: "\(error)")
        }
    }

    func read(chunk index: Int) throws -> Data {
        guard let data = FileManager.default.contents(atPath: url(chunk: index).path) else {
            throw ExchangeError.transport(operation: "read", location: url(chunk: index).path, reason: "staged chunk missing")
        }
        return data
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Cuts an archive into staged chunks, hashing each and the whole.
struct SnapshotChunkWriter {
    let staging: SnapshotStaging
    let chunkSize: Int
    private var buffer = Data()
    private var whole = SHA256()
    private(set) var checksums: [String] = []
    private(set) var totalSize: Int64 = 0
    private(set) var wholeChecksum = ""

    init(staging: SnapshotStaging, chunkSize: Int) throws {
        self.staging = staging
        self.chunkSize = chunkSize
    }

    mutating func append(_ data: Data) throws {
        var offset = data.startIndex
        while offset < data.endIndex {
            let take = min(chunkSize - buffer.count, data.endIndex - offset)
            buffer.append(data[offset..<(offset + take)])
            offset += take
            if buffer.count == chunkSize {
                try flush(buffer)
                buffer = Data()
            }
        }
    }

    mutating func finish() throws {
        if !buffer.isEmpty || checksums.isEmpty { try flush(buffer) }
        buffer = Data()
        wholeChecksum = Hex.encode(Array(whole.finalize()))
    }

    private mutating func flush(_ chunk: Data) throws {
        try staging.write(chunk, chunk: checksums.count)
        checksums.append(Hex.encode(Array(SHA256.hash(data: chunk))))
        whole.update(data: chunk)
        totalSize += Int64(chunk.count)
    }
}
