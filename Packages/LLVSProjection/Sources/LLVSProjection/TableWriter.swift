import Foundation
import GRDB
import LLVSCore
import LLVSModel

/// Writes value changes into the model tables, inside the caller's transaction.
struct TableWriter {
    let schema: ProjectionSchema
    let database: Database
    private let tablesByName: [String: ProjectedTable]

    init(schema: ProjectionSchema, database: Database) {
        self.schema = schema
        self.database = database
        tablesByName = Dictionary(schema.tables.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The table of the type a value identifier names, or nil for a value of no projected type.
    func table(for valueId: Value.ID) -> ProjectedTable? {
        modelTypeIdentifier(from: valueId).flatMap { tablesByName[$0] }
    }

    /// Applies one change: a row written for an insert or update of a value that decodes as
    /// its type, deleted for a removal or a value that does not (reported).
    func apply(_ change: Value.Change, report: inout ProjectionUpdate) throws {
        switch change {
        case .insert(let value), .update(let value):
            guard let table = table(for: value.id) else { return }
            do {
                try schema.decoders[table.name]?(value.data, value.id)
            } catch {
                report.skippedCount += 1
                if report.skipped.count < ModelProjection.reportedSkipLimit {
                    report.skipped.append(.init(valueId: value.id, reason: "\(error)"))
                }
                try delete(value.id, from: table, report: &report)
                return
            }
            try write(value, into: table)
            report.rowsChanged += 1
        case .remove(let valueId):
            guard let table = table(for: valueId) else { return }
            try delete(valueId, from: table, report: &report)
        case .preserve, .preserveRemoval:
            return
        }
    }

    private func delete(_ valueId: Value.ID, from table: ProjectedTable, report: inout ProjectionUpdate) throws {
        let statement = try database.cachedStatement(sql: "DELETE FROM \(table.name.quotedDatabaseIdentifier) WHERE llvs_id = ?")
        try statement.execute(arguments: [valueId.rawValue])
        if database.changesCount > 0 { report.rowsChanged += 1 }
    }

    private func write(_ value: Value, into table: ProjectedTable) throws {
        let object: JSONObject
        if case .object(let parsed)? = try? JSONValue(parsing: value.data) { object = parsed } else { object = JSONObject() }
        let names = ["llvs_id", "llvs_instance", "llvs_version", "llvs_data"] + table.columns.map(\.name)
        let columns = names.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
        let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
        let updates = names.dropFirst().map { "\($0.quotedDatabaseIdentifier) = excluded.\($0.quotedDatabaseIdentifier)" }.joined(separator: ", ")
        let statement = try database.cachedStatement(sql: """
            INSERT INTO \(table.name.quotedDatabaseIdentifier) (\(columns)) VALUES (\(placeholders))
            ON CONFLICT(llvs_id) DO UPDATE SET \(updates)
            """)
        var arguments: [(any DatabaseValueConvertible)?] = [
            value.id.rawValue,
            instanceIdentifier(from: value.id) ?? value.id.rawValue,
            (value.storedVersionId ?? Version.ID("")).rawValue,
            String(decoding: value.data, as: UTF8.self),
        ]
        for column in table.columns {
            arguments.append(Self.databaseValue(object[column.name], kind: column.kind))
        }
        try statement.execute(arguments: StatementArguments(arguments))
    }

    /// Seconds from 1970 to 2001, the offset between a stored `Date` and a Unix time.
    static let unixEpochOffset = 978_307_200.0

    /// The SQL value of a property's JSON for a column of `kind`.
    static func databaseValue(_ json: JSONValue?, kind: ProjectedColumn.Kind) -> DatabaseValue {
        guard let json else { return .null }
        switch (kind, json) {
        case (_, .null): return .null
        case (.date, .number(let number)): return (number.doubleValue + unixEpochOffset).databaseValue
        case (_, .bool(let flag)): return (flag ? 1 : 0).databaseValue
        case (_, .number(.integer(let integer))): return integer.databaseValue
        case (_, .number(.double(let double))): return double.databaseValue
        case (_, .number(.largeInteger(let digits))): return digits.databaseValue
        case (_, .string(let string)): return string.databaseValue
        case (_, .array), (_, .object): return String(decoding: json.canonicalData, as: UTF8.self).databaseValue
        }
    }
}
