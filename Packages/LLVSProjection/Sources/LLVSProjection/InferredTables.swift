import Foundation
import GRDB
import LLVSCore
import LLVSModel
import LLVSStore

/// Tables made from the store alone, with no app code: what `llvs query` runs SQL against.
///
/// Each model type found at the version (values `Type/instance` holding a JSON object) gets
/// a table named by its type identifier, with the columns `llvs_id`, `llvs_instance`,
/// `llvs_version`, `llvs_data` (as a ``ModelProjection`` table has) and one per property:
///
/// - **A type whose schema the model layer recorded** (`ModelSchema`, the value
///   `$schema/Type`) gets its columns from it, as ``ModelProjection`` makes them: a `Date`
///   as `REAL` seconds since 1970 (`datetime(updated, 'unixepoch')`), a `ModelReference` as
///   the target's instance identifier (joining its table's `llvs_instance`), nested values
///   as canonical JSON; members its values hold beyond the schema (a newer app's) follow,
///   inferred as below.
/// - **Other types** get one column per top-level member any of their values holds, typed by
///   what the values hold there: integers and booleans `INTEGER`, other numbers `REAL`,
///   strings `TEXT`, arrays and objects their canonical JSON `TEXT`, a mix untyped. Dates
///   then stay what the model layer stores: seconds since 2001
///   (`datetime(updated + 978307200, 'unixepoch')`).
///
/// Of members whose keys differ only in ASCII case, which SQLite would take for one column,
/// the first is the column; keys holding a NUL are left out. The recorded schemas are rows
/// of `llvs_schemas` (`type`, `model_version`, `schema`: the recorded JSON). Every other value
/// (plain values, values of a type that are not JSON objects, types whose names hold a NUL
/// or equal an earlier type's but for case, which SQLite cannot name apart, and types named
/// like the projection's own tables) is a row of `llvs_values`: `llvs_id`, `llvs_version`
/// and `llvs_data` (text when the bytes are UTF-8, a blob otherwise). A string holding a NUL
/// (an identifier, a JSON string with `\u0000`) is written as a blob of its UTF-8 bytes,
/// since SQLite text would end at it.
public enum InferredTables {
    /// One inferred table.
    public struct Table: Sendable, Equatable {
        /// The type identifier, the table's name.
        public let name: String
        /// The member columns, in the order first seen (values read in identifier order).
        public let columns: [ProjectedColumn]
        /// How many rows.
        public let rows: Int
    }

    /// The table of values that are not models.
    public static let valuesTable = "llvs_values"

