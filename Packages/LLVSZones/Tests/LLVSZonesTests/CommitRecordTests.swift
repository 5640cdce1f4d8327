import Foundation
import LLVSCore
import LLVSTesting
import Testing
@testable import LLVSZones

/// Format 4 of the file store: a version's packs and its commit record go to the writer's
/// pack segment in one write, with one `fdatasync`; a torn final write is no version, while
/// damage (wrong bytes rather than unwritten ones, or behind a commit record that something
/// follows) is reported, not hidden.
@Suite struct CommitRecordTests {
    static func item(_ key: String, _ version: String, _ data: String) -> ZoneItem {
        ZoneItem(reference: ZoneReference(key: .init(key), version: .init(version)), data: Data(data.utf8))
    }

    /// Commits two versions, each with a value and a map node.
    static func commitTwoVersions(in root: URL) throws -> StoreZones {
        let zones = try FileStorage().makeZones(rootDirectoryURL: root)
        for version in ["V1", "V2"] {
            try zones.committer.commit(values: [item("k", version, "value \(version)")], maps: [item("n", version, "node \(version)")],
                                       records: [Data("record \(version)".utf8)])
        }
        return zones
    }

    static func records(in root: URL) throws -> [Data] {
        try FileStorage().makeZones(rootDirectoryURL: root).versions.records(after: .start).records
    }

    /// Removes the commit indexes of the store at `root`, as a writer killed before writing
    /// its entries leaves them: readers then read the segments' commit records.
    static func removeIndex(in root: URL) throws {
        let packs = root.appendingPathComponent("packs")
        for name in try FileManager.default.contentsOfDirectory(atPath: packs.path) where name.hasSuffix(PackSegment.CommitIndex.fileSuffix) {
            try FileManager.default.removeItem(at: packs.appendingPathComponent(name))
        }
    }

    /// Flips one byte in the middle of the pack at `location`.
    static func damage(_ location: (path: String, offset: Int, count: Int)) throws {
        let url = URL(fileURLWithPath: location.path)
        var bytes = try Data(contentsOf: url)
        bytes[location.offset + location.count / 2] ^= 0xFF
        try bytes.write(to: url)
    }

