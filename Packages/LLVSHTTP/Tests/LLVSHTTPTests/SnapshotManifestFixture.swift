import Crypto
import Foundation
import LLVSCore
import LLVSExchange
import LLVSSupport

/// Manifests for one-chunk snapshots in the storage and refusal tests.
enum SnapshotManifestFixture {
    static func manifest(id: String, chunk: Data) -> SnapshotManifest {
        let checksum = Hex.encode(Array(SHA256.hash(data: chunk)))
        return SnapshotManifest(snapshotId: id, format: "test", latestVersionId: "v", versionCount: 1, chunkCount: 1,
                                totalSize: Int64(chunk.count), chunkSize: chunk.count, chunkChecksums: [checksum], sha256: checksum)
    }
}
