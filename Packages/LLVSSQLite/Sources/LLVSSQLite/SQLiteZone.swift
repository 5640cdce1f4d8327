import Foundation
import GRDB
import GRDBSQLite
import LLVSCore
import LLVSSupport
import LLVSZones

/// A zone stored in the `zone_item` table of a store's database.
final class SQLiteZone: Zone {
    /// Which zone of the store.
    enum Kind: Int, Sendable {
        case values = 0
        case maps = 1
    }

    let database: SQLiteDatabase
    let zone: Kind

    init(database: SQLiteDatabase, zone: Kind) {
        self.database = database
        self.zone = zone
    }

    /// Inserts the items in one transaction; an existing item keeps its bytes, and a
    /// reference repeated in `items` gets the last of its data.
    func store(_ items: [ZoneItem]) throws {
        guard !items.isEmpty else { return }
        try database.write("write to") { db in try Self.insert(items, into: zone, db) }
    }

    /// Inserts items into `zone` inside the caller's transaction, in address order (a
    /// batch's index entries then append to the index instead of splitting pages all over
    /// it, and the write-ahead log holds each page about once). Identifiers are bound as
    /// BLOBs of their UTF-8 bytes, each row with its checksum, through SQLite's C API
    /// (GRDB's `StatementArguments` box every column and copy every identifier into a
    /// `Data` first), from one buffer per statement that SQLite reads in place
    /// (``RowBytes``).
    ///
    /// - Throws: `DatabaseError` when SQLite refuses a binding or the statement.
    static func insert(_ items: [ZoneItem], into zone: Kind, _ db: Database) throws {
        guard !items.isEmpty else { return }
        for (_, group) in ZoneItem.positionsByVersion(in: items) {
            let ordered = KeyOrder.positionsOfLastOccurrences(group.map { items[$0].reference.key }).map { group[$0] }
            let version = items[group[0]].reference.version.withUTF8 { Array($0) }
            // Many rows per statement, the zone and version bound once for all of them.
            let chunks = stride(from: 0, to: ordered.count, by: rowsPerStatement).map { ordered[$0..<min($0 + rowsPerStatement, ordered.count)] }
            guard let first = chunks.first else { continue }
            var prepared = RowBytes(rows: first, of: items, zone: zone, version: version)
            for (index, rows) in chunks.enumerated() {
                // A large batch copies and checksums the next statement's rows on another
                // core while SQLite inserts these.
                let upcoming = chunks.indices.contains(index + 1) ? RowBytes.preparing(rows: chunks[index + 1], of: items, zone: zone, version: version) : nil
                let statement = try db.cachedStatement(sql: rows.count == rowsPerStatement ? fullInsertSQL : insertSQL(rows: rows.count))
                try prepared.insert(zone: zone, version: version, with: statement.sqliteStatement, db)
                if let upcoming { prepared = upcoming() }
            }
        }
    }

    /// The key, data and checksum of each row of one statement, copied into one buffer
    /// that outlives the statement's step, so SQLite binds them in place
    /// (`SQLITE_STATIC`) instead of allocating a copy of each (three allocations a row).
    struct RowBytes: Sendable {
        private var bytes: [UInt8] = []
        /// Three fields a row, in parameter order: key, data, checksum.
        private var fields: [Range<Int>] = []

        /// Copies the fields of `rows` (positions in `items`), computing each checksum.
        init(rows: ArraySlice<Int>, of items: [ZoneItem], zone: Kind, version: [UInt8]) {
            fields.reserveCapacity(3 * rows.count)
            version.withUnsafeBytes { version in fill(rows: rows, of: items, zone: zone, version: version) }
        }

        /// Starts making the ``RowBytes`` of `rows` on another thread; the function returned
        /// waits for them.
        static func preparing(rows: ArraySlice<Int>, of items: [ZoneItem], zone: Kind, version: [UInt8]) -> () -> RowBytes {
            let result = Locked<RowBytes?>(nil)
            let done = DispatchGroup()
            DispatchQueue.global().async(group: done) {
                let prepared = RowBytes(rows: rows, of: items, zone: zone, version: version)
                result.withLock { $0 = prepared }
            }
            return {
                done.wait()
                return result.withLock { $0 } ?? RowBytes(rows: rows, of: items, zone: zone, version: version)
            }
        }

        private mutating func fill(rows: ArraySlice<Int>, of items: [ZoneItem], zone: Kind, version: UnsafeRawBufferPointer) {
            for index in rows {
                // In place: a copy of the item would retain its data and identifiers.
                items[index].reference.key.withUTF8 { key in
                    items[index].data.withUnsafeBytes { data in
                        let checksum = SQLiteRowChecksum.item(zone: zone.rawValue, version: version, key: key, data: data)
                        append(key)
                        append(data)
                        withUnsafeBytes(of: checksum) { append($0) }
                    }
                }
            }
        }

