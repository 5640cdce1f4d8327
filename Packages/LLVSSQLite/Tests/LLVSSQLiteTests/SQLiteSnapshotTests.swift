import Crypto
import Foundation
import LLVSSQLite
import LLVSTesting
import LLVSZones
import PropertyBased
import Testing

/// Snapshots of the SQLite backend: the shared snapshot conformance checks.
@Suite struct SQLiteSnapshotTests {
    static let conformance = SnapshotConformance(storage: SQLiteStorage())

    @Test func aRoundTripRestoresEveryItemAndRecord() throws {
        try Self.conformance.checkRoundTrip()
    }

    @Test func anyDamageIsDetectedBeforeTheStoreIsTouched() async throws {
        let source = try Self.conformance.populatedStore(records: 4)
        let (archive, _) = try Self.conformance.archive(of: source)
        let damage = zip(Gen.int(in: 0...(archive.count - 1)), Gen.int(in: 0...2))
        await propertyCheck(count: 100, input: damage) { position, kind in
            try Self.conformance.checkDamage(archive: archive, position: position, kind: kind)
        }
    }

    @Test func aDatabaseThatFailsItsIntegrityCheckIsRefused() throws {
        // A well-framed archive (correct length and checksum) around a damaged database.
        let source = try Self.conformance.populatedStore(records: 4)
        let (archive, _) = try Self.conformance.archive(of: source)
        var database = archive.subdata(in: 16..<(archive.count - 32))
        for offset in stride(from: 4096, to: database.count, by: 97) { database[offset] ^= 0xFF }
        var framed = archive.prefix(16)
        framed.append(database)
        framed.append(Data(SHA256.hash(data: database)))
        let target = try TemporaryDirectory()
        #expect(throws: ZoneError.self) {
            try SQLiteStorage().restoreSnapshot(intoStoreAt: target.url, from: SnapshotConformance.pieces(of: framed, size: 1000))
        }
        #expect(try SQLiteStorage().makeZones(rootDirectoryURL: target.url).versions.records(after: .start).records.isEmpty)
    }
}
