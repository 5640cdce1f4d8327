import Foundation
import GRDB
import LLVSCore
import LLVSModel
import LLVSStore
import LLVSSupport

/// Writes value changes into the model tables, inside the caller's transaction.
struct TableWriter {
    /// A projected table with its statements' SQL, made once per update.
    private struct Target {
        let table: ProjectedTable
        let upsert: String
        let delete: String
    }

    /// A value of a projected type, checked and parsed (on any thread) before it is written.
    private struct Prepared: Sendable {
        let value: Value
        let tableName: String
        /// The top-level members to write, or why the value is skipped.
        let outcome: Result<JSONObject, Skip>
    }

    private struct Skip: Error {
        let reason: String
    }

    let schema: ProjectionSchema
    let database: Database
    private let targets: [String: Target]

    init(schema: ProjectionSchema, database: Database) {
        self.schema = schema
        self.database = database
        var targets: [String: Target] = [:]
        for table in schema.tables where targets[table.name] == nil {
            let updates = Self.rowColumnNames(table.columns).dropFirst()
                .map { "\($0.sqlName) = excluded.\($0.sqlName)" }
            targets[table.name] = Target(
                table: table,
                upsert: Self.insertSQL(into: table.name, columns: table.columns) + " ON CONFLICT(llvs_id) DO UPDATE SET \(updates.joined(separator: ", "))",
                delete: "DELETE FROM \(table.name.sqlName) WHERE llvs_id = ?")
        }
        self.targets = targets
    }

    /// The name of the table of the type a value identifier names, or nil for a value of no
    /// projected type.
    func tableName(for valueId: Value.ID) -> String? {
        modelTypeIdentifier(from: valueId).flatMap { targets[$0] == nil ? nil : $0 }
    }

    /// Applies changes: a row written for each insert or update of a value that decodes as
    /// its type, deleted for a removal or a value that does not (reported). The values are
    /// checked and parsed on every core first; the rows are written in order.
    func apply(_ changes: [Value.Change], report: inout ProjectionUpdate) throws {
        var values: [Value] = []
        for change in changes {
            if case .insert(let value) = change, tableName(for: value.id) != nil { values.append(value) }
            if case .update(let value) = change, tableName(for: value.id) != nil { values.append(value) }
        }
        var prepared = prepare(values).makeIterator()
        for change in changes {
            switch change {
            case .insert(let value), .update(let value):
                guard tableName(for: value.id) != nil, let row = prepared.next() else { continue }
                try write(row, report: &report)
            case .remove(let valueId):
                guard let name = tableName(for: valueId) else { continue }
                try delete(valueId, from: name, report: &report)
            case .preserve, .preserveRemoval:
                continue
            }
        }
    }

