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
        var last: [ZoneReference: Int] = [:]
        for (index, item) in items.enumerated() { last[item.reference] = index }
        try database.write("write to") { db in
            let statement = try db.cachedStatement(sql: "INSERT OR IGNORE INTO zone_item (zone, version, key, data) VALUES (?, ?, ?, ?)")
            for (index, item) in items.enumerated() where last[item.reference] == index {
                try statement.execute(arguments: [zone.rawValue, item.reference.version.rawValue, item.reference.key.rawValue, item.data])
            }
        }
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
