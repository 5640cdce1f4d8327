import Foundation
import GRDB
@testable import LLVSSQLite
import LLVSTesting
import LLVSZones
import Testing

/// The SQLite backend writes a version's items and record in one transaction.
@Suite struct SQLiteVersionCommitterTests {
    static func item(_ key: String, _ version: String, _ text: String) -> ZoneItem {
        ZoneItem(reference: ZoneReference(key: .init(key), version: .init(version)), data: Data(text.utf8))
    }

    @Test func aCommitStoresTheItemsAndAppendsTheRecord() throws {
        let directory = try TemporaryDirectory()
        let zones = try SQLiteStorage().makeZones(rootDirectoryURL: directory.url)
        let committer = zones.committer
        try committer.commitVersion(values: [Self.item("b", "V", "2"), Self.item("a", "V", "1"), Self.item("b", "V", "3")],
                                    maps: [Self.item("node", "V", "n")], record: Data("record".utf8))
        // A fresh opening sees everything; of two items under one reference the last won.
        let reopened = try SQLiteStorage().makeZones(rootDirectoryURL: directory.url)
        #expect(try reopened.values.data(for: [ZoneReference(key: "a", version: "V"), ZoneReference(key: "b", version: "V")])
                == [Data("1".utf8), Data("3".utf8)])
        #expect(try reopened.maps.data(for: ZoneReference(key: "node", version: "V")) == Data("n".utf8))
        #expect(try reopened.versions.records(after: .start).records == [Data("record".utf8)])
        // Items already stored keep their bytes, as with Zone.store.
        try committer.commitVersion(values: [Self.item("a", "V", "changed")], maps: [], record: Data("again".utf8))
        #expect(try reopened.values.data(for: ZoneReference(key: "a", version: "V")) == Data("1".utf8))
    }

    /// A batch larger than one statement (256 rows) goes in as several, each statement's
    /// rows copied and checksummed on another thread while SQLite inserts the previous
    /// ones: every row arrives once, with its own bytes (empty keys and data, NUL bytes and
    /// long data included), a reference repeated in the batch gets its last data, and
    /// every row checks.
    @Test(arguments: [1, 255, 256, 257, 513, 3_000])
    func batchesOfSeveralStatementsStoreEveryRow(count: Int) throws {
        let directory = try TemporaryDirectory()
        let zones = try SQLiteStorage().makeZones(rootDirectoryURL: directory.url)
        let keys = ["", "\0", "a\0b"] + (0..<count).map { "k\($0)" }
        func data(_ index: Int) -> Data {
            index % 7 == 0 ? Data() : Data(String(repeating: "d\(index)\0", count: 1 + index % 300).utf8)
        }
        var items = keys.enumerated().map { ZoneItem(reference: ZoneReference(key: .init($0.element), version: "V\0x"), data: data($0.offset)) }
        items.append(ZoneItem(reference: items[count / 2].reference, data: Data("last".utf8)))
        try zones.committer.commitVersion(values: items, maps: [], record: Data("r".utf8))
        try zones.maps.store(items)
        var expected = Dictionary(items.map { ($0.reference, $0.data) }, uniquingKeysWith: { $1 })
        expected[items[count / 2].reference] = Data("last".utf8)
        let references = Array(expected.keys)
        let reopened = try SQLiteStorage().makeZones(rootDirectoryURL: directory.url)
        #expect(try reopened.values.data(for: references) == references.map { expected[$0] })
        #expect(try reopened.maps.data(for: references) == references.map { expected[$0] })
        let queue = try DatabaseQueue(path: directory.url.appendingPathComponent(SQLiteStorage.databaseFileName).path)
        #expect(try queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM zone_item") } == 2 * expected.count)
        #expect(reopened.checkStoredBytes?() == [])
    }

    /// A large commit is not followed by a log as large as its data: the truncating
    /// checkpoint runs on the writer's queue after the commit returns, so the next write
    /// (or closing the store) comes after it, and it turns SQLite's automatic checkpoint,
    /// off for the large commit, back on.
    @Test func aLargeCommitLeavesNoLargeWriteAheadLog() throws {
        let directory = try TemporaryDirectory()
        let zones = try SQLiteStorage().makeZones(rootDirectoryURL: directory.url)
        let committer = try #require(zones.committer as? SQLiteVersionCommitter)
        let payload = String(repeating: "x", count: 100)
        let values = (0..<60_000).map { _ in Self.item(UUID().uuidString, "V", payload) }
        try committer.commitVersion(values: values, maps: [], record: Data("record".utf8))
        #expect(try zones.values.data(for: values[12_345].reference) == Data(payload.utf8))
        try committer.commitVersion(values: [Self.item("small", "W", "1")], maps: [], record: Data("next".utf8))
        let wal = directory.url.appendingPathComponent(SQLiteStorage.databaseFileName + "-wal")
        let size = (try? FileManager.default.attributesOfItem(atPath: wal.path)[.size] as? Int) ?? 0
        #expect(size < 1 << 20, "the write-ahead log holds \(size) bytes after the checkpoint")
        #expect(try committer.database.pool.write { try Int.fetchOne($0, sql: "PRAGMA wal_autocheckpoint") } == SQLiteDatabase.autocheckpointPages)
        #expect(try zones.versions.records(after: .start).records == [Data("record".utf8), Data("next".utf8)])
        // Closing waits for the checkpoint too, and a fresh opening reads everything.
        try zones.close?()
        let reopened = try SQLiteStorage().makeZones(rootDirectoryURL: directory.url)
        #expect(try reopened.values.data(for: values[59_999].reference) == Data(payload.utf8))
    }

    /// A version stored in parts: each part's transaction leaves SQLite's automatic
    /// checkpoint off (the log is copied into the database once, after the commit), the
    /// parts are readable at once, and the commit that follows them, however small,
    /// truncates the log and turns the checkpoint back on.
    @Test func partsAheadOfACommitAreCheckpointedOnceAfterIt() throws {
        let directory = try TemporaryDirectory()
        let zones = try SQLiteStorage().makeZones(rootDirectoryURL: directory.url)
        let committer = try #require(zones.committer as? SQLiteVersionCommitter)
        let payload = String(repeating: "p", count: 100)
        let parts = (0..<4).map { part in (0..<10_000).map { Self.item(String(format: "%d-%05d", part, $0), "V", payload) } }
        let autocheckpoint = { try committer.database.pool.write { try Int.fetchOne($0, sql: "PRAGMA wal_autocheckpoint") } }
        for part in parts {
            try committer.storePart(values: part, maps: [Self.item("node \(part[0].reference.key)", "V", "n")])
            #expect(try autocheckpoint() == 0)
        }
        #expect(try zones.values.data(for: parts[2][77].reference) == Data(payload.utf8))
        let wal = directory.url.appendingPathComponent(SQLiteStorage.databaseFileName + "-wal")
        let walSize = { (try? FileManager.default.attributesOfItem(atPath: wal.path)[.size] as? Int) ?? 0 }
        #expect(walSize() > 4 << 20, "the parts were checkpointed before the commit")
        try committer.commitVersion(values: [], maps: [], record: Data("record".utf8))
        #expect(try autocheckpoint() == SQLiteDatabase.autocheckpointPages)
        #expect(walSize() < 1 << 20, "the write-ahead log holds \(walSize()) bytes after the commit's checkpoint")
        try zones.close?()
        let reopened = try SQLiteStorage().makeZones(rootDirectoryURL: directory.url)
        #expect(try reopened.values.data(for: parts.map { $0[9_999].reference }) == parts.map { _ in Data(payload.utf8) })
        #expect(try reopened.maps.data(for: ZoneReference(key: "node 3-00000", version: "V")) == Data("n".utf8))
        #expect(try reopened.versions.records(after: .start).records == [Data("record".utf8)])
        #expect(reopened.checkStoredBytes?() == [])
    }

    /// Schema `v3`: a new database has 4 KiB pages, and each commit's rows follow the rows
    /// of earlier commits in the table, whatever their addresses: the second version's
    /// identifier sorts first, yet its rows come last. Without the insertion-ordered table
    /// (rows ordered by address, as in `v2`) the sequences would interleave.
    @Test func aNewDatabaseHasSmallPagesAndEachCommitAppendsItsRows() throws {
        let directory = try TemporaryDirectory()
        let zones = try SQLiteStorage().makeZones(rootDirectoryURL: directory.url)
        let committer = zones.committer
        try committer.commitVersion(values: [Self.item("m", "Z", "1"), Self.item("a", "Z", "2")], maps: [Self.item("n", "Z", "3")], record: Data("r1".utf8))
        try committer.commitVersion(values: [Self.item("z", "A", "4"), Self.item("b", "A", "5")], maps: [Self.item("n", "A", "6")], record: Data("r2".utf8))
        let queue = try DatabaseQueue(path: directory.url.appendingPathComponent(SQLiteStorage.databaseFileName).path)
        #expect(try queue.read { try Int.fetchOne($0, sql: "PRAGMA page_size") } == 4_096)
        let versionsInTableOrder = try queue.read { db in
            try Data.fetchAll(db, sql: "SELECT version FROM zone_item ORDER BY sequence").map { String(decoding: $0, as: UTF8.self) }
        }
        #expect(versionsInTableOrder == ["Z", "Z", "Z", "A", "A", "A"])
        // Lookups by address go through the unique index, not a scan of the table.
        let plan = try queue.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT data FROM zone_item WHERE zone = 0 AND version = x'41' AND key = x'62'")
                .map { $0["detail"] as String? ?? "" }
        }
        #expect(plan.contains { $0.contains("zone_item_address") }, "\(plan)")
        // The index leads with the version, so one commit's entries of both zones are
        // neighbours: a commit inserts index entries at one place, not two.
        let indexColumns = try queue.read { db in
            try Row.fetchAll(db, sql: "PRAGMA index_info(zone_item_address)").map { $0["name"] as String? ?? "" }
        }
        #expect(indexColumns == ["version", "zone", "key"])
        #expect(try zones.values.data(for: ZoneReference(key: "b", version: "A")) == Data("5".utf8))
    }
}
