import Foundation
import LLVSCore
import LLVSZones

/// Snapshots in the shared directory:
///
/// ```
/// <root>/snapshots/<snapshotId>/chunk-000000 ...   the chunks
/// <root>/snapshots/latest.json                     the newest snapshot's manifest
/// ```
///
/// Chunks are written first, the manifest last (replacing the previous one atomically), so
/// a reader never sees a partial snapshot. The previous snapshot's chunks are kept (a
/// replica may still be downloading them); older ones are removed.
extension FileSystemExchange {
    var snapshotsDirectory: URL { rootDirectoryURL.appendingPathComponent("snapshots", isDirectory: true) }
    var latestManifestURL: URL { snapshotsDirectory.appendingPathComponent("latest.json") }

    /// Reads `snapshots/latest.json`.
    ///
    /// - Throws: ``ExchangeError/invalidSnapshotManifest(location:reason:)`` naming the file
    ///   when it is malformed or inconsistent.
    public func retrieveSnapshotManifest() async throws -> SnapshotManifest? {
        _ = try directoryIdentifier()
        guard let data = FileManager.default.contents(atPath: latestManifestURL.path) else { return nil }
        let manifest: SnapshotManifest
        do {
            manifest = try CanonicalJSON.decode(SnapshotManifest.self, from: data)
        } catch {
            throw ExchangeError.invalidSnapshotManifest(location: latestManifestURL.path, reason: Self.describe(error))
        }
        try manifest.validate(location: latestManifestURL.path)
        return manifest
    }

    /// Reads one chunk file.
    ///
    /// - Throws: ``ExchangeError/corruptSnapshotChunk(snapshotId:index:)`` when it is
    ///   missing, ``ExchangeError/invalidSnapshotManifest(location:reason:)`` for an unsafe id.
    public func retrieveSnapshotChunk(index: Int, of manifest: SnapshotManifest) async throws -> Data {
        guard manifest.hasPathSafeId else {
            throw ExchangeError.invalidSnapshotManifest(location: latestManifestURL.path, reason: "snapshot id is not path-safe")
        }
        guard let data = FileManager.default.contents(atPath: chunkURL(index, of: manifest.snapshotId).path) else {
            throw ExchangeError.corruptSnapshotChunk(snapshotId: manifest.snapshotId, index: index)
        }
        return data
    }

    /// Writes the chunks, then publishes the manifest, then removes snapshots older than the
    /// one it replaced.
    ///
    /// - Throws: ``ExchangeError/transport(operation:location:reason:)``, or what `chunk` throws.
    public func sendSnapshot(manifest: SnapshotManifest, chunk: (Int) throws -> Data) async throws {
        try manifest.validate(location: "snapshot \(manifest.snapshotId)")
        _ = try directoryIdentifier()
        let directory = snapshotsDirectory.appendingPathComponent(manifest.snapshotId, isDirectory: true)
        try transport("create directory", directory) { try DurableFile.createDirectory(directory) }
        for index in 0..<manifest.chunkCount {
            let url = chunkURL(index, of: manifest.snapshotId)
            let data = try chunk(index)
            try transport("write", url) { try DurableFile.write(data, to: url) }
        }
        let previous = try? await retrieveSnapshotManifest()
        try transport("write", latestManifestURL) { try DurableFile.write(try CanonicalJSON.encode(manifest), to: latestManifestURL) }
        let keep: Set<String> = [manifest.snapshotId, previous?.snapshotId].compactMap { $0 }.reduce(into: []) { $0.insert($1) }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: snapshotsDirectory.path)) ?? []
        for name in names where !keep.contains(name) && name != "latest.json" && !name.hasPrefix(".") {
            try? FileManager.default.removeItem(at: snapshotsDirectory.appendingPathComponent(name))
        }
    }

    private func chunkURL(_ index: Int, of snapshotId: String) -> URL {
        snapshotsDirectory.appendingPathComponent(snapshotId, isDirectory: true).appendingPathComponent(String(format: "chunk-%06d", index))
    }
}
