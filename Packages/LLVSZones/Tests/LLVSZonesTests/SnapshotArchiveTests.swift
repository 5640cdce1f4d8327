import Foundation
import LLVSCore
import LLVSSupport
import LLVSTesting
import PropertyBased
import Testing
@testable import LLVSZones

/// The file backend's snapshot archive: a round trip restores every pack and record, and
/// any damage to the archive is reported before the target store is touched.
@Suite struct SnapshotArchiveTests {
    static let conformance = SnapshotConformance(storage: FileStorage())

    static func listing(_ url: URL) -> [String] {
        (FileManager.default.enumerator(atPath: url.path)?.allObjects as? [String] ?? []).sorted()
    }

    @Test func aRoundTripRestoresEveryPackAndRecord() throws {
        try Self.conformance.checkRoundTrip()
    }

    @Test func restoringLeavesNoStagingAndAddsNoPacksTheSecondTime() throws {
        let source = try Self.conformance.populatedStore(records: 10)
        let (archive, _) = try Self.conformance.archive(of: source)
        let target = try TemporaryDirectory()
        _ = try FileStorage().restoreSnapshot(intoStoreAt: target.url, from: SnapshotConformance.pieces(of: archive, size: 500))
        #expect(!Self.listing(target.url).contains { $0.contains(".snapshot-restore") }, "the staging directory is removed")
        let segments = Self.listing(target.url).filter { $0.hasSuffix(".seg") }
        #expect(segments.count == 2, "one pack segment per zone: \(segments)")
        _ = try FileStorage().restoreSnapshot(intoStoreAt: target.url, from: SnapshotConformance.pieces(of: archive, size: 4096))
        #expect(Self.listing(target.url).filter { $0.hasSuffix(".seg") } == segments, "no pack is added the second time")
    }

    /// Flipping any byte of the archive, or cutting it anywhere, throws and leaves the
    /// target reading exactly as it did (SnapshotConformance.checkDamage).
    @Test func anyDamageIsDetectedBeforeTheStoreIsTouched() async throws {
        let source = try Self.conformance.populatedStore(records: 4)
        let (archive, _) = try Self.conformance.archive(of: source)
        let damage = zip(Gen.int(in: 0...(archive.count - 1)), Gen.int(in: 0...2))
        await propertyCheck(count: 300, input: damage) { position, kind in
            try Self.conformance.checkDamage(archive: archive, position: position, kind: kind)
        }
    }

    @Test(arguments: ["../escape.pack", "values/zz/a.pack", "values/0a/.hidden.pack", "versions/../x.log", "/abs/values/00/a.pack", "maps/0a/b/c.pack", "other/00/a.pack"])
    func pathsOutsideTheStoreLayoutAreRefused(_ path: String) throws {
        #expect(SnapshotArchive.target(of: path) == nil)
        var writer = ByteWriter()
        writer.append(contentsOf: SnapshotArchive.magic)
        SnapshotArchive.encodeEntry(path: path, data: Data("x".utf8), into: &writer)
        let archive = writer.data + SnapshotArchive.encodeEnd(entryCount: 1)
        let target = try TemporaryDirectory()
        #expect(throws: ZoneError.self) {
            try FileStorage().restoreSnapshot(intoStoreAt: target.url, from: SnapshotConformance.pieces(of: archive, size: 64))
        }
        #expect(!FileManager.default.fileExists(atPath: target.url.deletingLastPathComponent().appendingPathComponent("escape.pack").path))
    }

    @Test func validPathsAreAccepted() {
        #expect(SnapshotArchive.target(of: "values/0a/V1.pack") == .pack(zone: "values", shard: "0a", name: "V1.pack"))
        #expect(SnapshotArchive.target(of: "maps/ff/~abc~123.pack") == .pack(zone: "maps", shard: "ff", name: "~abc~123.pack"))
        #expect(SnapshotArchive.target(of: "versions/1-2-ab.log") == .logSegment(name: "1-2-ab.log"))
    }
}
