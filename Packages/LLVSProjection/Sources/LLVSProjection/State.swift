import Foundation
import GRDB
import LLVSCore

/// The state row (`llvs_projection`): the version the tables show, the schema they were
/// built with, and the tables the projection made.
struct State {
    var version: Version.ID?
    var schema: String
    var tables: [String]

    private static let table = "llvs_projection"

    /// The state, or nil in a database the projection never wrote (or one whose state is
    /// unreadable, which rebuilds).
    static func read(_ db: Database) throws -> State? {
        guard try db.tableExists(table) else { return nil }
        let rows = try Row.fetchAll(db, sql: "SELECT key, value FROM llvs_projection")
        var values: [String: String] = [:]
        for row in rows {
            if let key: String = row["key"], let value: String = row["value"] { values[key] = value }
        }
        guard let schema = values["schema"], let tablesText = values["tables"],
              let tables = try? JSONDecoder().decode([String].self, from: Data(tablesText.utf8)) else { return nil }
        return State(version: values["version"].map { Version.ID($0) }, schema: schema, tables: tables)
    }

    /// Whether every table the state names exists.
    static func tablesExist(_ tables: [String], in db: Database) throws -> Bool {
        try tables.allSatisfy { try db.tableExists($0) }
    }

    /// Creates the state table, and the owned tables' capture and flag tables, if they are
    /// missing.
    static func createTable(in db: Database) throws {
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS llvs_projection (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)")
        try OwnedTables.createTables(in: db)
    }

    /// Records `version` and `schema`'s identity and tables.
    static func write(version: Version.ID, schema: ProjectionSchema, in db: Database) throws {
        try createTable(in: db)
        let names = schema.tables.flatMap { $0.fullText.isEmpty ? [$0.name] : [$0.name, $0.fullTextTableName] }
        let tables = String(decoding: try JSONEncoder().encode(names), as: UTF8.self)
        for (key, value) in [("version", version.rawValue), ("schema", schema.fingerprint), ("tables", tables), ("format", "1")] {
            try db.execute(sql: "INSERT INTO llvs_projection (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                           arguments: [key, value])
        }
    }

    /// Drops the tables an earlier schema made and any of the current schema's names.
    static func dropTables(previous: [String], current: [ProjectedTable], in db: Database) throws {
        let names = previous + current.flatMap { [$0.fullTextTableName, $0.name] }
        for name in names where try db.tableExists(name) {
            try db.execute(sql: "DROP TABLE \(name.sqlName)")
        }
    }

    /// Creates each table, its indexes and its FTS5 table (kept in step by GRDB's triggers).
    static func createTables(_ tables: [ProjectedTable], in db: Database) throws {
        for table in tables {
            let definitions = OwnedTables.ownColumnDefinitions(owned: table.owned) + table.columns.map { "\($0.name.sqlName) \($0.kind.sqlType)" }
            try db.execute(sql: "CREATE TABLE \(table.name.sqlName) (\(definitions.joined(separator: ", ")))")
            for columns in table.indexes {
                let name = "\(table.name)_by_\(columns.joined(separator: "_"))"
                try db.execute(sql: "CREATE INDEX \(name.sqlName) ON \(table.name.sqlName) "
                               + "(\(columns.map(\.sqlName).joined(separator: ", ")))")
            }
            if !table.fullText.isEmpty {
                try db.create(virtualTable: table.fullTextTableName, using: FTS5()) { fts in
                    fts.synchronize(withTable: table.name)
                    fts.tokenizer = .unicode61()
                    for column in table.fullText { fts.column(column) }
                }
            }
            if table.owned { try OwnedTables.createTriggers(for: table, in: db) }
        }
    }
}
