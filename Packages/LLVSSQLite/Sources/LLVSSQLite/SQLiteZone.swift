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
    /// it (and the write-ahead log holds each page about once).
    static func insert(_ items: [ZoneItem], into zone: Kind, _ db: Database) throws {
        guard !items.isEmpty else { return }
        for group in Self.groupsByVersion(items) {
            let ordered = KeyOrder.positionsOfLastOccurrences(group.map { items[$0].reference.key.rawValue }).map { group[$0] }
            let version = items[group[0]].reference.version.rawValue
            // Many rows per statement, the zone and version bound once for all of them.
            var start = 0
            while start < ordered.count {
                let rows = ordered[start..<min(start + rowsPerStatement, ordered.count)]
                let statement = try db.cachedStatement(sql: rows.count == rowsPerStatement ? fullInsertSQL : insertSQL(rows: rows.count))
                var arguments: [(any DatabaseValueConvertible)?] = [zone.rawValue, version]
                arguments.reserveCapacity(2 + rows.count * 2)
                for index in rows {
                    arguments.append(items[index].reference.key.rawValue)
                    arguments.append(items[index].data)
                }
                try statement.execute(arguments: StatementArguments(arguments))
                start += rows.count
            }
        }
    }

    /// Rows per insert statement (two parameters each; SQLite allows 32,766 parameters).
    static let rowsPerStatement = 256

    /// The statement for a full chunk of rows, built once.
    private static let fullInsertSQL = insertSQL(rows: rowsPerStatement)

    /// `INSERT OR IGNORE` of `rows` rows of one zone and version: `?1` is the zone, `?2` the
    /// version, then each row's key and data.
    private static func insertSQL(rows: Int) -> String {
        "INSERT OR IGNORE INTO zone_item (zone, version, key, data) SELECT ?1, ?2, column1, column2 FROM (VALUES "
            + (0..<rows).map { "(?\(3 + 2 * $0), ?\(4 + 2 * $0))" }.joined(separator: ", ") + ")"
    }

    /// The positions of the items of each version, versions in order (usually just one).
    private static func groupsByVersion(_ items: [ZoneItem]) -> [[Int]] {
        guard let first = items.first?.reference.version else { return [] }
        if items.allSatisfy({ $0.reference.version == first }) { return [Array(items.indices)] }
        return Dictionary(grouping: items.indices, by: { items[$0].reference.version })
            .sorted { $0.key < $1.key }
            .map(\.value)
    }

    /// Reads the items in one read transaction.
    func data(for references: [ZoneReference]) throws -> [Data?] {
        guard !references.isEmpty else { return [] }
        return try database.read("read from") { db in
            let statement = try db.cachedStatement(sql: "SELECT data FROM zone_item WHERE zone = ? AND version = ? AND key = ?")
            return try references.map { reference in
                try Data.fetchOne(statement, arguments: [zone.rawValue, reference.version.rawValue, reference.key.rawValue])
            }
        }
    }
}
