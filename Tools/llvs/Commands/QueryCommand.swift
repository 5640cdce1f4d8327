import ArgumentParser
import Foundation
import GRDB
import LLVS

/// `llvs query SQL`: read-only SQL against the models and values at a version.
struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Run read-only SQL against the models and values at a version.",
        discussion: """
            Each model type at the version is a table named by its type identifier (llvs_id, \
            llvs_instance, llvs_version, llvs_data, and a column per property). A type whose \
            schema the model layer recorded gets its columns from it: dates as seconds since \
            1970 (datetime(updated, 'unixepoch')), references as the target's instance, \
            joining its table's llvs_instance. Other types get a column per top-level member, \
            typed by what the stored JSON holds (dates: seconds since 2001). Every other value \
            is a row of llvs_values (llvs_id, llvs_version, llvs_data); the schemas are rows \
            of llvs_schemas. SQLite's JSON functions read nested members: \
            json_extract(place, '$.city'). A statement that writes is refused.

              llvs query 'SELECT category, count(*) FROM Note GROUP BY category'
              llvs query --at 3f2a9c1 --json 'SELECT title FROM Note WHERE stars > 3'
            """)

    @OptionGroup var options: StoreOptions

    @Option(name: .long, help: ArgumentHelp("The version to query (default: HEAD).", valueName: "version"))
    var at: String?

    @Argument(help: ArgumentHelp("One SQL statement that only reads.", valueName: "sql"))
    var sql: String

    func run() throws {
        let directory = try options.open(locking: false)
        let version = try at.map(directory.resolveVersion) ?? directory.requireHead()
        let database = try DatabaseQueue()
        try database.write { db in _ = try InferredTables.write(directory.store, at: version, into: db) }
        let (columns, rows) = try database.read { db -> ([String], [[DatabaseValue]]) in
            let statement: Statement
            do {
                statement = try db.makeStatement(sql: sql)
            } catch let error as DatabaseError {
                throw CLIError.failed("the SQL is not valid: \(error.message ?? error.description)")
            }
            guard statement.isReadonly else {
                throw CLIError.usage("llvs query runs read-only SQL; this statement writes: \(sql)")
            }
            let rows = try Row.fetchAll(statement)
            return (statement.columnNames, rows.map { row in row.databaseValues.map { $0 } })
        }
        if options.json {
            try Output.json(rows.map { row in
                Dictionary(zip(columns, row.map(JSONCell.init)), uniquingKeysWith: { first, _ in first })
            })
        } else {
            Output.line(Self.table(columns: columns, rows: rows.map { $0.map(Self.text) }))
        }
    }

    /// A cell as text for the table.
    static func text(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: return "NULL"
        case .int64(let integer): return String(integer)
        case .double(let double): return String(double)
        case .string(let string): return string
        case .blob(let data): return "<\(data.count) bytes>"
        }
    }

    /// Columns aligned under their names, a rule beneath the header.
    static func table(columns: [String], rows: [[String]]) -> String {
        let widths = columns.indices.map { index in
            ([columns[index]] + rows.map { $0[index] }).map(\.count).max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        return ([line(columns), rule] + rows.map(line)).joined(separator: "\n")
    }
}

/// A cell in `--json` output: null, a number, a string, or a blob as base64.
private enum JSONCell: Encodable {
    case null, integer(Int64), double(Double), string(String), blob(Data)

    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let integer): self = .integer(integer)
        case .double(let double): self = .double(double)
        case .string(let string): self = .string(string)
        case .blob(let data): self = .blob(data)
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .integer(let integer): try container.encode(integer)
        case .double(let double): try container.encode(double.isFinite ? double : 0)
        case .string(let string): try container.encode(string)
        case .blob(let data): try container.encode(data.base64EncodedString())
        }
    }
}
