import Foundation
import LLVSCore
import LLVSZones
import Testing

/// The checks every `SnapshotCapable` backend must pass: an archive restores every item and
/// version record into an empty store, and any damage to an archive is refused before the
/// target store changes. Failures are recorded with Swift Testing expectations.
public struct SnapshotConformance: Sendable {
    /// The backend under test.
    public let storage: any SnapshotCapable

    /// The suite for `storage`.
    public init(storage: any SnapshotCapable) {
        self.storage = storage
    }

    /// A store with `records` versions' worth of items in both zones and version records.
    ///
    /// - Throws: What the backend throws.
    public func populatedStore(records: Int) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        let zones = try storage.makeZones(rootDirectoryURL: directory.url)
        for index in 0..<records {
            let version = Version.ID("V\(index)")
            try zones.values.store([ZoneItem(reference: ZoneReference(key: .init("k\(index % 3)"), version: version), data: Data("value \(index)".utf8))])
            try zones.maps.store([ZoneItem(reference: ZoneReference(key: .init("node\(index)"), version: version), data: Data(repeating: UInt8(index % 256), count: 40))])
            try zones.versions.append([Data("record \(index)".utf8)])
        }
        return directory
    }

    /// The whole archive of the store at `directory`.
    ///
    /// - Throws: What the backend throws.
    public func archive(of directory: TemporaryDirectory) throws -> (Data, SnapshotArchiveSummary) {
        var archive = Data()
        let summary = try storage.writeSnapshot(ofStoreAt: directory.url) { archive.append($0) }
        return (archive, summary)
    }

    /// Hands `data` over in pieces of `pieceSize` bytes.
    public static func pieces(of data: Data, size pieceSize: Int) -> () throws -> Data? {
        var offset = 0
        return {
            guard offset < data.count else { return nil }
            defer { offset += pieceSize }
            return data.subdata(in: offset..<min(offset + pieceSize, data.count))
        }
    }

    /// What a store holds, as the checks compare it: its version records (sorted) and the
    /// items of a populated store.
    public func contents(of url: URL, records: Int) throws -> [String] {
        let zones = try storage.makeZones(rootDirectoryURL: url)
        var result = try zones.versions.records(after: .start).records.map { String(decoding: $0, as: UTF8.self) }.sorted()
        for index in 0..<records {
            let version = Version.ID("V\(index)")
            let value = try zones.values.data(for: ZoneReference(key: .init("k\(index % 3)"), version: version))
            let node = try zones.maps.data(for: ZoneReference(key: .init("node\(index)"), version: version))
            result.append("\(index): \(value.map { String(decoding: $0, as: UTF8.self) } ?? "-") \(node?.count ?? -1)")
        }
        return result
    }

    /// An archive of 25 versions restores, in odd-sized pieces, into an empty store with
    /// every record and item.
    ///
    /// - Throws: What the backend throws.
    public func checkRoundTrip() throws {
        let source = try populatedStore(records: 25)
        let (archive, summary) = try self.archive(of: source)
        #expect(summary.versionRecordCount == 25)
        #expect(summary.byteCount == Int64(archive.count))
        let target = try TemporaryDirectory()
        let restored = try storage.restoreSnapshot(intoStoreAt: target.url, from: Self.pieces(of: archive, size: 777))
        #expect(restored.versionRecordCount == 25)
        #expect(try contents(of: target.url, records: 25) == contents(of: source.url, records: 25))
    }

    /// The archive of a 4-version store, damaged at `position` — `kind` 0 flips a byte, 1
    /// cuts the archive there, 2 appends a byte — must be refused with a `ZoneError`, and
    /// the target store (holding one version of its own) must read the same afterwards.
    ///
    /// - Throws: What the backend throws outside the restore.
    public func checkDamage(archive: Data, position: Int, kind: Int) throws {
        var damaged = archive
        switch kind {
        case 0: damaged[damaged.startIndex + position % archive.count] ^= 0x5A
        case 1: damaged = damaged.prefix(position % archive.count)
        default: damaged.append(0)
        }
        let target = try TemporaryDirectory()
        let zones = try storage.makeZones(rootDirectoryURL: target.url)
        try zones.versions.append([Data("local record".utf8)])
        let before = try contents(of: target.url, records: 4)
        #expect(throws: ZoneError.self, "damage \(kind) at \(position)") {
            try storage.restoreSnapshot(intoStoreAt: target.url, from: Self.pieces(of: damaged, size: 100))
        }
        #expect(try contents(of: target.url, records: 4) == before)
    }
}
