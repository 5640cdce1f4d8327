import Foundation
import GRDB
import LLVSCore
import LLVSModel
import LLVSStore

/// Owned tables: tables the app writes with SQL. Triggers note each row inserted or deleted
/// and each property column updated (in `llvs_captured`); a drain saves those edits as one
/// version on the version the tables show, each changed column written over the stored
/// model, and puts the stored rows back in the table. While an update applies versions the
/// flag row in `llvs_applying` holds the triggers back, so incoming versions are never
/// captured as edits.
enum OwnedTables {
    /// How a row of one owned table becomes a save or a removal in a batch.
    struct Saver: Sendable {
        /// Adds a save of the model `object` makes, as `instance` (for an inserted row of an
        /// `Identifiable` model, its `id`); returns the saved value's identifier.
        let save: @Sendable (_ object: JSONObject, _ instance: String, _ inserted: Bool, _ batch: inout ModelBatch) throws -> Value.ID
        /// Adds a removal of `instance`.
        let remove: @Sendable (_ instance: String, _ batch: inout ModelBatch) throws -> Void
    }

    /// The saver of `type`'s owned table.
    static func saver<Model: StorableModel>(for type: Model.Type) -> Saver {
        Saver(
            save: { object, instance, inserted, batch in
                let model = try Model.decodeStored(JSONValue.object(object).canonicalData,
                                                   valueId: modelValueID(typeIdentifier: Model.modelTypeIdentifier, instanceIdentifier: instance))
                let identity = inserted ? identifier(of: model) ?? instance : instance
                try batch.save(model, instanceIdentifier: identity)
                return modelValueID(typeIdentifier: Model.modelTypeIdentifier, instanceIdentifier: identity)
            },
            remove: { instance, batch in try batch.remove(Model.self, instanceIdentifier: instance) })
    }

    /// An identifiable model's instance identifier, as the model layer names it.
    private static func identifier(of model: Any) -> String? {
        func described<T: Identifiable>(_ model: T) -> String? {
            if let uuid = model.id as? UUID { return uuid.uuidString }
            return (model.id as? any CustomStringConvertible)?.description
        }
        guard let identifiable = model as? any Identifiable else { return nil }
        return described(identifiable)
    }

    // MARK: Tables and triggers

