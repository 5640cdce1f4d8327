import Foundation
import GRDB
@testable import LLVSSQLite
import LLVSTesting
import LLVSZones
import Testing

/// Every identifier is stored byte for byte, every row carries a checksum that reads and
/// `checkStoredBytes` verify, and databases of the first schema are upgraded in place.
@Suite struct SQLiteIntegrityTests {
    static func item(_ key: String, _ version: String, _ text: String) -> ZoneItem {
        ZoneItem(reference: ZoneReference(key: .init(key), version: .init(version)), data: Data(text.utf8))
    }

    static func queue(in directory: TemporaryDirectory) throws -> DatabaseQueue {
        try DatabaseQueue(path: directory.url.appendingPathComponent(SQLiteStorage.databaseFileName).path)
    }

    @Test func identifiersKeepEveryByteNulIncluded() throws {
        let directory = try TemporaryDirectory()
        let keys = ["a", "a\0b", "a\0", "\0", "", "\0\0", "e\u{301}", "\u{E9}", "\u{FFFF}", String(repeating: "k\0", count: 5_000)]
        let versions = ["W", "W\0a", "W\0b", "\0"]
        let zones = try SQLiteStorage().makeZones(rootDirectoryURL: directory.url)
        var expected: [ZoneReference: Data] = [:]
        for version in versions {
            let items = keys.enumerated().map { Self.item($0.element, version, "\(version.debugDescription) \($0.offset)") }
            try zones.committer.commitVersion(values: items, maps: items, record: Data(version.utf8))
            for item in items { expected[item.reference] = item.data }
        }
        for storage in [zones, try SQLiteStorage().makeZones(rootDirectoryURL: directory.url)] {
            for (reference, data) in expected {
                #expect(try storage.values.data(for: reference) == data, "\(reference.key.rawValue.debugDescription)")
                #expect(try storage.maps.data(for: reference) == data)
            }
            #expect(try storage.values.data(for: ZoneReference(key: "a\0c", version: "W")) == nil)
            #expect(try storage.values.data(for: ZoneReference(key: "a", version: "W\0")) == nil)
            #expect(try storage.versions.records(after: .start).records == versions.map { Data($0.utf8) })
        }
        let rows: Int? = try Self.queue(in: directory).read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM zone_item") }
        #expect(rows == 2 * keys.count * versions.count)
    }

