import Foundation
import GRDB
import GRDBSQLite
import LLVSCore
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
    /// `Data` first).
    ///
    /// - Throws: `DatabaseError` when SQLite refuses a binding or the statement.
    static func insert(_ items: [ZoneItem], into zone: Kind, _ db: Database) throws {
        guard !items.isEmpty else { return }
        for group in Self.groupsByVersion(items) {
            let ordered = KeyOrder.positionsOfLastOccurrences(group.map { items[$0].reference.key }).map { group[$0] }
            try items[group[0]].reference.version.withUTF8 { version in
                // Many rows per statement, the zone and version bound once for all of them.
                var start = 0
                while start < ordered.count {
                    let rows = ordered[start..<min(start + rowsPerStatement, ordered.count)]
                    let statement = try db.cachedStatement(sql: rows.count == rowsPerStatement ? fullInsertSQL : insertSQL(rows: rows.count))
                    let handle = statement.sqliteStatement
                    sqlite3_reset(handle)
                    try check(sqlite3_bind_int64(handle, 1, Int64(zone.rawValue)), db)
                    try check(bindBlob(version, at: 2, of: handle), db)
                    var parameter: Int32 = 3
                    for index in rows {
                        // In place: a copy of the item would retain its data and identifiers.
                        try items[index].reference.key.withUTF8 { key in
                            try items[index].data.withUnsafeBytes { data in
                                var checksum = SQLiteRowChecksum.item(zone: zone.rawValue, version: version, key: key, data: data)
                                try check(bindBlob(key, at: parameter, of: handle), db)
                                try check(bindBlob(data, at: parameter + 1, of: handle), db)
                                try withUnsafeBytes(of: &checksum) { try check(bindBlob($0, at: parameter + 2, of: handle), db) }
                            }
                        }
                        parameter += 3
                    }
                    let result = sqlite3_step(handle)
                    sqlite3_reset(handle)
                    try check(result, db, done: SQLITE_DONE)
                    start += rows.count
                }
            }
        }
    }

    /// Binds `bytes` as a BLOB (SQLite copies them), an empty BLOB when there are none: a
    /// nil pointer would bind NULL.
    private static func bindBlob(_ bytes: UnsafeRawBufferPointer, at parameter: Int32, of handle: OpaquePointer?) -> Int32 {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return sqlite3_bind_zeroblob(handle, parameter, 0) }
        guard let length = Int32(exactly: bytes.count) else { return SQLITE_TOOBIG }
        return sqlite3_bind_blob(handle, parameter, base, length, sqliteTransient)
    }

    /// SQLite's `SQLITE_TRANSIENT` destructor (C's `(sqlite3_destructor_type)-1`): SQLite
    /// copies the bytes before the bind call returns.
    private static let sqliteTransient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

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

    /// The positions of the items of each version, versions in order (usually just one).
    private static func groupsByVersion(_ items: [ZoneItem]) -> [[Int]] {
        guard let first = items.first?.reference.version else { return [] }
        if items.allSatisfy({ $0.reference.version == first }) { return [Array(items.indices)] }
        return Dictionary(grouping: items.indices, by: { items[$0].reference.version })
            .sorted { $0.key < $1.key }
            .map(\.value)
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
