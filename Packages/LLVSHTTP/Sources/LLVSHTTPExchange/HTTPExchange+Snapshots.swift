import Foundation
import LLVSCore
import LLVSExchange
import LLVSSyncProtocol
import NIOHTTP1

extension HTTPExchange {
    /// The server's newest snapshot manifest, or nil when it holds none.
    ///
    /// - Throws: ``HTTPExchangeError``, or `LLVSExchange.ExchangeError.invalidSnapshotManifest(location:reason:)`
    ///   for an inconsistent manifest.
    public func retrieveSnapshotManifest() async throws -> SnapshotManifest? {
        guard let manifest = try await transport.json(SnapshotManifest.self, .GET, SyncAPI.StorePath.latestSnapshot, notFoundIsNil: true) else {
            return nil
        }
        try manifest.validate(location: transport.url(SyncAPI.StorePath.latestSnapshot))
        return manifest
    }

    /// One chunk of the snapshot.
    ///
    /// - Throws: `LLVSExchange.ExchangeError.corruptSnapshotChunk(snapshotId:index:)` when
    ///   the server lacks it, or ``HTTPExchangeError``.
    public func retrieveSnapshotChunk(index: Int, of manifest: SnapshotManifest) async throws -> Data {
        let path = SyncAPI.StorePath.snapshotChunk(snapshotId: manifest.snapshotId, index: index)
        guard let data = try await transport.send(.GET, path, notFoundIsNil: true) else {
            throw ExchangeError.corruptSnapshotChunk(snapshotId: manifest.snapshotId, index: index)
        }
        return data
    }

    /// Uploads every chunk, then publishes the manifest; the server checks the chunks
    /// against it before any client sees the snapshot.
    ///
    /// - Throws: ``HTTPExchangeError``, or what `chunk` throws.
    public func sendSnapshot(manifest: SnapshotManifest, chunk: (Int) throws -> Data) async throws {
        for index in 0..<manifest.chunkCount {
            let path = SyncAPI.StorePath.snapshotChunk(snapshotId: manifest.snapshotId, index: index)
            _ = try await transport.send(.PUT, path, body: try chunk(index), contentType: "application/octet-stream")
        }
        _ = try await transport.json(SnapshotManifest.self, .PUT, SyncAPI.StorePath.latestSnapshot, body: manifest)
    }
}
