import Foundation
import GRDB
import LLVSCoordinator
import LLVSCore
import LLVSModel
import LLVSStore

/// SQLite tables of a store's models at one version, kept current from version diffs.
///
/// ```swift
/// var schema = ProjectionSchema(version: 1)
/// try schema.add(Note.self, indexes: [["category"]], fullText: ["title", "body"])
/// let projection = try ModelProjection(path: url.path, store: store, schema: schema)
/// try projection.update(to: head)                     // or: try await projection.follow(coordinator)
/// let work = try projection.fetch(Note.self, sql: #"SELECT * FROM "Note" WHERE category = ?"#, arguments: ["work"])
/// ```
///
/// Each model type of the schema has a table named by its type identifier: `llvs_id` (the
/// value identifier, primary key), `llvs_instance` (the instance identifier, unique: a
/// ``ProjectedColumn/Kind/reference(targetType:)`` column joins it), `llvs_version` (the
/// version that last changed the value), `llvs_data` (the stored JSON), and a column per
/// property. The table `llvs_projection` records the version the tables show and the
/// schema they were built with.
///
/// **Consistency.** An update applies the diff between the version shown and the new one,
/// and records the new version, in one transaction: readers (any number, concurrently, on
/// their own connections) see one version or the next, never a mix, and a process killed
/// mid-update leaves the tables at the version they showed. A changed schema, tables that
/// are missing, a shown version the store does not hold, or a damaged file (not a database,
/// failing `PRAGMA quick_check`) make a rebuild from the store, which is always the truth.
public final class ModelProjection: Sendable {
    /// The database file's path.
    public let path: String
    /// The projected store.
    public let store: Store
    /// The types projected.
    public let schema: ProjectionSchema
    /// The database (WAL mode: reads run beside the update).
    public let database: DatabasePool
    /// Serializes updates; the last update's report.
    private let updating = Locked<ProjectionUpdate?>(nil)
    /// A fault-injection point for crash tests: called inside the update's transaction,
    /// after its changes and before its commit.
    private let beforeCommit: (@Sendable () -> Void)?

    /// At most this many skipped values are listed in a ``ProjectionUpdate``.
    public static let reportedSkipLimit = 100

    /// Opens (or creates) the projection at `path` for `store`. A file that is not a
    /// database or fails SQLite's `quick_check` is deleted and made anew (the next update
    /// rebuilds it from the store).
    ///
    /// - Throws: A `DatabaseError` when the file cannot be opened or made.
    public convenience init(path: String, store: Store, schema: ProjectionSchema) throws {
        try self.init(path: path, store: store, schema: schema, beforeCommit: nil)
    }

    /// ``init(path:store:schema:)`` with a function called in every update's transaction
    /// before it commits (crash tests kill the process there).
    ///
    /// - Throws: See ``init(path:store:schema:)``.
    @_spi(Testing)
    public init(path: String, store: Store, schema: ProjectionSchema, beforeCommit: (@Sendable () -> Void)?) throws {
        self.path = path
        self.store = store
        self.schema = schema
        self.beforeCommit = beforeCommit
        self.database = try Self.openChecked(path: path)
        // The state table exists from the start, so observations track it before the first update.
        try database.write { try State.createTable(in: $0) }
    }

    /// The database at `path`, made anew if the file is damaged.
    private static func openChecked(path: String) throws -> DatabasePool {
        do {
            let pool = try DatabasePool(path: path)
            let check = try pool.read { try String.fetchOne($0, sql: "PRAGMA quick_check") }
            if check == "ok" { return pool }
        } catch let error as DatabaseError where [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode.primaryResultCode) {
            // Damaged: made anew below.
        }
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
        return try DatabasePool(path: path)
    }

    /// The version the tables show, or nil before the first update.
    ///
    /// - Throws: A `DatabaseError`.
    public func projectedVersion() throws -> Version.ID? {
        try database.read { try State.read($0)?.version }
    }

    /// The last update's report, or nil before the first.
    public var lastUpdate: ProjectionUpdate? { updating.withLock { $0 } }

    /// Makes the tables show `version`: applies the diff from the version they show (or
    /// rebuilds them when the schema changed, the file was new or damaged, or the shown
    /// version is unknown), in one transaction with the state row.
    ///
    /// - Throws: ``ProjectionError/unknownVersion(_:)``, a store error reading the values,
    ///   or a `DatabaseError`; the tables then still show the version they showed.
    /// - Complexity: O(changed values × log n) for a diff; O(n) for a rebuild.
    @discardableResult
    public func update(to version: Version.ID) throws -> ProjectionUpdate {
        try updating.withLock { last in
            guard store.historyIncludesVersions(identifiedBy: [version]) else { throw ProjectionError.unknownVersion(version) }
            let state = try database.read { db in try State.read(db).map { ($0, try State.tablesExist($0.tables, in: db)) } }
            var report = ProjectionUpdate(version: version)
            if let (state, tablesExist) = state, tablesExist, state.schema == schema.fingerprint,
               let shown = state.version, store.historyIncludesVersions(identifiedBy: [shown]) {
                report.previousVersion = shown
                if shown != version {
                    let changes = try store.valueChanges(madeBetween: shown, and: version)
                    try database.write { db in
                        try TableWriter(schema: schema, database: db).apply(changes, report: &report)
                        try State.write(version: version, schema: schema, in: db)
                        beforeCommit?()
                    }
                }
            } else {
                report.rebuilt = true
                let references = try store.valueReferences(at: version)
                try database.write { db in
                    try State.dropTables(previous: try State.read(db)?.tables ?? [], current: schema.tables, in: db)
                    try State.createTables(schema.tables, in: db)
                    let writer = TableWriter(schema: schema, database: db)
                    let projected = references.filter { writer.tableName(for: $0.valueId) != nil }
                    for start in stride(from: 0, to: projected.count, by: 8_192) {
                        try writer.insert(Array(projected[start..<min(start + 8_192, projected.count)]), readingFrom: store, report: &report)
                    }
                    try State.write(version: version, schema: schema, in: db)
                    beforeCommit?()
                }
            }
            last = report
            return report
        }
    }

