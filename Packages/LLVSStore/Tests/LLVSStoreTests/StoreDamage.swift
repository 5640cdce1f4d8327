import Foundation
import GRDB
import LLVSSQLite
@testable import LLVSStore

/// Ways to damage a store's storage behind its back, for the verification tests.
enum StoreDamage {
    /// The first pack `version` wrote to a zone (`values` or `maps`) of the file store at `root`.
    static func pack(of version: Version.ID, zone: String, inStoreAt root: URL) -> URL {
        root.appendingPathComponent(zone, isDirectory: true)
            .appendingPathComponent(FileNaming.shardName(for: version), isDirectory: true)
            .appendingPathComponent(FileNaming.directoryName(for: version) + ".pack")
    }

    /// Inverts the byte in the middle of a file.
    static func flipMiddleByte(of url: URL) throws {
        var bytes = try Data(contentsOf: url)
        let middle = bytes.count / 2
        bytes[middle] ^= 0xFF
        try bytes.write(to: url)
    }

    /// Cuts a file to half its length.
    static func truncateToHalf(_ url: URL) throws {
        let bytes = try Data(contentsOf: url)
        try bytes.prefix(bytes.count / 2).write(to: url)
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