        private mutating func append(_ field: UnsafeRawBufferPointer) {
            fields.append(bytes.count..<(bytes.count + field.count))
            bytes.append(contentsOf: field)
        }

        /// Binds the zone, the version and every field to `handle` (an insert statement
        /// of as many rows), steps it, and clears the bindings again before the buffer
        /// can change.
        func insert(zone: Kind, version: [UInt8], with handle: OpaquePointer?, _ db: Database) throws {
            sqlite3_reset(handle)
            defer { sqlite3_clear_bindings(handle) }
            try SQLiteZone.check(sqlite3_bind_int64(handle, 1, Int64(zone.rawValue)), db)
            try version.withUnsafeBytes { version in try bytes.withUnsafeBytes { buffer in
                try SQLiteZone.check(SQLiteZone.bindBlob(version, at: 2, of: handle), db)
                for (offset, field) in fields.enumerated() {
                    try SQLiteZone.check(SQLiteZone.bindBlob(UnsafeRawBufferPointer(rebasing: buffer[field]), at: Int32(3 + offset), of: handle), db)
                }
                let result = sqlite3_step(handle)
                sqlite3_reset(handle)
                try SQLiteZone.check(result, db, done: SQLITE_DONE)
            } }
        }
    }

    /// Binds `bytes` as a BLOB that SQLite reads in place (`SQLITE_STATIC`: they must stay
    /// unchanged until the statement is reset and its bindings cleared), an empty BLOB when
    /// there are none: a nil pointer would bind NULL.
    private static func bindBlob(_ bytes: UnsafeRawBufferPointer, at parameter: Int32, of handle: OpaquePointer?) -> Int32 {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return sqlite3_bind_zeroblob(handle, parameter, 0) }
        guard let length = Int32(exactly: bytes.count) else { return SQLITE_TOOBIG }
        return sqlite3_bind_blob(handle, parameter, base, length, nil)
    }

    /// Throws the connection's error when `result` is not `expected`.
    private static func check(_ result: Int32, _ db: Database, done expected: Int32 = SQLITE_OK) throws {
        guard result != expected else { return }
        let message = sqlite3_errmsg(db.sqliteConnection).map { String(cString: $0) }
        throw DatabaseError(resultCode: ResultCode(rawValue: result), message: message)
    }

    /// Rows per insert statement (three parameters each; SQLite allows 32,766 parameters).
    static let rowsPerStatement = 256

    /// The statement for a full chunk of rows, built once.
    private static let fullInsertSQL = insertSQL(rows: rowsPerStatement)

    /// `INSERT OR IGNORE` of `rows` rows of one zone and version: `?1` is the zone, `?2` the
    /// version, then each row's key, data and checksum.
    private static func insertSQL(rows: Int) -> String {
        "INSERT OR IGNORE INTO zone_item (zone, version, key, data, checksum) SELECT ?1, ?2, column1, column2, column3 FROM (VALUES "
            + (0..<rows).map { "(?\(3 + 3 * $0), ?\(4 + 3 * $0), ?\(5 + 3 * $0))" }.joined(separator: ", ") + ")"
    }

    /// Reads the items in one read transaction, checking each row's checksum.
    ///
    /// - Throws: ``ZoneError/corrupt(path:reason:)`` naming the item (its zone, key and
    ///   version) when its row fails its checksum: a damaged row is never returned.
    func data(for references: [ZoneReference]) throws -> [Data?] {
        guard !references.isEmpty else { return [] }
        return try database.read("read from") { db in
            let statement = try db.cachedStatement(sql: "SELECT data, checksum FROM zone_item WHERE zone = ? AND version = ? AND key = ?")
            return try references.map { reference in
                let version = reference.version.rawValue.sqliteBytes
                let key = reference.key.rawValue.sqliteBytes
                guard let row = try Row.fetchOne(statement, arguments: [zone.rawValue, version, key]) else { return nil }
                guard let data = row.bytes(at: 0), row.bytes(at: 1) == SQLiteRowChecksum.item(zone: zone.rawValue, version: version, key: key, data: data) else {
                    throw damaged(reference)
                }
                return data
            }
        }
    }

    /// The error for a row of `reference` that fails its checksum.
    private func damaged(_ reference: ZoneReference) -> ZoneError {
        .corrupt(path: database.path, reason: "the \(zone.name) item \(reference) fails its checksum (damaged row)")
    }
}

extension SQLiteZone.Kind {
    /// The zone's name in messages.
    var name: String {
        switch self {
        case .values: "value data"
        case .maps: "map node"
        }
    }
}
