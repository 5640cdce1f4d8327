import Foundation
import GRDB
import LLVSZones

extension SQLiteDatabase {
    /// Reads every row of the store's database and returns what is damaged: SQLite's own
    /// structure check (`PRAGMA quick_check`), then every item and version record against
    /// its checksum. A failure to read is damage too; nothing is thrown.
    ///
    /// - Complexity: One pass over the whole database file.
    func checkStoredBytes() -> [StorageDamage] {
        var damage: [StorageDamage] = []
        do {
            try pool.read { db in
                let structure = try String.fetchAll(db, sql: "PRAGMA quick_check")
                if structure != ["ok"] {
                    damage += structure.prefix(20).map { StorageDamage(reason: ZoneError.corrupt(path: path, reason: "SQLite structure check: \($0)").description) }
                }
                let items = try Row.fetchCursor(db, sql: "SELECT zone, version, key, data, checksum FROM zone_item")
                while let row = try items.next() {
                    if let finding = Self.checkItem(row, path: path) { damage.append(finding) }
                }
                let records = try Row.fetchCursor(db, sql: "SELECT sequence, record, checksum FROM version_record")
                while let row = try records.next() {
                    let sequence = row.integer(at: 0).map(String.init) ?? "?"
                    guard let record = row.bytes(at: 1), row.bytes(at: 2) == SQLiteRowChecksum.record(record) else {
                        damage.append(StorageDamage(reason: ZoneError.corrupt(path: path, reason: "version record \(sequence) fails its checksum (damaged row)").description))
                        continue
                    }
                }
            }
        } catch {
            damage.append(StorageDamage(reason: Self.describe(error, path: path, operation: "check every row of").description))
        }
        return damage
    }

    /// The damage of one `zone_item` row, or nil when it matches its checksum.
    private static func checkItem(_ row: Row, path: String) -> StorageDamage? {
        let zone = row.integer(at: 0).flatMap { Int(exactly: $0) }
        let version = row.bytes(at: 1)
        let key = row.bytes(at: 2)
        if let zone, let version, let key, let data = row.bytes(at: 3),
           row.bytes(at: 4) == SQLiteRowChecksum.item(zone: zone, version: version, key: key, data: data) {
            return nil
        }
        let versionId = version.map { String(decoding: $0, as: UTF8.self) }
        let keyText = key.map { String(decoding: $0, as: UTF8.self) }
        let kind = zone.flatMap(SQLiteZone.Kind.init(rawValue:))
        let name = kind?.name ?? "zone \(zone.map(String.init) ?? "?")"
        return StorageDamage(version: versionId, valueId: kind == .values ? keyText : nil,
                             reason: ZoneError.corrupt(path: path, reason: "the \(name) item \(keyText ?? "?")@\(versionId ?? "?") fails its checksum (damaged row)").description)
    }
}
