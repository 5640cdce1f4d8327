import Foundation
import GRDB
import LLVSSQLite
import LLVSTesting
import LLVSZones
import Testing

/// A database file that is not SQLite, or was written by a newer LLVS, is refused with an
/// error naming it — and left as it was.
@Suite struct SQLiteBadInputTests {
    func databaseURL(in directory: TemporaryDirectory) -> URL {
        directory.url.appendingPathComponent(SQLiteStorage.databaseFileName)
    }

    @Test(arguments: ["this is a text file, not a database\n", String(repeating: "\u{0}", count: 4096)])
    func aFileThatIsNotSQLiteIsRefused(_ content: String) throws {
        let directory = try TemporaryDirectory()
        let url = databaseURL(in: directory)
        try Data(content.utf8).write(to: url)
        #expect(throws: ZoneError.unsupportedFormat(path: url.path, found: "a file that is not an SQLite database")) {
            _ = try SQLiteStorage().makeZones(rootDirectoryURL: directory.url)
        }
        #expect(try Data(contentsOf: url) == Data(content.utf8), "the file is left as it was")
    }

    @Test func aSchemaFromANewerLLVSIsRefused() throws {
        let directory = try TemporaryDirectory()
        _ = try SQLiteStorage().makeZones(rootDirectoryURL: directory.url)
        let url = databaseURL(in: directory)
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future')")
        }
        try queue.close()
        #expect(throws: ZoneError.unsupportedFormat(path: url.path, found: "schema migrations [\"v1\", \"v2\", \"v3\", \"v99-from-the-future\"] from a newer LLVS")) {
            _ = try SQLiteStorage().makeZones(rootDirectoryURL: directory.url)
        }
    }

    @Test func theDatabaseUsesWriteAheadLogging() throws {
        let directory = try TemporaryDirectory()
        let zones = try SQLiteStorage().makeZones(rootDirectoryURL: directory.url)
        try zones.values.store(Data("x".utf8), for: ZoneReference(key: .init("k"), version: .init("V")))
        let mode = try DatabaseQueue(path: databaseURL(in: directory).path).read { db in
            try String.fetchOne(db, sql: "PRAGMA journal_mode")
        }
        #expect(mode == "wal")
    }
}