    @Test func aDamagedRowIsAnErrorNamingItNeverWrongBytes() throws {
        let directory = try TemporaryDirectory()
        let zones = try SQLiteStorage().makeZones(rootDirectoryURL: directory.url)
        try zones.committer.commitVersion(values: [Self.item("a", "V", "apple"), Self.item("b", "V", "banana")],
                                                    maps: [Self.item("node", "V", "n")], record: Data("record".utf8))
        #expect(zones.checkStoredBytes?() == [])
        try Self.queue(in: directory).write { db in
            try db.execute(sql: "UPDATE zone_item SET data = ? WHERE zone = 0 AND key = ?", arguments: [Data("apples".utf8), Data("a".utf8)])
            try db.execute(sql: "UPDATE zone_item SET key = ? WHERE zone = 1", arguments: [Data("nodf".utf8)])
        }
        let reopened = try SQLiteStorage().makeZones(rootDirectoryURL: directory.url)
        let thrown = #expect(throws: ZoneError.self) { _ = try reopened.values.data(for: ZoneReference(key: "a", version: "V")) }
        #expect(thrown?.description.contains("value data item a@V fails its checksum") == true, "\(String(describing: thrown))")
        #expect(try reopened.values.data(for: ZoneReference(key: "b", version: "V")) == Data("banana".utf8))
        let found = reopened.checkStoredBytes?() ?? []
        #expect(found.map(\.valueId) == ["a", nil], "\(found)")
        #expect(found.allSatisfy { $0.version == "V" && $0.reason.contains("fails its checksum") })
        #expect(found.last?.reason.contains("map node item nodf@V") == true)

        // A damaged version record: reading the log names it instead of returning it.
        try Self.queue(in: directory).write { db in
            try db.execute(sql: "UPDATE version_record SET record = ?", arguments: [Data("recorD".utf8)])
        }
        #expect(throws: ZoneError.corrupt(path: directory.url.appendingPathComponent(SQLiteStorage.databaseFileName).path,
                                          reason: "version record 1 fails its checksum (damaged row)")) {
            _ = try reopened.versions.records(after: .start)
        }
        #expect(reopened.checkStoredBytes?().count == 3)
    }

    /// A log long enough to have its checksums compared in parallel parts: every record
    /// comes back in order, and damaged rows are reported by the first one's sequence
    /// number, whichever part they are in.
    @Test func aDamagedRowOfALongLogIsNamedFirstInLogOrder() throws {
        let directory = try TemporaryDirectory()
        let zones = try SQLiteStorage().makeZones(rootDirectoryURL: directory.url)
        let records = (0..<9_000).map { Data("record \($0)".utf8) }
        try zones.versions.append(records)
        #expect(try zones.versions.records(after: .start).records == records)
        let path = directory.url.appendingPathComponent(SQLiteStorage.databaseFileName).path
        for damaged in [[8_999], [4, 8_998], [6_000, 5_000]] {
            try Self.queue(in: directory).write { db in
                for index in damaged {
                    try db.execute(sql: "UPDATE version_record SET record = ? WHERE sequence = ?", arguments: [Data("damaged".utf8), index + 1])
                }
            }
            #expect(throws: ZoneError.corrupt(path: path, reason: "version record \((damaged.min() ?? 0) + 1) fails its checksum (damaged row)")) {
                _ = try zones.versions.records(after: .start)
            }
            try Self.queue(in: directory).write { db in
                for index in damaged {
                    try db.execute(sql: "UPDATE version_record SET record = ? WHERE sequence = ?", arguments: [records[index], index + 1])
                }
            }
        }
        #expect(try zones.versions.records(after: .start).records == records)
    }

    /// The log's columns as the C API reads them: an empty record (SQLite hands back no
    /// pointer for an empty BLOB) comes back empty, a record stored as TEXT comes back as its
    /// bytes, and a checksum of the wrong length or type is a damaged row.
    @Test func logColumnsOfEveryTypeAndLengthAreReadOrNamed() throws {
        let directory = try TemporaryDirectory()
        let zones = try SQLiteStorage().makeZones(rootDirectoryURL: directory.url)
        let records = [Data(), Data("text".utf8), Data([0, 1, 0])]
        try zones.versions.append(records)
        try Self.queue(in: directory).write { db in
            try db.execute(sql: "UPDATE version_record SET record = CAST(record AS TEXT) WHERE sequence = 2")
        }
        #expect(try Self.queue(in: directory).read { try String.fetchOne($0, sql: "SELECT typeof(record) FROM version_record WHERE sequence = 2") } == "text")
        #expect(try zones.versions.records(after: .start).records == records)
        let path = directory.url.appendingPathComponent(SQLiteStorage.databaseFileName).path
        for damage in ["x'0102'", "x''", "'a text checksum of thirty-two b'", "42"] {
            let saved = try Self.queue(in: directory).read { try Data.fetchOne($0, sql: "SELECT checksum FROM version_record WHERE sequence = 3") }
            try Self.queue(in: directory).write { db in try db.execute(sql: "UPDATE version_record SET checksum = \(damage) WHERE sequence = 3") }
            #expect(throws: ZoneError.corrupt(path: path, reason: "version record 3 fails its checksum (damaged row)"), "checksum \(damage)") {
                _ = try zones.versions.records(after: .start)
            }
            try Self.queue(in: directory).write { db in try db.execute(sql: "UPDATE version_record SET checksum = ? WHERE sequence = 3", arguments: [saved]) }
        }
        #expect(try zones.versions.records(after: .start).records == records)
    }

    @Test func aDatabaseOfTheFirstSchemaIsUpgradedInPlace() throws {
        let directory = try TemporaryDirectory()
        // What LLVS wrote before identifiers became BLOBs and rows got checksums.
        try Self.queue(in: directory).write { db in
            try db.execute(sql: """
                CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                INSERT INTO grdb_migrations VALUES ('v1');
                CREATE TABLE zone_item (zone INTEGER NOT NULL, version TEXT NOT NULL, key TEXT NOT NULL, data BLOB NOT NULL,
                                        PRIMARY KEY (zone, version, key)) WITHOUT ROWID;
                CREATE TABLE version_record (sequence INTEGER PRIMARY KEY AUTOINCREMENT, record BLOB NOT NULL);
                INSERT INTO zone_item VALUES (0, 'V1', 'a', x'31'), (0, 'V1', 'café', x'32'), (1, 'V1', 'node', x'6E');
                INSERT INTO version_record (record) VALUES (x'72310A'), (x'7232');
                """)
        }
        let zones = try SQLiteStorage().makeZones(rootDirectoryURL: directory.url)
        #expect(try zones.values.data(for: [ZoneReference(key: "a", version: "V1"), ZoneReference(key: "café", version: "V1")])
                == [Data("1".utf8), Data("2".utf8)])
        #expect(try zones.maps.data(for: ZoneReference(key: "node", version: "V1")) == Data("n".utf8))
        let (records, cursor) = try zones.versions.records(after: .start)
        #expect(records == [Data("r1\n".utf8), Data("r2".utf8)])
        #expect(zones.checkStoredBytes?() == [])
        // New records continue the sequence.
        try zones.committer.commitVersion(values: [Self.item("b", "V2", "3")], maps: [], record: Data("r3".utf8))
        #expect(try zones.versions.records(after: cursor).records == [Data("r3".utf8)])
        #expect(try Self.queue(in: directory).read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier") }
                == ["v1", "v2", "v3"])
    }

    /// A database of schema `v2` (rows ordered by address in a `WITHOUT ROWID` table, 16 KiB
    /// pages) moves its rows, checksums unchanged, into the insertion-ordered table of `v3`;
    /// it keeps its page size, every row still checks, and new commits go on.
    @Test func aDatabaseOfTheSecondSchemaIsUpgradedInPlace() throws {
        let directory = try TemporaryDirectory()
        let items = [Self.item("a", "V1", "1"), Self.item("a\0b", "V1", "2"), Self.item("", "V2", "3")]
        let node = Self.item("node", "V1", "n")
        func checksum(_ zone: Int, _ item: ZoneItem) -> Data {
            SQLiteRowChecksum.item(zone: zone, version: item.reference.version.rawValue.sqliteBytes,
                                   key: item.reference.key.rawValue.sqliteBytes, data: item.data)
        }
        try Self.queue(in: directory).writeWithoutTransaction { db in
            try db.execute(sql: """
                PRAGMA page_size = 16384;
                PRAGMA journal_mode = WAL;
                CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                INSERT INTO grdb_migrations VALUES ('v1'), ('v2');
                CREATE TABLE zone_item (zone INTEGER NOT NULL, version BLOB NOT NULL, key BLOB NOT NULL, data BLOB NOT NULL,
                                        checksum BLOB NOT NULL, PRIMARY KEY (zone, version, key)) WITHOUT ROWID;
                CREATE TABLE version_record (sequence INTEGER PRIMARY KEY AUTOINCREMENT, record BLOB NOT NULL,
                                             checksum BLOB NOT NULL DEFAULT x'');
                """)
            for (zone, item) in items.map({ (0, $0) }) + [(1, node)] {
                try db.execute(sql: "INSERT INTO zone_item VALUES (?, ?, ?, ?, ?)",
                               arguments: [zone, item.reference.version.rawValue.sqliteBytes, item.reference.key.rawValue.sqliteBytes,
                                           item.data, checksum(zone, item)])
            }
            for record in ["r1", "r2"] {
                try db.execute(sql: "INSERT INTO version_record (record, checksum) VALUES (?, ?)",
                               arguments: [Data(record.utf8), SQLiteRowChecksum.record(Data(record.utf8))])
            }
        }
        let zones = try SQLiteStorage().makeZones(rootDirectoryURL: directory.url)
        #expect(try zones.values.data(for: items.map(\.reference)) == items.map(\.data))
        #expect(try zones.maps.data(for: node.reference) == node.data)
        #expect(zones.checkStoredBytes?() == [])
        let (records, cursor) = try zones.versions.records(after: .start)
        #expect(records == [Data("r1".utf8), Data("r2".utf8)])
        try zones.committer.commitVersion(values: [Self.item("b", "V3", "4"), Self.item("a", "V1", "changed")], maps: [],
                                                    record: Data("r3".utf8))
        #expect(try zones.values.data(for: [ZoneReference(key: "b", version: "V3"), ZoneReference(key: "a", version: "V1")])
                == [Data("4".utf8), Data("1".utf8)])
        #expect(try zones.versions.records(after: cursor).records == [Data("r3".utf8)])
        let queue = try Self.queue(in: directory)
        #expect(try queue.read { try Int.fetchOne($0, sql: "PRAGMA page_size") } == 16_384)
        #expect(try queue.read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier") }
                == ["v1", "v2", "v3"])
        #expect(try queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM zone_item") } == 5)
        // The log keeps its sequence numbers and continues them without AUTOINCREMENT (whose
        // `sqlite_sequence` row cost a page write per commit).
        #expect(try queue.read { try Int.fetchAll($0, sql: "SELECT sequence FROM version_record ORDER BY sequence") } == [1, 2, 3])
        #expect(try queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM sqlite_sequence WHERE name = 'version_record'") } == 0)
    }

    /// Every connection, the writer and the readers, caches at most the storage's page
    /// cache limit (SQLite's `cache_size` in KiB, negative); a limit under 1 KiB, negative
    /// ones included, counts as 1 KiB, and one SQLite would read as 0 (over 2^31 − 1 KiB) as
    /// that much.
    @Test(arguments: [(SQLiteStorage.defaultPageCacheByteLimit, -2_048), (1 << 20, -1_024), (1_500, -1), (0, -1), (-5, -1),
                      (Int.min, -1), (Int.max, -2_147_483_647), (1 << 41, -2_147_483_647)])
    func eachConnectionCachesAtMostTheLimit(_ limit: Int, cacheSize: Int) throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase.open(rootDirectoryURL: directory.url, busyTimeout: 5, pageCacheByteLimit: limit)
        #expect(try database.pool.write { try Int.fetchOne($0, sql: "PRAGMA cache_size") } == cacheSize)
        #expect(try database.pool.read { try Int.fetchOne($0, sql: "PRAGMA cache_size") } == cacheSize)
        #expect(SQLiteStorage().pageCacheByteLimit == 2 << 20)
        #expect(SQLiteStorage(pageCacheByteLimit: limit).pageCacheByteLimit == limit)
    }

    @Test(arguments: [(SQLiteStorage.Durability.full, 2), (.relaxed, 1)])
    func commitsSyncTheLogUnlessTheCallerOptsOut(_ durability: SQLiteStorage.Durability, synchronous: Int) throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase.open(rootDirectoryURL: directory.url, busyTimeout: 5, durability: durability)
        #expect(try database.pool.write { try Int.fetchOne($0, sql: "PRAGMA synchronous") } == synchronous)
        #expect(SQLiteStorage().durability == .full)
    }
}
