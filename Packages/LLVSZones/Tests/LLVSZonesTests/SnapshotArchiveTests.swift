import Foundation
import LLVSCore
import LLVSTesting
import PropertyBased
import Testing
@testable import LLVSZones

/// The file backend's snapshot archive: a round trip restores every pack and record, and
/// any damage to the archive is reported before the target store is touched.
@Suite struct SnapshotArchiveTests {
    /// A file store with packs in both zones and `records` version records.
    static func populatedStore(records: Int) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        let zones = try FileStorage().makeZones(rootDirectoryURL: directory.url)
        for index in 0..<records {
            let version = Version.ID("V\(index)")
            try zones.values.store([ZoneItem(reference: ZoneReference(key: .init("k\(index % 3)"), version: version), data: Data("value \(index)".utf8))])
            try zones.maps.store([ZoneItem(reference: ZoneReference(key: .init("node\(index)"), version: version), data: Data(repeating: UInt8(index % 256), count: 40))])
            try zones.versions.append([Data("record \(index)".utf8)])
        }
        return directory
    }

    static func archive(of directory: TemporaryDirectory) throws -> (Data, SnapshotArchiveSummary) {
        var archive = Data()
        let summary = try FileStorage().writeSnapshot(ofStoreAt: directory.url) { archive.append($0) }
        return (archive, summary)
    }

    /// Hands `data` over in pieces of `pieceSize` bytes.
    static func pieces(of data: Data, size pieceSize: Int) -> () throws -> Data? {
        var offset = 0
        return {
            guard offset < data.count else { return nil }
            defer { offset += pieceSize }
            return data.subdata(in: offset..<min(offset + pieceSize, data.count))
        }
    }

    static func listing(_ url: URL) -> [String] {
        (FileManager.default.enumerator(atPath: url.path)?.allObjects as? [String] ?? []).sorted()
    }

    @Test func aRoundTripRestoresEveryPackAndRecord() throws {
        let source = try Self.populatedStore(records: 25)
        let (archive, summary) = try Self.archive(of: source)
        #expect(summary.versionRecordCount == 25)
        #expect(summary.byteCount == Int64(archive.count))

        let target = try TemporaryDirectory()
        let restored = try FileStorage().restoreSnapshot(intoStoreAt: target.url, from: Self.pieces(of: archive, size: 777))
        #expect(restored == summary)
        let zones = try FileStorage().makeZones(rootDirectoryURL: target.url)
        #expect(try zones.versions.records(after: .start).records.map { String(decoding: $0, as: UTF8.self) }.sorted()
                == (0..<25).map { "record \($0)" }.sorted())
        #expect(try zones.values.data(for: ZoneReference(key: .init("k1"), version: .init("V7"))) == Data("value 7".utf8))
        #expect(try zones.maps.data(for: ZoneReference(key: .init("node24"), version: .init("V24"))) == Data(repeating: 24, count: 40))
        #expect(!Self.listing(target.url).contains { $0.contains(".snapshot-restore") }, "the staging directory is removed")

        // Restoring the same archive again adds no pack files.
        let packsBefore = Self.listing(target.url).filter { $0.hasSuffix(".pack") }
        _ = try FileStorage().restoreSnapshot(intoStoreAt: target.url, from: Self.pieces(of: archive, size: 4096))
        #expect(Self.listing(target.url).filter { $0.hasSuffix(".pack") } == packsBefore)
    }

    /// Flipping any byte of the archive, or cutting it anywhere, throws and leaves the
    /// target exactly as it was.
    @Test func anyDamageIsDetectedBeforeTheStoreIsTouched() async throws {
        let source = try Self.populatedStore(records: 4)
        let (archive, _) = try Self.archive(of: source)
        let damage = zip(Gen.int(in: 0...(archive.count - 1)), Gen.int(in: 0...2))
        await propertyCheck(count: 300, input: damage) { position, kind in
            var damaged = archive
            switch kind {
            case 0: damaged[position] ^= 0x5A
            case 1: damaged = damaged.prefix(position)
            default: damaged.append(0)
            }
            let target = try TemporaryDirectory()
            _ = try FileStorage().makeZones(rootDirectoryURL: target.url)
            let before = Self.listing(target.url)
            #expect(throws: ZoneError.self) {
                try FileStorage().restoreSnapshot(intoStoreAt: target.url, from: Self.pieces(of: damaged, size: 100))
            }
            #expect(Self.listing(target.url) == before)
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
            try FileStorage().restoreSnapshot(intoStoreAt: target.url, from: Self.pieces(of: archive, size: 64))
        }
        #expect(!FileManager.default.fileExists(atPath: target.url.deletingLastPathComponent().appendingPathComponent("escape.pack").path))
    }

    @Test func validPathsAreAccepted() {
        #expect(SnapshotArchive.target(of: "values/0a/V1.pack") == .pack(zone: "values", shard: "0a", name: "V1.pack"))
        #expect(SnapshotArchive.target(of: "maps/ff/~abc~123.pack") == .pack(zone: "maps", shard: "ff", name: "~abc~123.pack"))
        #expect(SnapshotArchive.target(of: "versions/1-2-ab.log") == .logSegment(name: "1-2-ab.log"))
    }
}
