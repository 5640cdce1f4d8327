import Foundation
import LLVSCore
import LLVSModel

/// One column of a model table: a top-level property of the model, under its coding key.
public struct ProjectedColumn: Sendable, Hashable, Codable {
    /// What a column holds (the model layer's `ModelPropertyKind`): an integer or a `Bool`
    /// (0 or 1) `INTEGER`; a floating-point number `REAL`; a string, `Data` (base64) or `URL`
    /// `TEXT`; a `Date` `REAL` seconds since 1970, ready for SQLite's `'unixepoch'`; a
    /// `ModelReference` the target's instance identifier `TEXT`, which joins the target
    /// table's `llvs_instance`; a nested value its canonical JSON `TEXT` (a scalar as
    /// itself); a property the probe could not describe whatever the JSON holds, untyped.
    public typealias Kind = ModelPropertyKind

    /// The property's coding key, the column's name.
    public let name: String
    /// What the column holds.
    public let kind: Kind

    /// A column `name` of `kind`.
    public init(name: String, kind: Kind) {
        self.name = name
        self.kind = kind
    }
}

/// One model type's table: its columns, indexes and full-text columns.
public struct ProjectedTable: Sendable, Codable, Equatable {
    /// The model type identifier, also the table's name.
    public let name: String
    /// The property columns, after the projection's own (`llvs_id`, `llvs_instance`,
    /// `llvs_version`, `llvs_data`).
    public let columns: [ProjectedColumn]
    /// Each index's columns (`<name>_by_<columns>`).
    public let indexes: [[String]]
    /// The columns of the table's FTS5 table `<name>_fts` (none: no such table).
    public let fullText: [String]
    /// True for an owned table: the app writes its rows with SQL, and
    /// ``ModelProjection/drain(metadata:)`` turns the columns it changed into a version.
    public let owned: Bool

    /// The FTS5 table's name.
    public var fullTextTableName: String { name + "_fts" }
}

/// The model types a ``ModelProjection`` projects, and its schema version: raise the version
/// to rebuild the tables (a change of the types' columns, indexes or full-text columns also
/// rebuilds them).
///
/// ```swift
/// var schema = ProjectionSchema(version: 1)
/// try schema.add(Note.self, indexes: [["category"], ["updated"]], fullText: ["title", "body"])
/// try schema.add(Person.self)
/// ```
public struct ProjectionSchema: Sendable {
    /// The app's version of the projection.
    public let version: Int
    /// The tables, in the order added.
    public private(set) var tables: [ProjectedTable] = []
    /// Per type identifier, how a stored value is checked for decoding.
    var decoders: [String: @Sendable (Data, Value.ID) throws -> Void] = [:]
    /// Per owned table, how a row's JSON object becomes a save in a batch.
    var savers: [String: OwnedTables.Saver] = [:]

    /// An empty schema of version `version`.
    public init(version: Int) {
        self.version = version
    }

    /// Adds `type`'s table: a column per top-level property (learned by decoding the type
    /// from empty values), an index per entry of `indexes`, and an FTS5 table over
    /// `fullText`. Values of the type that do not decode as `type` are skipped and
    /// reported.
    ///
    /// With `owned`, the app may also write the table with SQL (`INSERT`, `UPDATE`,
    /// `DELETE` on the property columns and `llvs_instance`): triggers note each changed
    /// column, and ``ModelProjection/drain(metadata:)`` saves them as one version, each
    /// changed column written over the stored model (its other properties, and members the
    /// type does not know, kept), so replicas editing different columns merge per property.
    ///
    /// - Throws: ``ProjectionError/cannotDescribe(type:reason:)``,
    ///   ``ProjectionError/duplicateTable(_:)``, ``ProjectionError/reservedName(_:)``,
    ///   ``ProjectionError/unknownColumn(type:column:)``.
    public mutating func add<Model: StorableModel>(_ type: Model.Type, indexes: [[String]] = [], fullText: [String] = [],
                                                   owned: Bool = false) throws(ProjectionError) {
        let name = Model.modelTypeIdentifier
        let columns: [ProjectedColumn]
        do {
            columns = try ModelSchema.of(type).properties.map { ProjectedColumn(name: $0.name, kind: $0.kind) }
        } catch {
            throw .cannotDescribe(type: name, reason: error.description)
        }
        let table = ProjectedTable(name: name, columns: columns, indexes: indexes, fullText: fullText, owned: owned)
        try check(table)
        tables.append(table)
        decoders[name] = { data, valueId in _ = try Model.decodeStored(data, valueId: valueId) }
        if owned { savers[name] = OwnedTables.saver(for: type) }
    }

    private func check(_ table: ProjectedTable) throws(ProjectionError) {
        for reserved in [table.name, table.fullTextTableName] where reserved.lowercased().hasPrefix("llvs_") || reserved.lowercased().hasPrefix("sqlite_") {
            throw .reservedName(reserved)
        }
        let taken = Set(tables.flatMap { [$0.name.lowercased(), $0.fullTextTableName.lowercased()] })
        for name in [table.name, table.fullTextTableName] where taken.contains(name.lowercased()) {
            throw .duplicateTable(name)
        }
        for column in table.columns where column.name.lowercased().hasPrefix("llvs_") || column.name.lowercased() == "rowid" {
            throw .reservedName(column.name)
        }
        let names = Set(table.columns.map(\.name))
        for column in table.indexes.flatMap({ $0 }) + table.fullText where !names.contains(column) {
            throw .unknownColumn(type: table.name, column: column)
        }
        if table.indexes.contains(where: \.isEmpty) { throw .unknownColumn(type: table.name, column: "") }
    }

    /// The schema's identity as the state row records it: a change rebuilds.
    var fingerprint: String {
        struct Form: Encodable { let version: Int; let tables: [ProjectedTable] }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(Form(version: version, tables: tables))).map { String(decoding: $0, as: UTF8.self) } ?? "\(version)"
    }
}

extension ModelPropertyKind {
    /// The column's declared SQL type.
    var sqlType: String {
        switch self {
        case .integer, .boolean: return "INTEGER"
        case .real, .date: return "REAL"
        case .text, .reference, .json: return "TEXT"
        case .value: return ""
        }
    }
}
