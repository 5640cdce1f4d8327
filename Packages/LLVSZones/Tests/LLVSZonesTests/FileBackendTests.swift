import Foundation
import LLVSCore
import LLVSTesting
import Testing
@testable import LLVSZones

/// File-backend behaviour beyond the shared contract: damaged files give errors naming
/// them, torn log tails are invisible, and separate instances (as in separate processes)
/// see each other's writes.
@Suite struct FileBackendTests {
    static func reference(_ key: String, _ version: String) -> ZoneReference {
        ZoneReference(key: .init(key), version: .init(version))
    }

    /// Opening makes the store's directories, so a store that cannot be written fails at
    /// open, not at its first version.
    @Test func openingMakesTheStoreDirectoriesOrFails() throws {
        let directory = try TemporaryDirectory()
        let root = directory.url.appendingPathComponent("new/store")
        _ = try FileStorage().makeZones(rootDirectoryURL: root)
        for name in ["values", "maps", "versions"] {
            var isDirectory: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent(name).path, isDirectory: &isDirectory) && isDirectory.boolValue,
                    "\(name) exists after open")
        }
        let blocked = directory.url.appendingPathComponent("blocked")
        try FileManager.default.createDirectory(at: blocked, withIntermediateDirectories: true)
        try Data("not a directory".utf8).write(to: blocked.appendingPathComponent("maps"))
        #expect(throws: ZoneError.self) { _ = try FileStorage().makeZones(rootDirectoryURL: blocked) }
        try Data("a file".utf8).write(to: directory.url.appendingPathComponent("file"))
        #expect(throws: ZoneError.self) { _ = try FileStorage().makeZones(rootDirectoryURL: directory.url.appendingPathComponent("file/store")) }
    }

    /// A version's packs go into the store's one shared pack segment, the value packs and
    /// map packs of every version alike: writing versions creates no file per version.
    @Test func versionsAreAppendedToOneSegmentPerWriter() throws {
        let directory = try TemporaryDirectory()
        let zones = try FileStorage().makeZones(rootDirectoryURL: directory.url)
        for version in ["V1", "V2", "V3"] {
            try zones.values.store(Data(version.utf8), for: Self.reference("k", version))
            try zones.maps.store(Data("node \(version)".utf8), for: Self.reference("n", version))
        }
        for zone in ["values", "maps"] {
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.appendingPathComponent(zone).path) == [])
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.appendingPathComponent("packs").path).filter(PackSegment.isSegmentName).count == 1)
        let fresh = try FileStorage().makeZones(rootDirectoryURL: directory.url)
        #expect(try fresh.values.data(for: Self.reference("k", "V2")) == Data("V2".utf8))
        #expect(try fresh.maps.data(for: Self.reference("n", "V2")) == Data("node V2".utf8))
        #expect(try fresh.values.data(for: Self.reference("k", "V4")) == nil)
    }

    /// The two zones' records share a segment but not their keys: the same reference in both
    /// zones holds each zone's data, as written and as a fresh reader scans it, whether
    /// stored one zone at a time or both at once (a commit).
    @Test func eachZoneReadsOnlyItsOwnRecordsOfTheSharedSegment() throws {
        let directory = try TemporaryDirectory()
        let zones = try FileStorage().makeZones(rootDirectoryURL: directory.url)
        try zones.values.store(Data("value".utf8), for: Self.reference("k", "V1"))
        try zones.maps.store(Data("node".utf8), for: Self.reference("k", "V1"))
        try zones.committer.commit(values: [ZoneItem(reference: Self.reference("k", "V2"), data: Data("value 2".utf8))],
                                      maps: [ZoneItem(reference: Self.reference("k", "V2"), data: Data("node 2".utf8)),
                                             ZoneItem(reference: Self.reference("m", "V2"), data: Data("other".utf8))], records: [])
        for reader in [zones, try FileStorage().makeZones(rootDirectoryURL: directory.url)] {
            #expect(try reader.values.data(for: [Self.reference("k", "V1"), Self.reference("k", "V2"), Self.reference("m", "V2")])
                    == [Data("value".utf8), Data("value 2".utf8), nil])
            #expect(try reader.maps.data(for: [Self.reference("k", "V1"), Self.reference("k", "V2"), Self.reference("m", "V2")])
                    == [Data("node".utf8), Data("node 2".utf8), Data("other".utf8)])
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.appendingPathComponent("packs").path).filter(PackSegment.isSegmentName).count == 1)
        #expect(FileStorage.checkStoredBytes(root: directory.url).isEmpty)
    }

    /// A bulk commit (value packs over 1 MiB) writes its value packs before making its map
    /// packs; both zones read everything back, from the writer and from a fresh reader.
    @Test func aBulkCommitWritesItsValuePacksFirstAndKeepsEverything() throws {
        let directory = try TemporaryDirectory()
        let zones = try FileStorage().makeZones(rootDirectoryURL: directory.url)
        let big = Data((0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let values = (0..<3).map { ZoneItem(reference: Self.reference("k\($0)", "V"), data: big + Data([UInt8($0)])) }
        let maps = (0..<3).map { ZoneItem(reference: Self.reference("n\($0)", "V"), data: Data("node \($0)".utf8)) }
        try zones.committer.commit(values: values, maps: maps, records: [])
        for reader in [zones, try FileStorage().makeZones(rootDirectoryURL: directory.url)] {
            #expect(try reader.values.data(for: values.map(\.reference)) == values.map(\.data))
            #expect(try reader.maps.data(for: maps.map(\.reference)) == maps.map(\.data))
            #expect(try reader.maps.data(for: values.map(\.reference)) == [nil, nil, nil])
        }
        #expect(FileStorage.checkStoredBytes(root: directory.url).isEmpty)
    }

    /// A bulk store of more than a piece's bytes is appended as several packs of disjoint key
    /// ranges (so that it is never one pack in memory), for a store's shared segment and a
    /// zone's own alike: every item reads back, a key repeated in the batch has its last
    /// data, and a key the version already held keeps its first.
    @Test func aBulkStoreIsAppendedInPiecesAndKeepsEverything() throws {
        let directory = try TemporaryDirectory()
        let zones = try FileStorage().makeZones(rootDirectoryURL: directory.url)
        try zones.values.store(Data("first".utf8), for: Self.reference("k05", "V"))
        let big = Data(repeating: 0xA5, count: 1 << 20)
        var values = (0..<20).map { ZoneItem(reference: Self.reference(String(format: "k%02d", 19 - $0), "V"), data: big + Data([UInt8($0)])) }
        values.append(ZoneItem(reference: Self.reference("k07", "V"), data: Data("last".utf8)))
        let maps = (0..<3).map { ZoneItem(reference: Self.reference("n\($0)", "V"), data: Data("node \($0)".utf8)) }
        try zones.committer.commit(values: values, maps: maps, records: [])

        let standaloneURL = directory.url.appendingPathComponent("standalone")
        let standalone = FileZone(directoryURL: standaloneURL)
        try standalone.store(values)
        // The batch's data, the last of a repeated key; k05 of the shared segment was there before.
        var expected = Dictionary(values.map { ($0.reference, $0.data) }, uniquingKeysWith: { $1 })
        let references = expected.keys.sorted { $0.key.rawValue < $1.key.rawValue }
        for reader in [standalone, FileZone(directoryURL: standaloneURL)] as [any Zone] {
            #expect(try reader.data(for: references) == references.map { expected[$0] })
        }
        expected[Self.reference("k05", "V")] = Data("first".utf8)
        for reader in [zones.values, try FileStorage().makeZones(rootDirectoryURL: directory.url).values] {
            #expect(try reader.data(for: references) == references.map { expected[$0] })
        }
        // 20 MiB of new data in pieces of about 8 MiB, after the one-item pack stored first.
        let fileValues = try #require(zones.values as? FileZone)
        #expect(try fileValues.segmentLocations(of: "V").count == 4)
        #expect(try standalone.segmentLocations(of: "V").count == 3)
        #expect(try zones.maps.data(for: maps.map(\.reference)) == maps.map(\.data))
        #expect(FileStorage.checkStoredBytes(root: directory.url).isEmpty)
    }

    /// A record of a shared segment whose zone byte is neither 0 nor 1 is damage when a pack
    /// follows it (reported, and skipped by both zones), and a torn write when it is last.
    @Test func aRecordNamingNoZoneIsDamageOrATornWrite() throws {
        let directory = try TemporaryDirectory()
        let zones = try FileStorage().makeZones(rootDirectoryURL: directory.url)
        try zones.values.store(Data("first".utf8), for: Self.reference("k", "V1"))
        try zones.values.store(Data("second".utf8), for: Self.reference("k", "V2"))
        let values = try #require(zones.values as? FileZone)
        let first = try #require(try values.segmentLocations(of: "V1").first)
        let second = try #require(try values.segmentLocations(of: "V2").first)
        let url = URL(fileURLWithPath: first.path)
        let original = try Data(contentsOf: url)

        var bytes = original
        bytes[first.offset - 1] = 7 // the zone byte of V1's record
        try bytes.write(to: url)
        let damaged = try FileStorage().makeZones(rootDirectoryURL: directory.url)
        #expect(try damaged.values.data(for: Self.reference("k", "V2")) == Data("second".utf8))
        #expect(throws: ZoneError.corrupt(path: first.path, reason: "the record at offset \(first.offset - 9) is not a pack")) {
            _ = try damaged.values.data(for: Self.reference("k", "V1"))
        }
        #expect(FileStorage.checkStoredBytes(root: directory.url).contains { $0.reason.contains("names no zone (byte 7)") })

        bytes = original
        bytes[second.offset - 1] = 0xFF // the zone byte of the last record
        try bytes.write(to: url)
        let torn = try FileStorage().makeZones(rootDirectoryURL: directory.url)
        #expect(try torn.values.data(for: [Self.reference("k", "V1"), Self.reference("k", "V2")]) == [Data("first".utf8), nil])
    }

    /// A store of format 2 (a pack segment per zone) is read as it is, marked format 4 when
    /// opened, and then written in a shared segment; both kinds of segment are read, and a
    /// snapshot holds the packs of both.
    @Test func aStoreOfFormatTwoIsReadAndContinuedInASharedSegment() throws {
        let directory = try TemporaryDirectory()
        let root = directory.url
        try CanonicalJSON.encode(FileStorage.Marker.zoneSegments).write(to: root.appendingPathComponent(FileStorage.markerFileName))
        try FileZone(directoryURL: root.appendingPathComponent("values")).store(Data("old".utf8), for: Self.reference("k", "V1"))
        try FileZone(directoryURL: root.appendingPathComponent("maps")).store(Data("old node".utf8), for: Self.reference("n", "V1"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("values/segments").path).count == 1)

        let zones = try FileStorage().makeZones(rootDirectoryURL: root)
        let marker = try CanonicalJSON.decode(FileStorage.Marker.self, from: Data(contentsOf: root.appendingPathComponent(FileStorage.markerFileName)))
        #expect(marker == .current && marker.formatVersion == 4)
        #expect(try zones.values.data(for: Self.reference("k", "V1")) == Data("old".utf8))
        try zones.values.store(Data("new".utf8), for: Self.reference("k", "V2"))
        try zones.maps.store(Data("new node".utf8), for: Self.reference("n", "V2"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("packs").path).filter(PackSegment.isSegmentName).count == 1)
        let fresh = try FileStorage().makeZones(rootDirectoryURL: root)
        #expect(try fresh.values.data(for: [Self.reference("k", "V1"), Self.reference("k", "V2")]) == [Data("old".utf8), Data("new".utf8)])
        #expect(try fresh.maps.data(for: [Self.reference("n", "V1"), Self.reference("n", "V2")]) == [Data("old node".utf8), Data("new node".utf8)])
        #expect(FileStorage.checkStoredBytes(root: root).isEmpty)

        var archive = Data()
        _ = try FileStorage().writeSnapshot(ofStoreAt: root, to: { archive.append($0) })
        let copy = try TemporaryDirectory()
        var pieces: Data? = archive
        _ = try FileStorage().restoreSnapshot(intoStoreAt: copy.url, from: { defer { pieces = nil }; return pieces })
        let restored = try FileStorage().makeZones(rootDirectoryURL: copy.url)
        #expect(try restored.maps.data(for: [Self.reference("n", "V1"), Self.reference("n", "V2")]) == [Data("old node".utf8), Data("new node".utf8)])
        #expect(try restored.values.data(for: [Self.reference("k", "V1"), Self.reference("k", "V2")]) == [Data("old".utf8), Data("new".utf8)])
    }

    /// The pack of `version` in the values zone of the store at `root`.
    static func packLocation(of version: String, inStoreAt root: URL) throws -> (path: String, offset: Int, count: Int) {
        let zone = try #require(try FileStorage().makeZones(rootDirectoryURL: root).values as? FileZone)
        return try #require(try zone.segmentLocations(of: .init(version)).first)
    }

    @Test func corruptPackIsReportedWithItsPath() throws {
        let directory = try TemporaryDirectory()
        try FileStorage().makeZones(rootDirectoryURL: directory.url).values
            .store(Data("payload".utf8), for: Self.reference("k", "V"))
        let pack = try Self.packLocation(of: "V", inStoreAt: directory.url)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: pack.path))
        bytes[pack.offset + pack.count / 2] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: pack.path))

        let fresh = try FileStorage().makeZones(rootDirectoryURL: directory.url).values
        #expect(throws: ZoneError.corrupt(path: "\(pack.path) at offset \(pack.offset)", reason: "pack checksum does not match its contents")) {
            _ = try fresh.data(for: Self.reference("k", "V"))
        }
        let damage = FileStorage.checkStoredBytes(root: directory.url)
        #expect(damage.count == 1 && damage.first?.version == "V", "\(damage)")
    }

    /// A values segment holding V1 ("first") then V2 ("second") under key `k`, and where the
    /// pack of `version` lies in it.
    static func twoVersionSegment(in directory: TemporaryDirectory, locating version: String) throws
        -> (pack: (path: String, offset: Int, count: Int), url: URL) {
        let zone = try FileStorage().makeZones(rootDirectoryURL: directory.url).values
        try zone.store(Data("first".utf8), for: reference("k", "V1"))
        try zone.store(Data("second".utf8), for: reference("k", "V2"))
        let pack = try packLocation(of: version, inStoreAt: directory.url)
        return (pack, URL(fileURLWithPath: pack.path))
    }

    /// A write larger than the preallocation step extends the file without preallocating;
    /// small writes after it preallocate again, and every pack reads back after reopening
    /// (the records still end at a zero length or at the end of the file).
    @Test func smallPacksAfterALargeOneAreRead() throws {
        let directory = try TemporaryDirectory()
        let zone = try FileStorage().makeZones(rootDirectoryURL: directory.url).values
        let large = Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try zone.store(Data("before".utf8), for: Self.reference("k", "V1"))
        try zone.store(large, for: Self.reference("k", "V2"))
        try zone.store(Data("after".utf8), for: Self.reference("k", "V3"))
        let fresh = try FileStorage().makeZones(rootDirectoryURL: directory.url).values
        #expect(try fresh.data(for: ["V1", "V2", "V3"].map { Self.reference("k", $0) }) == [Data("before".utf8), large, Data("after".utf8)])
        #expect(FileStorage.checkStoredBytes(root: directory.url).isEmpty)
    }

    /// A segment cut inside its last pack looks like a write a crash cut short: the pack is
    /// not found (its version was never logged), packs before it are, and a full check
    /// reports the cut.
    @Test func segmentCutInsideItsLastPackHidesOnlyThatPack() throws {
        let directory = try TemporaryDirectory()
        let (pack, url) = try Self.twoVersionSegment(in: directory, locating: "V2")
        try Data(try Data(contentsOf: url).prefix(pack.offset + pack.count / 2)).write(to: url)

        let fresh = try FileStorage().makeZones(rootDirectoryURL: directory.url).values
        #expect(try fresh.data(for: Self.reference("k", "V1")) == Data("first".utf8))
        #expect(try fresh.data(for: Self.reference("k", "V2")) == nil)
        #expect(FileStorage.checkStoredBytes(root: directory.url).contains { $0.reason.contains("is incomplete") })
        // A new writer continues in a segment of its own, which is read.
        try fresh.store(Data("again".utf8), for: Self.reference("k", "V2"))
        #expect(try FileStorage().makeZones(rootDirectoryURL: directory.url).values.data(for: Self.reference("k", "V2")) == Data("again".utf8))
    }

    /// A record in the middle of a segment whose header is damaged is skipped (the packs
    /// after it are read); a read that finds nothing then says which segment is damaged
    /// instead of answering nil.
    @Test func damagedRecordHeaderInTheMiddleOfASegmentIsReported() throws {
        let directory = try TemporaryDirectory()
        let (pack, url) = try Self.twoVersionSegment(in: directory, locating: "V1")
        var bytes = try Data(contentsOf: url)
        bytes[pack.offset] ^= 0xFF // the pack's magic
        try bytes.write(to: url)

        let fresh = try FileStorage().makeZones(rootDirectoryURL: directory.url).values
        #expect(try fresh.data(for: Self.reference("k", "V2")) == Data("second".utf8))
        #expect(throws: ZoneError.corrupt(path: pack.path, reason: "the record at offset \(pack.offset - 9) is not a pack")) {
            _ = try fresh.data(for: Self.reference("k", "V1"))
        }
        #expect(!FileStorage.checkStoredBytes(root: directory.url).isEmpty)
    }

    /// A store of format 1 (a file per pack) is read as it is, marked format 2 when opened,
    /// and then written in segments; both kinds of pack are read.
    @Test func aStoreOfFormatOneIsReadAndContinuedInSegments() throws {
        let directory = try TemporaryDirectory()
        let root = directory.url
        try CanonicalJSON.encode(FileStorage.Marker.packFiles).write(to: root.appendingPathComponent(FileStorage.markerFileName))
        let shard = root.appendingPathComponent("values/\(FileNaming.shardName(for: "V1"))")
        try FileManager.default.createDirectory(at: shard, withIntermediateDirectories: true)
        try PackFile.encode(version: "V1", items: [("k", Data("old".utf8))]).write(to: shard.appendingPathComponent("V1.pack"))
        try PackFile.encode(version: "V1", items: [("j", Data("later".utf8))]).write(to: shard.appendingPathComponent("V1~x.pack"))

        let zone = try FileStorage().makeZones(rootDirectoryURL: root).values
        let marker = try CanonicalJSON.decode(FileStorage.Marker.self, from: Data(contentsOf: root.appendingPathComponent(FileStorage.markerFileName)))
        #expect(marker == .current)
        #expect(try zone.data(for: Self.reference("k", "V1")) == Data("old".utf8))
        #expect(try zone.data(for: Self.reference("j", "V1")) == Data("later".utf8))
        try zone.store(Data("new".utf8), for: Self.reference("k", "V2"))
        try zone.store(Data("also".utf8), for: Self.reference("m", "V1"))
        let fresh = try FileStorage().makeZones(rootDirectoryURL: root).values
        #expect(try fresh.data(for: [Self.reference("k", "V1"), Self.reference("j", "V1"), Self.reference("m", "V1"), Self.reference("k", "V2")])
                == [Data("old".utf8), Data("later".utf8), Data("also".utf8), Data("new".utf8)])
        #expect(FileStorage.checkStoredBytes(root: root).isEmpty)
    }

    /// A pack whose index is written out in several pieces (over 64 KiB of keys) decodes to
    /// exactly its items, with its size computed up front matching what was written.
    @Test func aPackWithALongIndexRoundTrips() throws {
        let items: [(key: ZoneReference.Key, data: Data)] = (0..<4_000).map { index in
            (ZoneReference.Key(index % 3 == 0 ? UUID().uuidString : "key \(index) " + String(repeating: "k", count: index % 200)),
             Data(repeating: UInt8(truncatingIfNeeded: index), count: index % 300))
        }
        let bytes = PackFile.encode(version: "V", items: items)
        let pack = try PackFile(decoding: bytes, path: "test")
        #expect(pack.count == items.count)
        for item in items { #expect(pack.data(for: item.key) == item.data) }
    }

    @Test func packEncodingRoundTripsAndRejectsUnsortedKeys() throws {
        let items: [(key: ZoneReference.Key, data: Data)] = [("b", Data([2])), ("a", Data([1])), ("b", Data([3])), ("", Data())]
        let bytes = PackFile.encode(version: "V", items: items)
        let pack = try PackFile(decoding: bytes, path: "p")
        #expect(pack.version == "V")
        #expect(pack.count == 3)
        #expect(pack.data(for: "a") == Data([1]))
        #expect(pack.data(for: "b") == Data([3]), "a repeated key keeps its last data")
        #expect(pack.data(for: "") == Data())
        #expect(pack.data(for: "c") == nil)
        // A slice that does not start at index 0 decodes too.
        let padded = Data([0, 0]) + bytes
        #expect(try PackFile(decoding: padded[2...], path: "p").data(for: "a") == Data([1]))
    }

    @Test func tornFinalLogRecordIsInvisibleAndLaterRecordsAreRead() throws {
        let directory = try TemporaryDirectory()
        let log = FileVersionLog(directoryURL: directory.url)
        try log.append([Data("one".utf8), Data("two".utf8)])
        let segment = try #require(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).first)
        let path = directory.url.appendingPathComponent(segment).path
        // Simulate a writer killed mid-append: half of a third record.
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([50, 0, 0, 0]) + Data("par".utf8))
        try handle.close()

        let (records, cursor) = try FileVersionLog(directoryURL: directory.url).records(after: .start)
        #expect(records == [Data("one".utf8), Data("two".utf8)])
        #expect(try FileVersionLog(directoryURL: directory.url).records(after: cursor).records.isEmpty)
    }

    @Test func corruptRecordBeforeTheEndIsReported() throws {
        let directory = try TemporaryDirectory()
        let log = FileVersionLog(directoryURL: directory.url)
        try log.append([Data("first record".utf8), Data("second record".utf8)])
        let segment = try #require(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).first)
        let url = directory.url.appendingPathComponent(segment)
        var bytes = try Data(contentsOf: url)
        bytes[FileVersionLog.magic.count + 6] ^= 0x01 // inside the first payload
        try bytes.write(to: url)
        #expect(throws: ZoneError.corrupt(path: url.path, reason: "record at offset 8 fails its checksum")) {
            _ = try FileVersionLog(directoryURL: directory.url).records(after: .start)
        }
    }

    @Test func segmentWithABadHeaderIsReported() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("bogus.log")
        try Data("NOTALOG!....".utf8).write(to: url)
        #expect(throws: ZoneError.corrupt(path: url.path, reason: "not a version log segment (bad magic)")) {
            _ = try FileVersionLog(directoryURL: directory.url).records(after: .start)
        }
    }

    @Test func storeOfAnotherFormatIsRefused() throws {
        let directory = try TemporaryDirectory()
        let marker = directory.url.appendingPathComponent(FileStorage.markerFileName)
        try Data(#"{"format":"llvs-file-store","formatVersion":99}"#.utf8).write(to: marker)
        #expect(throws: ZoneError.unsupportedFormat(path: directory.url.standardizedFileURL.path, found: "llvs-file-store version 99")) {
            _ = try FileStorage().makeZones(rootDirectoryURL: directory.url)
        }
        try Data("garbage".utf8).write(to: marker)
        #expect(throws: ZoneError.self) { _ = try FileStorage().makeZones(rootDirectoryURL: directory.url) }
    }

    @Test func separateInstancesSeeEachOthersPacks() throws {
        let directory = try TemporaryDirectory()
        let writer = try FileStorage().makeZones(rootDirectoryURL: directory.url).values
        let reader = try FileStorage().makeZones(rootDirectoryURL: directory.url).values
        try writer.store(Data("1".utf8), for: Self.reference("a", "V"))
        #expect(try reader.data(for: Self.reference("a", "V")) == Data("1".utf8))
        // The reader has now cached V's packs; a later pack for V must still be found.
        try writer.store(Data("2".utf8), for: Self.reference("b", "V"))
        #expect(try reader.data(for: Self.reference("b", "V")) == Data("2".utf8))
    }

    @Test(arguments: ["3F2504E0-4F89-11D3-9A0C-0305E82C3301", "merge-1.a_b", "../x", "a/b", "", ".hidden", "x\u{0}y",
                      String(repeating: "v", count: 101), "CAF\u{C9}"])
    func versionDirectoryNamesAreSinglePathComponents(_ id: String) {
        let name = FileNaming.directoryName(for: Version.ID(id))
        #expect(!name.isEmpty && name != "." && name != "..")
        #expect(!name.contains("/") && !name.utf8.contains(0))
        #expect(name.utf8.count <= 100)
        let literal = id.utf8.count <= 100 && id.first.map { $0.isLetter || $0.isNumber } == true && id.allSatisfy {
            $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0))
        }
        #expect((name == id) == literal)
        #expect(FileNaming.shardName(for: Version.ID(id)).count == 2)
    }
}
