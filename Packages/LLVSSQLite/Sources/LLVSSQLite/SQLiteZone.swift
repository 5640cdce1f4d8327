import Foundation
import GRDB
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

    /// Inserts items into `zone` inside the caller's transaction, in primary-key order so
    /// that a large batch appends to the table's B-tree instead of splitting pages all over
    /// it (and the write-ahead log holds each page about once). Identifiers are bound as
    /// BLOBs of their UTF-8 bytes, each row with its checksum.
    static func insert(_ items: [ZoneItem], into zone: Kind, _ db: Database) throws {
        guard !items.isEmpty else { return }
        for group in Self.groupsByVersion(items) {
            let ordered = KeyOrder.positionsOfLastOccurrences(group.map { items[$0].reference.key }).map { group[$0] }
            let version = items[group[0]].reference.version.rawValue.sqliteBytes
            // Many rows per statement, the zone and version bound once for all of them.
            var start = 0
            while start < ordered.count {
                let rows = ordered[start..<min(start + rowsPerStatement, ordered.count)]
                let statement = try db.cachedStatement(sql: rows.count == rowsPerStatement ? fullInsertSQL : insertSQL(rows: rows.count))
                var arguments: [(any DatabaseValueConvertible)?] = [zone.rawValue, version]
                arguments.reserveCapacity(2 + rows.count * 3)
                for index in rows {
                    let key = items[index].reference.key.rawValue.sqliteBytes
                    let data = items[index].data
                    arguments.append(key)
                    arguments.append(data)
                    arguments.append(SQLiteRowChecksum.item(zone: zone.rawValue, version: version, key: key, data: data))
                }
                try statement.execute(arguments: StatementArguments(arguments))
                start += rows.count
            }
        }
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