    @Test func aCommitPutsItsPacksAndRecordInTheWritersPackSegment() throws {
        let directory = try TemporaryDirectory()
        _ = try Self.commitTwoVersions(in: directory.url)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.appendingPathComponent("versions").path) == [])
        let segments = try FileManager.default.contentsOfDirectory(atPath: directory.url.appendingPathComponent("packs").path)
        #expect(segments.filter(PackSegment.isSegmentName).count == 1)
        #expect(segments.filter { $0.hasSuffix(PackSegment.CommitIndex.fileSuffix) }.count == 1)
        let fresh = try FileStorage().makeZones(rootDirectoryURL: directory.url)
        #expect(try fresh.versions.records(after: .start).records == [Data("record V1".utf8), Data("record V2".utf8)])
        #expect(try fresh.values.data(for: ZoneReference(key: .init("k"), version: .init("V2"))) == Data("value V2".utf8))
        #expect(FileStorage.checkStoredBytes(root: directory.url).isEmpty)
        let marker = try CanonicalJSON.decode(FileStorage.Marker.self, from: Data(contentsOf: directory.url.appendingPathComponent(FileStorage.markerFileName)))
        #expect(marker.formatVersion == 4)
    }

    /// A reader continuing from its cursor sees only the versions committed since, and a
    /// batch's packs stored ahead are no version until their commit record is written.
    @Test func readersContinueFromTheirCursorAndBatchesCountAtTheirCommit() throws {
        let directory = try TemporaryDirectory()
        let zones = try Self.commitTwoVersions(in: directory.url)
        let reader = try FileStorage().makeZones(rootDirectoryURL: directory.url)
        let (first, cursor) = try reader.versions.records(after: .start)
        #expect(first.count == 2)
        try zones.committer.storeAhead(values: [Self.item("k", "V3", "three")], maps: [Self.item("n", "V3", "node three")])
        try zones.committer.storeAhead(values: [Self.item("k", "V4", "four")], maps: [])
        let (none, same) = try reader.versions.records(after: cursor)
        #expect(none.isEmpty && same == cursor)
        try zones.committer.commit(values: [], maps: [], records: [Data("record V3".utf8), Data("record V4".utf8)])
        #expect(try reader.versions.records(after: cursor).records == [Data("record V3".utf8), Data("record V4".utf8)])
        #expect(try reader.values.data(for: ZoneReference(key: .init("k"), version: .init("V4"))) == Data("four".utf8))
    }

    /// The final write of a machine that lost power during its sync may reach the disk in
    /// part, leaving sectors of its packs unwritten (zeros): a final commit record behind
    /// such a pack is no version, and a full check marks the damage as that unfinished write.
    @Test func aFinalCommitBehindAPackWithUnwrittenSectorsIsNoVersion() throws {
        let directory = try TemporaryDirectory()
        let zones = try FileStorage().makeZones(rootDirectoryURL: directory.url)
        let large = String(repeating: "v", count: 3_000)
        for version in ["V1", "V2"] {
            try zones.committer.commit(values: [Self.item("k", version, large)], maps: [Self.item("n", version, "node \(version)")],
                                       records: [Data("record \(version)".utf8)])
        }
        let values = try #require(zones.values as? FileZone)
        let location = try #require(try values.segmentLocations(of: Version.ID("V2")).first)
        let url = URL(fileURLWithPath: location.path)
        var bytes = try Data(contentsOf: url)
        let zeroed = (location.offset + 100)..<(location.offset + location.count - 100)
        bytes.replaceSubrange(zeroed, with: Data(count: zeroed.count))
        try bytes.write(to: url)
        try Self.removeIndex(in: directory.url) // an index entry follows its commit's sync: a torn write has none
        #expect(try Self.records(in: directory.url) == [Data("record V1".utf8)])
        let damage = FileStorage.checkStoredBytes(root: directory.url)
        #expect(!damage.isEmpty && damage.allSatisfy(\.isUnfinishedFinalPack), "\(damage)")
    }

    /// A flipped byte in a pack behind a segment's final commit record is damage, not a torn
    /// write (a cut-short write leaves unwritten sectors, not wrong bytes): the version
    /// counts, reading it reports the damage, and so does a full check.
    @Test func aFlippedByteBehindTheFinalCommitIsDamageNotATornWrite() throws {
        let directory = try TemporaryDirectory()
        let zones = try Self.commitTwoVersions(in: directory.url)
        let maps = try #require(zones.maps as? FileZone)
        try Self.damage(try #require(try maps.segmentLocations(of: Version.ID("V2")).first))
        #expect(try Self.records(in: directory.url) == [Data("record V1".utf8), Data("record V2".utf8)])
        #expect(throws: ZoneError.self) {
            _ = try FileStorage().makeZones(rootDirectoryURL: directory.url).maps.data(for: ZoneReference(key: .init("n"), version: .init("V2")))
        }
        let damage = FileStorage.checkStoredBytes(root: directory.url)
        #expect(damage.count == 1 && damage.allSatisfy { !$0.isUnfinishedFinalPack && $0.version == "V2" }, "\(damage)")
    }

    /// A writer killed during its final write leaves a prefix of it, cut short into the
    /// segment's unwritten space: no version, and a full check marks the damage as that
    /// unfinished write.
    @Test func aFinalWriteCutShortIsAnUnfinishedWrite() throws {
        let directory = try TemporaryDirectory()
        let zones = try Self.commitTwoVersions(in: directory.url)
        let maps = try #require(zones.maps as? FileZone)
        let location = try #require(try maps.segmentLocations(of: Version.ID("V2")).first)
        // Zeros from the middle of V2's map pack on: its commit record and the pack's end.
        let url = URL(fileURLWithPath: location.path)
        var bytes = try Data(contentsOf: url)
        let cut = location.offset + location.count / 2
        let end = try #require(bytes[cut...].lastIndex { $0 != 0 })
        bytes.replaceSubrange(cut...end, with: Data(count: end - cut + 1))
        try bytes.write(to: url)
        try Self.removeIndex(in: directory.url)
        #expect(try Self.records(in: directory.url) == [Data("record V1".utf8)])
        let damage = FileStorage.checkStoredBytes(root: directory.url)
        #expect(!damage.isEmpty && damage.allSatisfy(\.isUnfinishedFinalPack), "\(damage)")
    }

    /// Damage behind a commit record that something follows is not a torn write (the record
    /// was durable before anything after it was written): the version counts, and reading
    /// it and a full check report the damage.
    @Test func damageBehindALaterCommitIsReportedNotHidden() throws {
        let directory = try TemporaryDirectory()
        let zones = try Self.commitTwoVersions(in: directory.url)
        let values = try #require(zones.values as? FileZone)
        try Self.damage(try #require(try values.segmentLocations(of: Version.ID("V1")).first))
        #expect(try Self.records(in: directory.url) == [Data("record V1".utf8), Data("record V2".utf8)])
        #expect(throws: ZoneError.self) {
            _ = try FileStorage().makeZones(rootDirectoryURL: directory.url).values.data(for: ZoneReference(key: .init("k"), version: .init("V1")))
        }
        let damage = FileStorage.checkStoredBytes(root: directory.url)
        #expect(damage.contains { !$0.isUnfinishedFinalPack && $0.version == "V1" })
    }

    /// A commit record that fails its checksum with another record after it is damage: a
    /// full check reports it; readers take the records from the commit index, and without
    /// it, reading the log says so rather than dropping it and the versions after it.
    @Test func aDamagedCommitRecordFollowedByAnotherIsCorruption() throws {
        let directory = try TemporaryDirectory()
        _ = try Self.commitTwoVersions(in: directory.url)
        let packs = directory.url.appendingPathComponent("packs")
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: packs.path).first(where: PackSegment.isSegmentName))
        let url = packs.appendingPathComponent(name)
        var bytes = try Data(contentsOf: url)
        let range = try #require(bytes.range(of: Data("record V1".utf8)))
        bytes[range.lowerBound] ^= 0x01
        try bytes.write(to: url)
        #expect(FileStorage.checkStoredBytes(root: directory.url).contains { !$0.isUnfinishedFinalPack })
        #expect(try Self.records(in: directory.url) == [Data("record V1".utf8), Data("record V2".utf8)])
        try Self.removeIndex(in: directory.url)
        #expect(throws: ZoneError.self) { _ = try Self.records(in: directory.url) }
    }

    /// A commit of more than 1 MiB of packs makes them durable first and ends them with an
    /// empty commit record, so a reader checks no pack of it behind the final commit record
    /// (damage there is found when read, as anywhere before the final write).
    @Test func aLargeCommitMakesItsPacksDurableBeforeItsCommitRecord() throws {
        let directory = try TemporaryDirectory()
        let zones = try FileStorage().makeZones(rootDirectoryURL: directory.url)
        let big = String(repeating: "x", count: 3 << 19)
        try zones.committer.commit(values: [Self.item("a", "V1", big), Self.item("b", "V1", big)], maps: [Self.item("n", "V1", "node")],
                                   records: [Data("record V1".utf8)])
        let values = try #require(zones.values as? FileZone)
        try Self.damage(try #require(try values.segmentLocations(of: Version.ID("V1")).first))
        #expect(try Self.records(in: directory.url) == [Data("record V1".utf8)])
        #expect(FileStorage.checkStoredBytes(root: directory.url).contains { !$0.isUnfinishedFinalPack && $0.version == "V1" })
    }

    /// A store of format 3 keeps its version log, which is still read before the commit
    /// records; new versions are committed in pack segments, and a snapshot of the store
    /// holds both, restored as one store.
    @Test func aStoreOfFormatThreeKeepsItsLogAndCommitsInPackSegments() throws {
        let directory = try TemporaryDirectory()
        let root = directory.url.appendingPathComponent("store")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try CanonicalJSON.encode(FileStorage.Marker.sharedSegments).write(to: root.appendingPathComponent(FileStorage.markerFileName))
        try FileVersionLog(directoryURL: root.appendingPathComponent("versions")).append([Data("old record".utf8)])
        let zones = try FileStorage().makeZones(rootDirectoryURL: root)
        try zones.committer.commit(values: [Self.item("k", "V2", "new")], maps: [], records: [Data("new record".utf8)])
        #expect(try Self.records(in: root) == [Data("old record".utf8), Data("new record".utf8)])
        #expect(FileStorage.checkStoredBytes(root: root).isEmpty)

        var archive = Data()
        let written = try FileStorage().writeSnapshot(ofStoreAt: root, to: { archive.append($0) })
        #expect(written.versionRecordCount == 2)
        let restored = directory.url.appendingPathComponent("restored")
        var source: Data? = archive
        _ = try FileStorage().restoreSnapshot(intoStoreAt: restored, from: { defer { source = nil }; return source }, checkingRecords: { _ in })
        #expect(Set(try Self.records(in: restored)) == [Data("old record".utf8), Data("new record".utf8)])
        #expect(try FileStorage().makeZones(rootDirectoryURL: restored).values.data(for: ZoneReference(key: .init("k"), version: .init("V2"))) == Data("new".utf8))
    }
}