    /// Creates the capture table and the flag table if they are missing.
    static func createTables(in db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS llvs_captured (
                seq INTEGER PRIMARY KEY, tableName TEXT NOT NULL, rowNumber INTEGER NOT NULL,
                kind TEXT NOT NULL, columnName TEXT, valueId TEXT);
            CREATE TABLE IF NOT EXISTS llvs_applying (flag INTEGER NOT NULL)
            """)
    }

    /// Holds the capture triggers back (`true`) or lets them run, inside the caller's
    /// transaction.
    static func setApplying(_ applying: Bool, in db: Database) throws {
        try db.execute(sql: applying ? "INSERT INTO llvs_applying (flag) VALUES (1)" : "DELETE FROM llvs_applying")
    }

    /// A new row's instance identifier when the app gives none: a random UUID in the form
    /// `UUID().uuidString` has.
    private static let randomInstance = """
        (upper(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' \
        || substr('89AB', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))))
        """

    /// The projection's own columns of a table: an owned table's may be left out of an
    /// `INSERT` (the instance is then a random UUID; the rest is filled by the drain).
    static func ownColumnDefinitions(owned: Bool) -> [String] {
        guard owned else {
            return ["llvs_id TEXT PRIMARY KEY NOT NULL", "llvs_instance TEXT NOT NULL UNIQUE",
                    "llvs_version TEXT NOT NULL", "llvs_data TEXT NOT NULL"]
        }
        return ["llvs_id TEXT UNIQUE", "llvs_instance TEXT NOT NULL UNIQUE DEFAULT \(randomInstance)",
                "llvs_version TEXT", "llvs_data TEXT"]
    }

    /// The capture triggers of an owned table.
    static func createTriggers(for table: ProjectedTable, in db: Database) throws {
        let name = table.name.sqlName
        let literal = table.name.sqlLiteral
        let idle = "NOT EXISTS (SELECT 1 FROM llvs_applying)"
        let capture = "INSERT INTO llvs_captured (tableName, rowNumber, kind, columnName, valueId)"
        let trigger = { (suffix: String) in "\(table.name)_llvs_\(suffix)".sqlName }
        try db.execute(sql: """
            CREATE TRIGGER \(trigger("guard")) BEFORE UPDATE OF llvs_id, llvs_instance, llvs_version, llvs_data ON \(name)
            WHEN \(idle) AND old.llvs_id IS NOT NULL AND (new.llvs_id IS NOT old.llvs_id OR new.llvs_instance IS NOT old.llvs_instance
                OR new.llvs_version IS NOT old.llvs_version OR new.llvs_data IS NOT old.llvs_data)
            BEGIN SELECT RAISE(ABORT, 'the llvs_ columns of an owned table are the projection''s: write the property columns'); END
            """)
        try db.execute(sql: """
            CREATE TRIGGER \(trigger("insert")) AFTER INSERT ON \(name) WHEN \(idle)
            BEGIN
                UPDATE \(name) SET llvs_id = \((table.name + "/").sqlLiteral) || new.llvs_instance, llvs_version = NULL, llvs_data = NULL
                    WHERE rowid = new.rowid;
                \(capture) VALUES (\(literal), new.rowid, 'insert', NULL, NULL);
            END
            """)
        if !table.columns.isEmpty {
            let captures = table.columns.map { column in
                "\(capture) SELECT \(literal), new.rowid, 'update', \(column.name.sqlLiteral), NULL "
                    + "WHERE new.\(column.name.sqlName) IS NOT old.\(column.name.sqlName);"
            }
            try db.execute(sql: """
                CREATE TRIGGER \(trigger("update")) AFTER UPDATE OF \(table.columns.map(\.name.sqlName).joined(separator: ", ")) ON \(name)
                WHEN \(idle)
                BEGIN
                    \(captures.joined(separator: "\n    "))
                END
                """)
        }
        try db.execute(sql: """
            CREATE TRIGGER \(trigger("delete")) AFTER DELETE ON \(name) WHEN \(idle)
            BEGIN \(capture) VALUES (\(literal), old.rowid, 'delete', NULL, old.llvs_id); END
            """)
    }

    // MARK: Draining

    /// The edits captured in one owned table.
    private struct Edits {
        var inserted = Set<Int64>()
        var updated: [Int64: Set<String>] = [:]
        var deleted: [Value.ID] = []
    }

    /// Saves the captured edits as one version on `shown` (the version the tables show) and
    /// puts the stored rows in place of the edited ones, inside the caller's transaction
    /// (with the capture flag set). A row that makes no model of its type throws
    /// ``ProjectionError/unsavableRow(type:instance:reason:)`` when `strict`; otherwise its
    /// edits are dropped, the stored row is put back, and it is reported.
    ///
    /// - Returns: The version made, or nil when nothing was captured or the edits change
    ///   nothing.
    /// - Throws: ``ProjectionError/unsavableRow(type:instance:reason:)``, ``ModelError``, a
    ///   store error, or a `DatabaseError`.
    static func drain(on shown: Version.ID, store: Store, schema: ProjectionSchema, metadata: Version.Metadata,
                      strict: Bool, db: Database, report: inout ProjectionUpdate) throws -> Version.ID? {
        var edits: [String: Edits] = [:]
        for capture in try Row.fetchAll(db, sql: "SELECT tableName, rowNumber, kind, columnName, valueId FROM llvs_captured ORDER BY seq") {
            let table: String = capture["tableName"]
            let rowNumber: Int64 = capture["rowNumber"]
            switch capture["kind"] as String {
            case "insert": edits[table, default: Edits()].inserted.insert(rowNumber)
            case "update": edits[table, default: Edits()].updated[rowNumber, default: []].insert(capture["columnName"] ?? "")
            default:
                if let valueId: String = capture["valueId"] { edits[table, default: Edits()].deleted.append(Value.ID(valueId)) }
            }
        }
        guard !edits.isEmpty else { return nil }

        var batch = ModelBatch()
        // The values whose rows are written anew from the store once the version is made.
        var refreshed: [Value.ID] = []
        var replaced: [(table: String, rowNumber: Int64)] = []
        for table in schema.tables where table.owned {
            guard let tableEdits = edits[table.name], let saver = schema.savers[table.name], try db.tableExists(table.name) else { continue }
            var kept = Set<Value.ID>()
            let selectRow = try db.cachedStatement(sql: "SELECT * FROM \(table.name.sqlName) WHERE rowid = ?")
            for rowNumber in tableEdits.inserted.union(tableEdits.updated.keys).sorted() {
                guard let row = try Row.fetchOne(selectRow, arguments: [rowNumber]),
                      let instance = text(row["llvs_instance"]) else { continue }
                let valueId = modelValueID(typeIdentifier: table.name, instanceIdentifier: instance)
                replaced.append((table.name, rowNumber))
                let inserted = tableEdits.inserted.contains(rowNumber)
                let stored = inserted ? nil : try store.value(id: valueId, at: shown)
                var object = JSONObject()
                if let stored, case .object(let storedObject)? = try? JSONValue(parsing: stored.data) { object = storedObject }
                let changed = stored == nil ? Set(table.columns.map(\.name)) : tableEdits.updated[rowNumber] ?? []
                for column in table.columns where changed.contains(column.name) && row.hasColumn(column.name) {
                    object[column.name] = json(row[column.name], kind: column.kind)
                }
                do {
                    let savedId = try saver.save(object, instance, inserted, &batch)
                    refreshed.append(savedId)
                    kept.insert(savedId)
                } catch {
                    if strict { throw ProjectionError.unsavableRow(type: table.name, instance: instance, reason: "\(error)") }
                    report.rejectedCount += 1
                    if report.rejected.count < ModelProjection.reportedSkipLimit {
                        report.rejected.append(.init(valueId: valueId, reason: "\(error)"))
                    }
                    refreshed.append(valueId)    // the stored row put back (none when not stored)
                    kept.insert(valueId)
                }
            }
            for valueId in tableEdits.deleted where !kept.contains(valueId) {
                guard try Row.fetchOne(db, sql: "SELECT 1 FROM \(table.name.sqlName) WHERE llvs_id = ?",
                                       arguments: [TableWriter.text(valueId.rawValue)]) == nil,
                      let instance = instanceIdentifier(from: valueId) else { continue }
                try saver.remove(instance, &batch)
                refreshed.append(valueId)
            }
        }

        let version = batch.isEmpty ? nil : try store.save(batch, basedOn: shown, metadata: metadata).id
        // The app's rows give way to the stored ones.
        var deletions: [String: Statement] = [:]
        for (table, rowNumber) in replaced {
            if deletions[table] == nil { deletions[table] = try db.cachedStatement(sql: "DELETE FROM \(table.sqlName) WHERE rowid = ?") }
            try deletions[table]?.execute(arguments: [rowNumber])
        }
        // The version's diff gives the saved rows in one pass; rows it does not name (a save
        // that changed nothing, a rejected row) are read one by one.
        var changes = try version.map { try store.valueChanges(madeBetween: shown, and: $0) } ?? []
        var covered = Set<Value.ID>()
        for change in changes {
            switch change {
            case .insert(let value), .update(let value): covered.insert(value.id)
            case .remove(let valueId): covered.insert(valueId)
            case .preserve, .preserveRemoval: continue
            }
        }
        for valueId in refreshed where !covered.contains(valueId) {
            covered.insert(valueId)
            if let value = try store.value(id: valueId, at: version ?? shown) {
                changes.append(.update(value))
            } else {
                changes.append(.remove(valueId))
            }
        }
        try TableWriter(schema: schema, database: db).apply(changes, report: &report)
        try db.execute(sql: "DELETE FROM llvs_captured")
        report.drained = version
        return version
    }

    /// A column's text (a blob of UTF-8 bytes, as strings holding a NUL are bound).
    private static func text(_ value: DatabaseValue) -> String? {
        switch value.storage {
        case .string(let string): return string
        case .blob(let data): return String(decoding: data, as: UTF8.self)
        default: return nil
        }
    }

    /// The JSON of a column's SQL value, the inverse of ``TableWriter/databaseValue(_:kind:)``:
    /// nil (the property left out) for NULL.
    static func json(_ value: DatabaseValue, kind: ProjectedColumn.Kind) -> JSONValue? {
        switch value.storage {
        case .null:
            return nil
        case .int64(let integer):
            switch kind {
            case .boolean where integer == 0 || integer == 1: return .bool(integer == 1)
            case .date: return .number(.double(Double(integer) - TableWriter.unixEpochOffset))
            default: return .number(.integer(integer))
            }
        case .double(let double):
            return .number(.double(kind == .date ? double - TableWriter.unixEpochOffset : double))
        case .string, .blob:
            let string = text(value) ?? ""
            if kind == .json || kind == .value, let first = string.first, first == "[" || first == "{",
               let parsed = try? JSONValue(parsing: Data(string.utf8)) {
                return parsed
            }
            return .string(string)
        }
    }
}

extension String {
    /// The string as an SQL string literal, each single quote doubled.
    var sqlLiteral: String {
        "'" + replacingOccurrences(of: "'", with: "''") + "'"
    }
}