    /// Inserts the values at `references` (a rebuild): each part of them read from `store`,
    /// checked and parsed on a core of its own, the rows written in order.
    func insert(_ references: [Value.Reference], readingFrom store: Store, report: inout ProjectionUpdate) throws {
        let parts = references.count < 64 ? 1 : ProcessInfo.processInfo.activeProcessorCount
        let size = (references.count + parts - 1) / parts
        let results = Locked<[Int: Result<[Prepared], any Error>]>([:])
        let prepareOne = preparation()
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            let range = min(part * size, references.count)..<min((part + 1) * size, references.count)
            let outcome = Result { try store.values(storedAt: Array(references[range])).map(prepareOne) }
            results.withLock { $0[part] = outcome }
        }
        let prepared = try results.withLock { parts in try parts.keys.sorted().flatMap { try parts[$0]?.get() ?? [] } }
        for row in prepared { try write(row, report: &report) }
    }

    /// What prepares one value: its decoding check and its members.
    private func preparation() -> @Sendable (Value) -> Prepared {
        let decoders = schema.decoders
        return { value in
            let name = modelTypeIdentifier(from: value.id) ?? ""
            do {
                try decoders[name]?(value.data, value.id)
                guard case .object(let object) = try JSONValue(parsing: value.data) else { throw Skip(reason: "not a JSON object") }
                return Prepared(value: value, tableName: name, outcome: .success(object))
            } catch let skip as Skip {
                return Prepared(value: value, tableName: name, outcome: .failure(skip))
            } catch {
                return Prepared(value: value, tableName: name, outcome: .failure(Skip(reason: "\(error)")))
            }
        }
    }

    /// Checks each value decodes as its type and parses its members, in parallel parts.
    private func prepare(_ values: [Value]) -> [Prepared] {
        let prepareOne = preparation()
        let parts = values.count < 64 ? 1 : ProcessInfo.processInfo.activeProcessorCount
        guard parts > 1 else { return values.map(prepareOne) }
        let results = Locked<[Int: [Prepared]]>([:])
        let size = (values.count + parts - 1) / parts
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            let range = min(part * size, values.count)..<min((part + 1) * size, values.count)
            let done = values[range].map(prepareOne)
            results.withLock { $0[part] = done }
        }
        return results.withLock { parts in parts.keys.sorted().flatMap { parts[$0] ?? [] } }
    }

    private func write(_ row: Prepared, report: inout ProjectionUpdate) throws {
        guard let target = targets[row.tableName] else { return }
        switch row.outcome {
        case .failure(let skip):
            report.skippedCount += 1
            if report.skipped.count < ModelProjection.reportedSkipLimit {
                report.skipped.append(.init(valueId: row.value.id, reason: skip.reason))
            }
            try delete(row.value.id, from: row.tableName, report: &report)
        case .success(let object):
            try database.cachedStatement(sql: target.upsert)
                .execute(arguments: Self.rowArguments(row.value, object, columns: target.table.columns))
            report.rowsChanged += 1
        }
    }

    private func delete(_ valueId: Value.ID, from tableName: String, report: inout ProjectionUpdate) throws {
        guard let target = targets[tableName] else { return }
        try database.cachedStatement(sql: target.delete).execute(arguments: [Self.text(valueId.rawValue)])
        if database.changesCount > 0 { report.rowsChanged += 1 }
    }

    /// A model row's values, in the order of ``rowColumnNames(_:)``.
    static func rowArguments(_ value: Value, _ object: JSONObject, columns: [ProjectedColumn]) -> StatementArguments {
        var arguments: [DatabaseValue] = [
            text(value.id.rawValue),
            text(instanceIdentifier(from: value.id) ?? value.id.rawValue),
            text(value.storedVersionId?.rawValue ?? ""),
            String(decoding: value.data, as: UTF8.self).databaseValue,
        ]
        arguments.reserveCapacity(4 + columns.count)
        for column in columns { arguments.append(databaseValue(object[column.name], kind: column.kind)) }
        return StatementArguments(arguments)
    }

    /// A model row's columns: the projection's own, then the properties'.
    static func rowColumnNames(_ columns: [ProjectedColumn]) -> [String] {
        ["llvs_id", "llvs_instance", "llvs_version", "llvs_data"] + columns.map(\.name)
    }

    /// `INSERT INTO table (columns) VALUES (?, …)` for a model row.
    static func insertSQL(into table: String, columns: [ProjectedColumn]) -> String {
        let names = rowColumnNames(columns)
        return "INSERT INTO \(table.sqlName) (\(names.map(\.sqlName).joined(separator: ", "))) "
            + "VALUES (\(Array(repeating: "?", count: names.count).joined(separator: ", ")))"
    }

    /// A string as an SQL value: text, or its UTF-8 bytes as a blob when it holds a NUL
    /// (SQLite would keep text only up to the NUL, as GRDB binds it; a JSON string may hold
    /// `\u0000`, an identifier any byte).
    static func text(_ string: String) -> DatabaseValue {
        string.utf8.contains(0) ? Data(string.utf8).databaseValue : string.databaseValue
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
        case (_, .string(let string)): return text(string)
        case (_, .array), (_, .object): return String(decoding: json.canonicalData, as: UTF8.self).databaseValue
        }
    }
}

extension String {
    /// The string as an SQL name: in double quotes, each double quote doubled (GRDB's
    /// `quotedDatabaseIdentifier` does not double them, and keys come from stored JSON).
    var sqlName: String {
        "\"" + replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