    /// Keeps the tables at `coordinator`'s current version: updates to it now and after
    /// every move (saves, merges, pulls, reverts, checkouts), until the coordinator closes
    /// or the calling task is cancelled.
    ///
    /// - Throws: What ``update(to:)`` throws.
    public func follow(_ coordinator: StoreCoordinator) async throws {
        for await version in coordinator.currentVersions {
            try Task.checkCancellation()
            try update(to: version)
        }
    }

    /// The models of `type` that `sql` selects (its rows must hold `llvs_id`,
    /// `llvs_version` and `llvs_data`, as `SELECT * FROM "Type"` does), in its order.
    ///
    /// - Throws: ``ProjectionError/missingColumn(_:)``, a `DatabaseError` (bad SQL), or the
    ///   model's decoding error.
    public func fetch<Model: StorableModel>(_ type: Model.Type, sql: String, arguments: StatementArguments = StatementArguments()) throws -> [ProjectedModel<Model>] {
        try database.read { db in try ProjectedModel<Model>.decode(try Row.fetchAll(db, sql: sql, arguments: arguments)) }
    }

    /// The models of `type` that `request` selects: GRDB's query interface on the type's
    /// table (``table(_:)``).
    ///
    /// - Throws: See ``fetch(_:sql:arguments:)``.
    public func fetch<Model: StorableModel>(_ type: Model.Type, _ request: QueryInterfaceRequest<Row>) throws -> [ProjectedModel<Model>] {
        try database.read { db in try ProjectedModel<Model>.decode(try request.fetchAll(db)) }
    }

    /// The table of `type`, for GRDB's query interface:
    /// `projection.table(Note.self).filter(Column("category") == "work").order(Column("updated").desc)`.
    public func table<Model: StorableModel>(_ type: Model.Type) -> Table<Row> {
        Table(Model.modelTypeIdentifier)
    }

    /// The results of `sql` for `type`, anew whenever the projected version moves (and
    /// first at once): each a whole result of one version.
    public func observe<Model: StorableModel & Sendable>(_ type: Model.Type, sql: String,
                                                         arguments: StatementArguments = StatementArguments()) -> AsyncValueObservation<ProjectedResults<Model>> {
        ValueObservation.tracking { db -> ProjectedResults<Model> in
            guard let version = try State.read(db)?.version else { return ProjectedResults(version: nil, models: []) }
            return ProjectedResults(version: version, models: try ProjectedModel<Model>.decode(try Row.fetchAll(db, sql: sql, arguments: arguments)))
        }
        .values(in: database)
    }
}

/// A model read from a projection, with its identity and the version that last changed it.
public struct ProjectedModel<Model: StorableModel>: Identifiable {
    /// The instance identifier.
    public let id: String
    /// The value identifier (`Type/instance`).
    public let valueId: Value.ID
    /// The version that last changed the value.
    public let version: Version.ID
    /// The model.
    public let model: Model

    static func decode(_ rows: [Row]) throws -> [ProjectedModel<Model>] {
        try rows.map { row in
            guard let id: String = row["llvs_id"] else { throw ProjectionError.missingColumn("llvs_id") }
            guard let version: String = row["llvs_version"] else { throw ProjectionError.missingColumn("llvs_version") }
            guard let data: String = row["llvs_data"] else { throw ProjectionError.missingColumn("llvs_data") }
            let valueId = Value.ID(id)
            return ProjectedModel(id: instanceIdentifier(from: valueId) ?? id, valueId: valueId, version: Version.ID(version),
                                  model: try Model.decodeStored(Data(data.utf8), valueId: valueId))
        }
    }
}

extension ProjectedModel: Sendable where Model: Sendable {}
extension ProjectedModel: Equatable where Model: Equatable {}

/// One result of an observed query: the version the tables showed, and the models.
public struct ProjectedResults<Model: StorableModel & Sendable>: Sendable {
    /// The version the tables showed (nil before the first update).
    public let version: Version.ID?
    /// The models the query selected.
    public let models: [ProjectedModel<Model>]
}

/// What one update did.
public struct ProjectionUpdate: Sendable, Equatable {
    /// A value the update skipped, and why.
    public struct Skipped: Sendable, Equatable {
        /// The value.
        public let valueId: Value.ID
        /// Why (the model layer's error).
        public let reason: String
    }

    /// The version the tables show now.
    public let version: Version.ID
    /// The version they showed before, when the update applied a diff.
    public internal(set) var previousVersion: Version.ID?
    /// True when the tables were built anew from the store.
    public internal(set) var rebuilt = false
    /// Rows written or deleted.
    public internal(set) var rowsChanged = 0
    /// The first ``ModelProjection/reportedSkipLimit`` values skipped (undecodable for
    /// their type, or written by a newer model version): they have no row.
    public internal(set) var skipped: [Skipped] = []
    /// How many values were skipped in all.
    public internal(set) var skippedCount = 0

    init(version: Version.ID) {
        self.version = version
    }
}
