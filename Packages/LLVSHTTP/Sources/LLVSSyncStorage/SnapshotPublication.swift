import Crypto
import Foundation
import LLVSCore
import LLVSExchange
import LLVSSupport

/// The checks every storage makes before publishing a snapshot: a valid manifest, and every
/// chunk present with the size and SHA-256 the manifest gives.
public enum SnapshotPublication {
    /// Checks the manifest and its chunks, read through `chunk` (nil for a missing one).
    ///
    /// - Throws: ``SyncStorageError/invalidSnapshot(_:)`` naming the first problem, or what
    ///   `chunk` throws.
    public static func check(_ manifest: SnapshotManifest, chunk: (Int) async throws -> Data?) async throws {
        do {
            try manifest.validate(location: "snapshot \(manifest.snapshotId)")
        } catch {
            throw SyncStorageError.invalidSnapshot("\(error)")
        }
        var whole = SHA256()
        for index in 0..<manifest.chunkCount {
            guard let data = try await chunk(index) else {
                throw SyncStorageError.invalidSnapshot("chunk \(index) of snapshot \(manifest.snapshotId) was not uploaded")
            }
            guard manifest.matches(data, chunk: index) else {
                throw SyncStorageError.invalidSnapshot("chunk \(index) of snapshot \(manifest.snapshotId) does not match the manifest's size and checksum")
            }
            whole.update(data: data)
        }
        guard Hex.encode(Array(whole.finalize())) == manifest.sha256 else {
            throw SyncStorageError.invalidSnapshot("the chunks of snapshot \(manifest.snapshotId) do not match the whole-archive SHA-256")
        }
    }
}
