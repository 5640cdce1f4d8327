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

    static func packFiles(under url: URL) -> [URL] {
        let enumerator = FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil)
        return (enumerator?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "pack" }
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

    /// Shard directories are made when their first pack arrives, not all 256 at once.
    @Test func onlyShardsThatHoldPacksAreCreated() throws {
        let directory = try TemporaryDirectory()
        let zone = try FileStorage().makeZones(rootDirectoryURL: directory.url).values
        try zone.store(Data("one".utf8), for: Self.reference("k", "V1"))
        try zone.store(Data("two".utf8), for: Self.reference("k", "V2"))
        let zoneDirectory = try #require(Self.packFiles(under: directory.url).first).deletingLastPathComponent().deletingLastPathComponent()
        let shards = try FileManager.default.contentsOfDirectory(atPath: zoneDirectory.path)
        #expect(shards.count == Set([FileNaming.shardName(for: .init("V1")), FileNaming.shardName(for: .init("V2"))]).count, "\(shards)")
        #expect(try zone.data(for: Self.reference("k", "V2")) == Data("two".utf8))
        #expect(try zone.data(for: Self.reference("k", "V3")) == nil)
    }

    @Test func corruptPackIsReportedWithItsPath() throws {
        let directory = try TemporaryDirectory()
        try FileStorage().makeZones(rootDirectoryURL: directory.url).values
            .store(Data("payload".utf8), for: Self.reference("k", "V"))
        let pack = try #require(Self.packFiles(under: directory.url).first)
        var bytes = try Data(contentsOf: pack)
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: pack)

        let fresh = try FileStorage().makeZones(rootDirectoryURL: directory.url).values
        #expect(throws: ZoneError.corrupt(path: pack.path, reason: "pack checksum does not match its contents")) {
            _ = try fresh.data(for: Self.reference("k", "V"))
        }
    }

    @Test func truncatedPackIsReportedWithItsPath() throws {
        let directory = try TemporaryDirectory()
        try FileStorage().makeZones(rootDirectoryURL: directory.url).values
            .store(Data("payload".utf8), for: Self.reference("k", "V"))
        let pack = try #require(Self.packFiles(under: directory.url).first)
        try Data(try Data(contentsOf: pack).prefix(10)).write(to: pack)
        let fresh = try FileStorage().makeZones(rootDirectoryURL: directory.url).values
        do {
            _ = try fresh.data(for: Self.reference("k", "V"))
            Issue.record("reading a truncated pack must fail")
        } catch let ZoneError.corrupt(path, reason) {
            #expect(path == pack.path)
            #expect(reason.contains("shorter than the minimum"))
        }
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