/// The commit index beside each committing segment: readers take the records from it and
/// read the segment only past its last entry; a missing, damaged or lagging index changes
/// nothing but speed.
@Suite struct CommitIndexTests {
    static func segmentAndIndex(in root: URL) throws -> (segment: URL, index: URL) {
        let packs = root.appendingPathComponent("packs")
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: packs.path).first(where: PackSegment.isSegmentName))
        let segment = packs.appendingPathComponent(name)
        return (segment, URL(fileURLWithPath: segment.path + PackSegment.CommitIndex.fileSuffix))
    }

    static let expected = [Data("record V1".utf8), Data("record V2".utf8)]

    @Test func readersTakeTheRecordsFromTheIndex() throws {
        let directory = try TemporaryDirectory()
        _ = try CommitRecordTests.commitTwoVersions(in: directory.url)
        let (segment, index) = try Self.segmentAndIndex(in: directory.url)
        let indexed = PackSegment.CommitIndex.records(indexPath: index.path, from: 0, position: PackSegment.Layout.committing.magic.count)
        #expect(indexed.records == Self.expected)
        #expect(try indexed.position == PackSegment.scanCommits(path: segment.path, from: 0).end)
        #expect(try CommitRecordTests.records(in: directory.url) == Self.expected)
    }

    @Test(arguments: ["missing", "damaged first entry", "cut after the first entry", "garbage"])
    func aMissingOrDamagedIndexOnlyCostsSpeed(_ damage: String) throws {
        let directory = try TemporaryDirectory()
        _ = try CommitRecordTests.commitTwoVersions(in: directory.url)
        let (_, index) = try Self.segmentAndIndex(in: directory.url)
        var bytes = try Data(contentsOf: index)
        switch damage {
        case "missing": try FileManager.default.removeItem(at: index)
        case "damaged first entry": bytes[PackSegment.CommitIndex.magic.count + 10] ^= 0xFF
        case "cut after the first entry":
            // The magic, then one entry: its length, from and to, the body (a count, one
            // record framed with its length and checksum) and the entry's checksum.
            bytes = bytes.prefix(PackSegment.CommitIndex.magic.count + 4 + 16 + 4 + 4 + 9 + 8 + 8)
        default: bytes = Data(repeating: 0xAB, count: bytes.count)
        }
        if damage != "missing" { try bytes.write(to: index) }
        #expect(try CommitRecordTests.records(in: directory.url) == Self.expected, "\(damage)")
    }

    /// A reader that has read the segment past what the index holds (a writer killed before
    /// writing its entry) passes over entries it has and continues in the segment.
    @Test func aReaderContinuesWhereverTheIndexAndTheSegmentLeaveIt() throws {
        let directory = try TemporaryDirectory()
        let zones = try CommitRecordTests.commitTwoVersions(in: directory.url)
        let reader = try FileStorage().makeZones(rootDirectoryURL: directory.url)
        let (first, cursor) = try reader.versions.records(after: .start)
        #expect(first == Self.expected)
        try zones.committer.commit(values: [CommitRecordTests.item("k", "V3", "three")], maps: [], records: [Data("record V3".utf8)])
        let (segment, index) = try Self.segmentAndIndex(in: directory.url)
        // The index loses its last entry (as if never written): the segment gives V3.
        let kept = PackSegment.CommitIndex.records(indexPath: index.path, from: 0, position: 8).indexEnd
        let entries = try Data(contentsOf: index)
        try entries.prefix(cursor.positions["packs/" + segment.lastPathComponent + ".idx"] ?? kept).write(to: index)
        #expect(try reader.versions.records(after: cursor).records == [Data("record V3".utf8)])
        #expect(try CommitRecordTests.records(in: directory.url) == Self.expected + [Data("record V3".utf8)])
    }
}
