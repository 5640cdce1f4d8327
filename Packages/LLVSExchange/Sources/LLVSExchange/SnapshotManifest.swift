import Crypto
import Foundation
import LLVSCore
import LLVSSupport

/// Describes a snapshot on the other side of an exchange: a store's archive cut into
/// chunks, each with its SHA-256, so a new replica can bootstrap from it and detect any
/// damaged chunk before touching its store.
///
/// Codable form (canonical JSON, SPEC.md "Snapshot manifest"): the properties below by name;
/// `createdAt` in seconds since 2001-01-01T00:00:00Z; checksums as lower-case hex.
public struct SnapshotManifest: Codable, Hashable, Sendable {
    /// The snapshot's identifier (a UUID for snapshots this library makes); restricted to
    /// `A–Z a–z 0–9 - _` and 128 characters, because it names a directory or a key.
    public var snapshotId: String
    /// The storage's archive format (`LLVSZones.SnapshotCapable.snapshotFormat`).
    public var format: String
    /// When the snapshot was made.
    public var createdAt: Date
    /// The most recent head the snapshot holds (with all its ancestors).
    public var latestVersionId: Version.ID
    /// The number of versions in the snapshot.
    public var versionCount: Int
    /// The number of chunks.
    public var chunkCount: Int
    /// The size of the whole archive in bytes.
    public var totalSize: Int64
    /// The size of every chunk but the last.
    public var chunkSize: Int
    /// The SHA-256 of each chunk, in order.
    public var chunkChecksums: [String]
    /// The SHA-256 of the whole archive.
    public var sha256: String

    /// Creates a manifest.
    public init(snapshotId: String = UUID().uuidString, format: String, createdAt: Date = Date(), latestVersionId: Version.ID,
                versionCount: Int, chunkCount: Int, totalSize: Int64, chunkSize: Int, chunkChecksums: [String], sha256: String) {
        self.snapshotId = snapshotId
        self.format = format
        self.createdAt = createdAt
        self.latestVersionId = latestVersionId
        self.versionCount = versionCount
        self.chunkCount = chunkCount
        self.totalSize = totalSize
        self.chunkSize = chunkSize
        self.chunkChecksums = chunkChecksums
        self.sha256 = sha256
    }

    /// True when ``snapshotId`` is safe to use as a file or directory name.
    public var hasPathSafeId: Bool { Self.isPathSafe(snapshotId: snapshotId) }

    /// True when `snapshotId` is 1–128 characters of `A–Z a–z 0–9 - _`, safe as a file or
    /// directory name and in a URL path.
    public static func isPathSafe(snapshotId: String) -> Bool {
        !snapshotId.isEmpty && snapshotId.utf8.count <= 128
            && snapshotId.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_") }
    }

    /// True when `data` is chunk `index` as this manifest describes it: its size and SHA-256.
    public func matches(_ data: Data, chunk index: Int) -> Bool {
        chunkChecksums.indices.contains(index) && data.count == size(ofChunk: index)
            && Hex.encode(Array(SHA256.hash(data: data))) == chunkChecksums[index]
    }

    /// True when `checksum` is 64 lower-case hex digits (SPEC.md section 5): the only form
    /// a SHA-256 is written in, so comparing the text compares the digests.
    public static func isChecksum(_ checksum: String) -> Bool {
        checksum.utf8.count == 64 && checksum.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }

    /// Checks that the manifest is self-consistent: a path-safe identifier, one checksum of
    /// 64 hex digits per chunk, sizes that add up.
    ///
    /// - Throws: ``ExchangeError/invalidSnapshotManifest(location:reason:)`` naming
    ///   `location` and the first problem.
    public func validate(location: String) throws {
        func invalid(_ reason: String) -> ExchangeError { .invalidSnapshotManifest(location: location, reason: reason) }
        guard hasPathSafeId else { throw invalid("snapshot id \(snapshotId.debugDescription) is not path-safe") }
        guard chunkCount >= 1, chunkChecksums.count == chunkCount else {
            throw invalid("\(chunkChecksums.count) checksums for \(chunkCount) chunks")
        }
        // The sizes come from a peer: products that do not fit 64 bits are refused, not trapped on.
        let (beforeLast, overflow) = Int64(chunkSize).multipliedReportingOverflow(by: Int64(chunkCount - 1))
        guard chunkSize >= 1, !overflow, totalSize > beforeLast, totalSize - beforeLast <= Int64(chunkSize) else {
            throw invalid("total size \(totalSize) does not fit \(chunkCount) chunks of \(chunkSize) bytes")
        }
        guard versionCount >= 0 else { throw invalid("negative version count") }
        for checksum in chunkChecksums + [sha256] where !Self.isChecksum(checksum) {
            throw invalid("checksum \(checksum.debugDescription) is not 64 lower-case hex digits")
        }
    }

    /// The size of chunk `index` of a manifest that ``validate(location:)`` accepted (0 for
    /// one whose sizes do not fit 64 bits).
    public func size(ofChunk index: Int) -> Int {
        guard chunkCount >= 1, index == chunkCount - 1 else { return chunkSize }
        let (beforeLast, overflow) = Int64(chunkSize).multipliedReportingOverflow(by: Int64(chunkCount - 1))
        return overflow ? 0 : Int(clamping: totalSize - beforeLast)
    }
}
