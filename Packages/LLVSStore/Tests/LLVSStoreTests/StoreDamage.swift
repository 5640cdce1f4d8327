import Foundation
import GRDB
import LLVSSQLite
@testable import LLVSStore

/// Ways to damage a store's storage behind its back, for the verification tests.
enum StoreDamage {
    /// Where the first pack `version` wrote to a zone (`values` or `maps`) of the file store
    /// at `root` lies: its segment file and byte range.
    static func pack(of version: Version.ID, zone: String, inStoreAt root: URL) throws -> (url: URL, range: Range<Int>) {
        let zones = try FileStorage().makeZones(rootDirectoryURL: root)
        guard let fileZone = (zone == "values" ? zones.values : zones.maps) as? FileZone,
              let place = try fileZone.segmentLocations(of: version).first else {
            throw CocoaError(.fileNoSuchFile)
        }
        return (URL(fileURLWithPath: place.path), place.offset..<(place.offset + place.count))
    }

    /// Inverts the last byte of a pack's data (the byte before its 32-byte checksum).
    static func flipDataByte(of pack: (url: URL, range: Range<Int>)) throws {
        var bytes = try Data(contentsOf: pack.url)
        bytes[pack.range.upperBound - 33] ^= 0xFF
        try bytes.write(to: pack.url)
    }

    /// Zeroes the second half of a pack, as a write whose last pages never reached the
    /// disk leaves it.
    static func zeroSecondHalf(of pack: (url: URL, range: Range<Int>)) throws {
        var bytes = try Data(contentsOf: pack.url)
        let middle = pack.range.lowerBound + pack.range.count / 2
        bytes.replaceSubrange(middle..<pack.range.upperBound, with: Data(count: pack.range.upperBound - middle))
        try bytes.write(to: pack.url)
    }

    /// Runs SQL on the database of the SQLite store at `root`, through a connection of its own.
    /// Identifiers are BLOBs of their UTF-8 bytes there: bind `Data(id.utf8)`, not a string.
    static func execute(_ sql: String, arguments: StatementArguments, inStoreAt root: URL) throws {
        let queue = try DatabaseQueue(path: root.appendingPathComponent(SQLiteStorage.databaseFileName).path)
        try queue.write { db in try db.execute(sql: sql, arguments: arguments) }
    }

    /// The keys and data of the items `version` stored in a zone (0: values, 1: maps) of the
    /// SQLite store at `root`, by key.
    static func sqliteItems(zone: Int, version: Version.ID, inStoreAt root: URL) throws -> [(key: String, data: Data)] {
        let queue = try DatabaseQueue(path: root.appendingPathComponent(SQLiteStorage.databaseFileName).path)
        return try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT key, data FROM zone_item WHERE zone = ? AND version = ? ORDER BY key",
                             arguments: [zone, Data(version.rawValue.utf8)])
                .map { (key: String(decoding: $0["key"] as Data, as: UTF8.self), data: $0["data"]) }
        }
    }
}