    /// Writes the tables of the values of `store` at `version` into `db` (an empty
    /// database), and returns the model tables.
    ///
    /// - Throws: ``ProjectionError/unknownVersion(_:)``, the store's errors, or a
    ///   `DatabaseError`.
    /// - Complexity: O(n) in the values at `version`.
    public static func write(_ store: Store, at version: Version.ID, into db: Database) throws -> [Table] {
        guard store.historyIncludesVersions(identifiedBy: [version]) else { throw ProjectionError.unknownVersion(version) }
        let references = try store.valueReferences(at: version).sorted { $0.valueId < $1.valueId }
        var models: [String: [(value: Value, object: JSONObject)]] = [:]
        var order: [String] = []
        var tableNames: [String: String] = [:]   // by lowercased name: SQLite's names ignore case
        try db.execute(sql: "CREATE TABLE llvs_values (llvs_id TEXT PRIMARY KEY NOT NULL, llvs_version TEXT NOT NULL, llvs_data)")
        try db.execute(sql: "CREATE TABLE llvs_schemas (type TEXT PRIMARY KEY NOT NULL, model_version INTEGER NOT NULL, schema TEXT NOT NULL)")
        let plain = try db.makeStatement(sql: "INSERT INTO llvs_values (llvs_id, llvs_version, llvs_data) VALUES (?, ?, ?)")
        var schemas: [String: ModelSchema] = [:]
        for start in stride(from: 0, to: references.count, by: 4_096) {
            for value in try store.values(storedAt: Array(references[start..<min(start + 4_096, references.count)])) {
                if let schema = ModelSchema(recordedValue: value), !schema.typeIdentifier.utf8.contains(0) {
                    schemas[schema.typeIdentifier] = schema
                    try db.execute(sql: "INSERT INTO llvs_schemas (type, model_version, schema) VALUES (?, ?, ?)",
                                   arguments: [TableWriter.text(schema.typeIdentifier), schema.modelVersion,
                                               String(decoding: value.data, as: UTF8.self)])
                } else if !ModelSchema.isSchemaValue(value.id), let type = modelTypeIdentifier(from: value.id), !isReserved(type), !type.utf8.contains(0),
                   tableNames[type.lowercased()].map({ $0 == type }) ?? true,
                   case .object(let object)? = try? JSONValue(parsing: value.data) {
                    tableNames[type.lowercased()] = type
                    if models[type] == nil { order.append(type) }
                    models[type, default: []].append((value, object))
                } else {
                    let data: DatabaseValue = String(validating: value.data, as: UTF8.self).map(\.databaseValue) ?? value.data.databaseValue
                    try plain.execute(arguments: [TableWriter.text(value.id.rawValue), TableWriter.text(value.storedVersionId?.rawValue ?? ""), data])
                }
            }
        }
        var tables: [Table] = []
        for type in order {
            let rows = models[type] ?? []
            let columns = inferColumns(rows.map(\.object), recorded: schemas[type])
            let table = ProjectedTable(name: type, columns: columns, indexes: [], fullText: [], owned: false)
            try State.createTables([table], in: db)
            let insert = try db.makeStatement(sql: TableWriter.insertSQL(into: type, columns: columns))
            for (value, object) in rows {
                try insert.execute(arguments: TableWriter.rowArguments(value, object, columns: columns))
            }
            tables.append(Table(name: type, columns: columns, rows: rows.count))
        }
        return tables
    }

    /// Type identifiers that would collide with the projection's own tables, or SQLite's.
    static func isReserved(_ type: String) -> Bool {
        let lowered = type.lowercased()
        return lowered.hasPrefix("llvs_") || lowered.hasPrefix("sqlite_")
    }

    /// The columns of a type: its recorded schema's properties, then the members of the
    /// objects the schema does not name, each typed by what the objects hold there.
    static func inferColumns(_ objects: [JSONObject], recorded schema: ModelSchema? = nil) -> [ProjectedColumn] {
        var order: [String] = schema?.properties.map(\.name) ?? []
        var kinds: [String: ProjectedColumn.Kind] = [:]
        for property in schema?.properties ?? [] where kinds[property.name] == nil { kinds[property.name] = property.kind }
        let recorded = Set(order)
        for object in objects {
            for (key, value) in object where key != "$version" && !recorded.contains(key) {
                let kind: ProjectedColumn.Kind? = switch value {
                case .null: nil
                case .bool, .number(.integer), .number(.largeInteger): .integer
                case .number(.double): .real
                case .string: .text
                case .array, .object: .json
                }
                if kinds[key] == nil, !order.contains(key) { order.append(key) }
                guard let kind else { continue }
                switch (kinds[key], kind) {
                case (nil, _): kinds[key] = kind
                case (.integer?, .real), (.real?, .integer): kinds[key] = .real
                case let (existing?, new) where existing != new: kinds[key] = .value
                default: break
                }
            }
        }
        // SQLite's names ignore ASCII case: of keys equal but for case, the first seen is the column.
        var taken: Set<String> = []
        return order.filter { key in
            let lowered = key.lowercased()
            return !key.isEmpty && !key.utf8.contains(0) && !lowered.hasPrefix("llvs_") && lowered != "rowid" && taken.insert(lowered).inserted
        }
        .map { ProjectedColumn(name: $0, kind: kinds[$0] ?? .value) }
    }
}
