import Foundation
import GRDB
import LLVSZones

/// The version log as the `version_record` table: records in the order they were
/// committed; a cursor is the last sequence number read (`positions["sqlite"]`).
final class SQLiteVersionLog: VersionLog {
    static let cursorKey = "sqlite"

    /// Reading at least this many records (opening a store) releases the pages they were
    /// read from afterwards.
    static let bulkReadRecordCount = 1_000

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
        // statement, into one buffer the records are slices of (opening a store reads them
        // all: 100,000 small allocations would leave the heap fragmented long after).
        let (buffer, ranges, last) = try database.read("read the version log of") { db -> ([UInt8], [Range<Int>], Int?) in
            let rows = try Row.fetchCursor(db.cachedStatement(sql: "SELECT sequence, record, checksum FROM version_record WHERE sequence > ? ORDER BY sequence"),
                                           arguments: [start])
            var buffer: [UInt8] = []
            var ranges: [Range<Int>] = []
            var last: Int?
            while let row = try rows.next() {
                guard let sequence = row.integer(at: 0).flatMap({ Int(exactly: $0) }) else {
                    throw ZoneError.corrupt(path: database.path, reason: "a version record has no sequence number")
                }
                let matches = try row.withUnsafeData(atIndex: 1) { data -> Bool in
                    guard let data else {
                        throw ZoneError.corrupt(path: database.path, reason: "version record \(sequence) has no data")
                    }
                    return try data.withUnsafeBytes { record in
                        ranges.append(buffer.count..<(buffer.count + record.count))
                        buffer.append(contentsOf: record)
                        return try row.withUnsafeData(atIndex: 2) { stored in
                            stored.map { SQLiteRowChecksum.record(record, matches: $0) } ?? false
                        }
                    }
                }
                guard matches else {
                    throw ZoneError.corrupt(path: database.path, reason: "version record \(sequence) fails its checksum (damaged row)")
                }
                last = sequence
            }
            // The pages just read would otherwise stay in this connection's page cache.
            if ranges.count >= Self.bulkReadRecordCount { try db.execute(sql: "PRAGMA shrink_memory") }
            return (buffer, ranges, last)
        }
        let all = Data(buffer)
        let records = ranges.map { all[$0] }
        var next = cursor
        if let last { next.positions[Self.cursorKey] = last }
        return (records, next)
    }
}
