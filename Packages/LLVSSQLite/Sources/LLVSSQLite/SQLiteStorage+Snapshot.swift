import Crypto
import Foundation
import GRDB
import LLVSCore
import LLVSSupport
import LLVSZones

/// Snapshots of an SQLite store (SPEC.md, "SQLite snapshot archive"): SQLite's
/// `VACUUM INTO` makes a consistent, compact copy of the database while writers carry on;
/// the archive is that copy framed with its length and SHA-256:
///
/// ```
/// "LLVSSQL1"  u64 LE length  database bytes  SHA-256 of the database bytes (32 bytes)
/// ```
///
/// Restoring reads and checks the whole archive into a staging file, opens it and checks it
/// (SQLite's `integrity_check`, a schema this LLVS knows), and only then copies its items and
/// version records into the store's database in one transaction, so every restored version
/// becomes visible at once and a bad archive leaves the store untouched.
extension SQLiteStorage: SnapshotCapable {
    static let archiveMagic = Array("LLVSSQL1".utf8)

    /// `"llvs-sqlite-archive-1"`.
    public var snapshotFormat: String { "llvs-sqlite-archive-1" }

    /// Writes a `VACUUM INTO` copy of the database as an archive.
    ///
    /// - Throws: `ZoneError` when the database cannot be copied or read, or what `sink` throws.
    public func writeSnapshot(ofStoreAt rootDirectoryURL: URL, to sink: (Data) throws -> Void) throws -> SnapshotArchiveSummary {
        let database = try SQLiteDatabase.open(rootDirectoryURL: rootDirectoryURL.standardizedFileURL, busyTimeout: busyTimeout, durability: durability,
                                               pageCacheByteLimit: pageCacheByteLimit)
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("llvs-sqlite-snapshot-\(DurableFile.uniqueName()).sqlite")
        defer { try? FileManager.default.removeItem(at: copy) }
        try database.writeWithoutTransaction("copy") { db in
            try db.execute(sql: "VACUUM INTO ?", arguments: [copy.path])
        }
        guard let bytes = FileManager.default.contents(atPath: copy.path) else {
            throw ZoneError.io(operation: "read", path: copy.path, reason: "the database copy is missing")
        }
        let versionCount = try DatabaseQueue(path: copy.path).read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM version_record") ?? 0
        }
        var header = ByteWriter(capacity: 16)
        header.append(contentsOf: Self.archiveMagic)
        withUnsafeBytes(of: UInt64(bytes.count).littleEndian) { header.append(contentsOf: $0) }
        try sink(header.data)
        try sink(bytes)
        try sink(Data(SHA256.hash(data: bytes)))
        return SnapshotArchiveSummary(versionRecordCount: versionCount, entryCount: 1, byteCount: Int64(16 + bytes.count + 32))
    }

    /// Checks the archive completely (its framing, SQLite's integrity check, the schema,
    /// every row's checksum, and the records with `checkRecords`), then copies its items and
    /// records into the store.
    ///
    /// - Throws: `ZoneError.corrupt(path:reason:)` naming the archive for a bad magic, a
    ///   truncation, a checksum mismatch, a database that fails SQLite's integrity check or
    ///   has an unknown schema, a row failing its checksum; what `checkRecords` throws;
    ///   `ZoneError.io(operation:path:reason:)`.
    public func restoreSnapshot(intoStoreAt rootDirectoryURL: URL, from source: () throws -> Data?,
                                checkingRecords checkRecords: ([Data]) throws -> Void) throws -> SnapshotArchiveSummary {
        var archive = Data()
        while let piece = try source() { archive.append(piece) }
        let location = "SQLite snapshot archive"
        guard archive.count >= 16 + 32, Array(archive.prefix(8)) == Self.archiveMagic else {
            throw ZoneError.corrupt(path: location, reason: "not an LLVS SQLite snapshot archive (bad magic or too short)")
        }
        let length = archive[archive.startIndex + 8 ..< archive.startIndex + 16].enumerated()
            .reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
        guard length == UInt64(archive.count - 48) else {
            throw ZoneError.corrupt(path: location, reason: "declares \(length) database bytes, holds \(archive.count - 48)")
        }
        let bytes = archive.subdata(in: archive.startIndex + 16 ..< archive.endIndex - 32)
        guard Array(SHA256.hash(data: bytes)) == Array(archive.suffix(32)) else {
            throw ZoneError.corrupt(path: location, reason: "the database bytes fail their SHA-256 checksum")
        }
        let root = rootDirectoryURL.standardizedFileURL
        let database = try SQLiteDatabase.open(rootDirectoryURL: root, busyTimeout: busyTimeout, durability: durability,
                                               pageCacheByteLimit: pageCacheByteLimit)
        let staged = root.appendingPathComponent(".snapshot-restore-\(DurableFile.uniqueName()).sqlite")
        defer { try? FileManager.default.removeItem(at: staged) }
        do {
            try bytes.write(to: staged)
        } catch {
            throw ZoneError.io(operation: "write", path: staged.path, reason: "\(error)")
        }
        let records = try Self.checkStagedDatabase(at: staged, location: location)
        try checkRecords(records)
        try database.writeWithoutTransaction("restore a snapshot into") { db in
            try db.execute(sql: "ATTACH DATABASE ? AS snapshot", arguments: [staged.path])
            defer { try? db.execute(sql: "DETACH DATABASE snapshot") }
            try db.inTransaction {
                try db.execute(sql: "INSERT OR IGNORE INTO zone_item (zone, version, key, data, checksum) SELECT zone, version, key, data, checksum FROM snapshot.zone_item")
                try db.execute(sql: "INSERT INTO version_record (record, checksum) SELECT record, checksum FROM snapshot.version_record ORDER BY sequence")
                return .commit
            }
        }
        return SnapshotArchiveSummary(versionRecordCount: records.count, entryCount: 1, byteCount: Int64(archive.count))
    }

    /// Checks a staged database and brings an archive of an older schema up to date (the
    /// staged file is a private copy); then checks every row's checksum (section 14), so no
    /// damaged row joins the store, and returns its version records in sequence order.
    private static func checkStagedDatabase(at url: URL, location: String) throws -> [Data] {
        do {
            let queue = try DatabaseQueue(path: url.path)
            let migrator = SQLiteDatabase.migrator
            try queue.read { db in
                let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
                guard integrity == ["ok"] else {
                    throw ZoneError.corrupt(path: location, reason: "SQLite integrity check: \(integrity.prefix(3).joined(separator: "; "))")
                }
                let applied = try migrator.appliedIdentifiers(db)
                guard applied.contains("v1"), try !migrator.hasBeenSuperseded(db) else {
                    throw ZoneError.corrupt(path: location, reason: "the database has a schema this LLVS does not know")
                }
            }
            try migrator.migrate(queue)
            return try queue.read { db in
                let items = try Row.fetchCursor(db, sql: "SELECT zone, version, key, data, checksum FROM zone_item")
                while let row = try items.next() {
                    guard let zone = row.integer(at: 0).flatMap({ Int(exactly: $0) }), let version = row.bytes(at: 1),
                          let key = row.bytes(at: 2), let data = row.bytes(at: 3), let checksum = row.bytes(at: 4) else {
                        throw ZoneError.corrupt(path: location, reason: "an item row has a missing or mistyped column")
                    }
                    guard SQLiteRowChecksum.item(zone: zone, version: version, key: key, data: data) == checksum else {
                        let address = "\(String(decoding: key, as: UTF8.self))@\(String(decoding: version, as: UTF8.self)) (zone \(zone))"
                        throw ZoneError.corrupt(path: location, reason: "the item \(address) fails its checksum")
                    }
                }
                var records: [Data] = []
                let rows = try Row.fetchCursor(db, sql: "SELECT sequence, record, checksum FROM version_record ORDER BY sequence")
                while let row = try rows.next() {
                    let sequence = row.integer(at: 0).map(String.init) ?? "?"
                    guard let record = row.bytes(at: 1), let checksum = row.bytes(at: 2), SQLiteRowChecksum.record(record) == checksum else {
                        throw ZoneError.corrupt(path: location, reason: "version record \(sequence) fails its checksum")
                    }
                    records.append(record)
                }
                return records
            }
        } catch let error as ZoneError {
            throw error
        } catch {
            throw ZoneError.corrupt(path: location, reason: "the database cannot be read: \(error)")
        }
    }
}
