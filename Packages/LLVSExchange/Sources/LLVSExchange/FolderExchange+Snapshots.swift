import Foundation
import LLVSCore
import LLVSZones

/// Snapshots in the folder:
///
/// ```
/// <root>/snapshots/<snapshotId>/chunk-000000 ...   the chunks
/// <root>/snapshots/latest.json                     the newest snapshot's manifest
/// ```
///
/// Chunks are written first, the manifest last (replacing the previous one atomically), so
/// a reader never sees a partial snapshot. The previous snapshot's chunks are kept (a
/// replica may still be downloading them); older ones are removed.
extension FolderExchange {
    static let snapshotsFolder = "snapshots"
    static let latestManifestPath = "snapshots/latest.json"

    /// Reads `snapshots/latest.json`.
    ///
    /// - Throws: ``ExchangeError/invalidSnapshotManifest(location:reason:)`` naming the file
    ///   when it is malformed or inconsistent.
    public func retrieveSnapshotManifest() async throws -> SnapshotManifest? {
        _ = try await directoryIdentifier()
        let location = folder.location(of: Self.latestManifestPath)
        guard let data = try await folder.read(Self.latestManifestPath) else { return nil }
        let manifest: SnapshotManifest
        do {
            manifest = try CanonicalJSON.decode(SnapshotManifest.self, from: data)
        } catch {
            throw ExchangeError.invalidSnapshotManifest(location: location, reason: Self.describe(error))
        }
        try manifest.validate(location: location)
        return manifest
    }

    /// Reads one chunk file.
    ///
    /// - Throws: ``ExchangeError/corruptSnapshotChunk(snapshotId:index:)`` when it is
    ///   missing, ``ExchangeError/invalidSnapshotManifest(location:reason:)`` for an unsafe id.
    public func retrieveSnapshotChunk(index: Int, of manifest: SnapshotManifest) async throws -> Data {
        guard manifest.hasPathSafeId else {
            throw ExchangeError.invalidSnapshotManifest(location: folder.location(of: Self.latestManifestPath), reason: "snapshot id is not path-safe")
        }
        guard let data = try await folder.read(chunkPath(index, of: manifest.snapshotId)) else {
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
        _ = try await directoryIdentifier()
        for index in 0..<manifest.chunkCount {
            try await folder.replace(try chunk(index), at: chunkPath(index, of: manifest.snapshotId))
        }
        let previous = try? await retrieveSnapshotManifest()
        try await folder.replace(try CanonicalJSON.encode(manifest), at: Self.latestManifestPath)
        let keep: Set<String> = [manifest.snapshotId, previous?.snapshotId].compactMap { $0 }.reduce(into: []) { $0.insert($1) }
        let entries = (try? await folder.list(Self.snapshotsFolder)) ?? []
        for entry in entries where !keep.contains(entry.name) && entry.name != "latest.json" && !entry.name.hasPrefix(".") {
            try? await folder.remove("\(Self.snapshotsFolder)/\(entry.name)")
        }
    }

    private func chunkPath(_ index: Int, of snapshotId: String) -> String {
        "\(Self.snapshotsFolder)/\(snapshotId)/" + String(format: "chunk-%06d", index)
    }
}
