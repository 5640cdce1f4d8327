import Foundation
import GRDB
import GRDBSQLite
import LLVSCore
import LLVSSupport
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
        // all: 100,000 small allocations would leave the heap fragmented long after). The
        // checksums are compared afterwards, a long log's on every core.
        var read = ReadRecords()
        try database.read("read the version log of") { db in
            // The columns are read through the C API while the cursor stands on their row:
            // GRDB's `withUnsafeData` wraps each in a `Data`, two allocations per record.
            let statement = try db.cachedStatement(sql: "SELECT sequence, record, checksum FROM version_record WHERE sequence > ? ORDER BY sequence")
            let rows = try Row.fetchCursor(statement, arguments: [start])
            let columns = statement.sqliteStatement
            while try rows.next() != nil {
                guard sqlite3_column_type(columns, 0) == SQLITE_INTEGER, let sequence = Int(exactly: sqlite3_column_int64(columns, 0)) else {
                    throw ZoneError.corrupt(path: database.path, reason: "a version record has no sequence number")
                }
                guard let record = Self.bytes(inColumn: 1, of: columns) else {
                    throw ZoneError.corrupt(path: database.path, reason: "version record \(sequence) has no data")
                }
                guard let stored = Self.bytes(inColumn: 2, of: columns), stored.count == SQLiteRowChecksum.byteCount else {
                    throw ZoneError.corrupt(path: database.path, reason: "version record \(sequence) fails its checksum (damaged row)")
                }
                read.append(sequence: sequence, record: record, checksum: stored)
            }
            // The pages just read would otherwise stay in this connection's page cache.
            if read.count >= Self.bulkReadRecordCount { try db.execute(sql: "PRAGMA shrink_memory") }
        }
        if let damaged = read.firstRecordFailingItsChecksum() {
            throw ZoneError.corrupt(path: database.path, reason: "version record \(damaged) fails its checksum (damaged row)")
        }
        let all = Data(read.bytes)
        let records = read.ranges.map { all[$0] }
        let last = read.sequences.last
        var next = cursor
        if let last { next.positions[Self.cursorKey] = last }
        return (records, next)
    }
}

extension SQLiteVersionLog {
    /// The bytes of `column` in the row `statement` stands on (valid until the statement
    /// moves), or nil when it is NULL.
    fileprivate static func bytes(inColumn column: Int32, of statement: OpaquePointer) -> UnsafeRawBufferPointer? {
        guard sqlite3_column_type(statement, column) != SQLITE_NULL else { return nil }
        // `sqlite3_column_blob` first, then the count it produced (SQLite's rule).
        let start = sqlite3_column_blob(statement, column)
        return UnsafeRawBufferPointer(start: start, count: start == nil ? 0 : Int(sqlite3_column_bytes(statement, column)))
    }
}

/// The rows of a log read: the records' bytes in one buffer, and each record's range in it,
/// sequence number and stored checksum.
private struct ReadRecords: Sendable {
    var bytes: [UInt8] = []
    var ranges: [Range<Int>] = []
    var sequences: [Int] = []
    var checksums: [UInt8] = []

    /// Logs at least this long have their checksums compared in parallel parts.
    static let parallelRecordCount = 8_192

    var count: Int { ranges.count }

    mutating func append(sequence: Int, record: UnsafeRawBufferPointer, checksum: UnsafeRawBufferPointer) {
        ranges.append(bytes.count..<(bytes.count + record.count))
        bytes.append(contentsOf: record)
        sequences.append(sequence)
        checksums.append(contentsOf: checksum)
    }

    /// The sequence number of the first record (in log order) whose bytes do not match its
    /// checksum, or nil.
    func firstRecordFailingItsChecksum() -> Int? {
        let failures = Locked<[Int]>([])
        ParallelParts.forEach(in: count, parallelFrom: Self.parallelRecordCount) { range in
            if let failure = firstFailure(in: range) { failures.withLock { $0.append(failure) } }
        }
        return failures.withLock { $0.min() }.map { sequences[$0] }
    }

    /// The index of the first record in `range` that fails its checksum, or nil.
    private func firstFailure(in range: Range<Int>) -> Int? {
        let width = SQLiteRowChecksum.byteCount
        return bytes.withUnsafeBytes { all in
            checksums.withUnsafeBytes { stored in
                range.first { index in
                    !SQLiteRowChecksum.record(UnsafeRawBufferPointer(rebasing: all[ranges[index]]),
                                              matches: UnsafeRawBufferPointer(rebasing: stored[(index * width)..<((index + 1) * width)]))
                }
            }
        }
    }
}
