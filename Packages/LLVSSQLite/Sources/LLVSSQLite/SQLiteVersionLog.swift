import Foundation
import GRDB
import LLVSZones

/// The version log as the `version_record` table: records in the order they were
/// committed; a cursor is the last sequence number read (`positions["sqlite"]`).
final class SQLiteVersionLog: VersionLog {
    static let cursorKey = "sqlite"

    let database: SQLiteDatabase

    init(database: SQLiteDatabase) {
        self.database = database
    }

    /// Appends the records in one transaction (durable once it commits).
    func append(_ records: [Data]) throws {
        guard !records.isEmpty else { return }
        try database.write("append to the version log of") { db in try Self.append(records, db) }
    }

    /// Appends records inside the caller's transaction, each with its checksum.
    static func append(_ records: [Data], _ db: Database) throws {
        let statement = try db.cachedStatement(sql: "INSERT INTO version_record (record, checksum) VALUES (?, ?)")
        for record in records { try statement.execute(arguments: [record, SQLiteRowChecksum.record(record)]) }
    }

    /// The records committed after `cursor`, in commit order.
    ///
    /// - Throws: ``ZoneError/corrupt(path:reason:)`` naming the record's sequence number when
    ///   a row has no record or fails its checksum.
    func records(after cursor: VersionLogCursor) throws -> (records: [Data], cursor: VersionLogCursor) {
        let start = cursor.positions[Self.cursorKey] ?? 0
        // A cursor over the rows, not an array of them: each record is copied once, from the
        // statement, and no row outlives its step (opening a store reads them all).
        let (records, last) = try database.read("read the version log of") { db -> ([Data], Int?) in
            let rows = try Row.fetchCursor(db.cachedStatement(sql: "SELECT sequence, record, checksum FROM version_record WHERE sequence > ? ORDER BY sequence"),
                                           arguments: [start])
            var records: [Data] = []
            var last: Int?
            while let row = try rows.next() {
                guard let sequence = row.integer(at: 0).flatMap({ Int(exactly: $0) }) else {
                    throw ZoneError.corrupt(path: database.path, reason: "a version record has no sequence number")
                }
                guard let data = row.bytes(at: 1) else {
                    throw ZoneError.corrupt(path: database.path, reason: "version record \(sequence) has no data")
                }
                guard row.bytes(at: 2) == SQLiteRowChecksum.record(data) else {
                    throw ZoneError.corrupt(path: database.path, reason: "version record \(sequence) fails its checksum (damaged row)")
                }
                records.append(data)
                last = sequence
            }
            return (records, last)
        }
        var next = cursor
        if let last { next.positions[Self.cursorKey] = last }
        return (records, next)
    }
}
