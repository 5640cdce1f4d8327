import Foundation
import GRDB
import LLVSCoordinator
import LLVSCore
import LLVSModel
import LLVSStore
import LLVSSupport

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
/// `ProjectedColumn.Kind.reference(targetType:)` column joins it), `llvs_version` (the
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
///
/// **Owned tables** (``ProjectionSchema/add(_:indexes:fullText:owned:)``) are also written
/// by the app with SQL; ``drain(metadata:)`` saves the columns it changed as one version.
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
    /// Edits the app made to owned tables since the last update are drained first, in the
    /// same transaction, as one version on the version shown (``ProjectionUpdate/drained``;
    /// rows that make no model are put back as stored and reported in
    /// ``ProjectionUpdate/rejected``). When `version` is the version shown, the tables then
    /// show the drained version; otherwise they show `version`, and the drained version
    /// reaches them once it is merged (``follow(_:)`` merges it into the coordinator's
    /// current version).
    ///
    /// - Throws: ``ProjectionError/unknownVersion(_:)``, a store error reading the values,
    ///   or a `DatabaseError`; the tables then still show the version they showed.
    /// - Complexity: O(changed values × log n) for a diff; O(n) for a rebuild.
    @discardableResult
    public func update(to version: Version.ID) throws -> ProjectionUpdate {
        try updating.withLock { last in
            guard store.historyIncludesVersions(identifiedBy: [version]) else { throw ProjectionError.unknownVersion(version) }
            let (shown, state, captured) = try database.read { db in
                (try shownVersion(in: db), try State.read(db), try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM llvs_captured)") ?? false)
            }
            var report = ProjectionUpdate(version: version)
            if let shown {
                report.previousVersion = shown
                if shown != version || captured {
                    try database.write { db in
                        try OwnedTables.setApplying(true, in: db)
                        let drained = try OwnedTables.drain(on: shown, store: store, schema: schema, metadata: [:], strict: false,
                                                            db: db, report: &report)
                        let target = shown == version ? drained ?? version : version
                        let from = drained ?? shown
                        if from != target {
                            try TableWriter(schema: schema, database: db).apply(try store.valueChanges(madeBetween: from, and: target),
                                                                                report: &report)
                        }
                        report.version = target
                        try State.write(version: target, schema: schema, in: db)
                        try OwnedTables.setApplying(false, in: db)
                        beforeCommit?()
                    }
                }
            } else {
                report.rebuilt = true
                let references = try store.valueReferences(at: version)
                try database.write { db in
                    try OwnedTables.setApplying(true, in: db)
                    // Edits to owned tables of a shown version the store holds are saved before the tables go.
                    if let state, let previous = state.version, store.historyIncludesVersions(identifiedBy: [previous]) {
                        _ = try OwnedTables.drain(on: previous, store: store, schema: schema, metadata: [:], strict: false,
                                                  db: db, report: &report)
                    }
                    try db.execute(sql: "DELETE FROM llvs_captured")
                    try State.dropTables(previous: state?.tables ?? [], current: schema.tables, in: db)
                    try State.createTables(schema.tables, in: db)
                    let writer = TableWriter(schema: schema, database: db)
                    let projected = references.filter { writer.tableName(for: $0.valueId) != nil }
                    for start in stride(from: 0, to: projected.count, by: 8_192) {
                        try writer.insert(Array(projected[start..<min(start + 8_192, projected.count)]), readingFrom: store, report: &report)
                    }
                    try State.write(version: version, schema: schema, in: db)
                    try OwnedTables.setApplying(false, in: db)
                    beforeCommit?()
                }
            }
            last = report
            return report
        }
    }

    /// Saves the edits the app made to owned tables (rows inserted and deleted, property
    /// columns updated) as one version on the version the tables show, each changed column
    /// written over the stored model, and moves the tables to it: one transaction, so the
    /// edits are either all in the version or all still captured.
    ///
    /// An inserted row gives its instance in `llvs_instance` (a random UUID when left out;
    /// an `Identifiable` model's `id` wins) and every property that is not optional. The
    /// drained rows then hold the stored model again, with its `llvs_id`, `llvs_version`
    /// and `llvs_data`.
    ///
    /// - Parameter metadata: The version's metadata.
    /// - Returns: The version made, or nil when there was nothing to drain.
    /// - Throws: ``ProjectionError/notUpdated`` before the first update (or after a schema
    ///   change), ``ProjectionError/unsavableRow(type:instance:reason:)`` when a row makes
    ///   no model of its type (nothing is saved; the edits stay captured), `ModelError`,
    ///   a store error, or a `DatabaseError`.
    @discardableResult
    public func drain(metadata: Version.Metadata = [:]) throws -> Version.ID? {
        try updating.withLock { last in
            guard let shown = try database.read({ try shownVersion(in: $0) }) else { throw ProjectionError.notUpdated }
            var report = ProjectionUpdate(version: shown)
            report.previousVersion = shown
            let drained = try database.write { db in
                try OwnedTables.setApplying(true, in: db)
                let drained = try OwnedTables.drain(on: shown, store: store, schema: schema, metadata: metadata, strict: true,
                                                    db: db, report: &report)
                if let drained {
                    report.version = drained
                    try State.write(version: drained, schema: schema, in: db)
                }
                try OwnedTables.setApplying(false, in: db)
                beforeCommit?()
                return drained
            }
            if drained != nil { last = report }
            return drained
        }
    }

    /// ``drain(metadata:)``, then merges the drained version into `coordinator`'s current
    /// version (a fast-forward when the tables showed it) and updates the tables to the
    /// result.
    ///
    /// - Parameters:
    ///   - coordinator: The coordinator whose current version the drained version is merged into.
    ///   - metadata: The drained version's metadata; the coordinator's
    ///     `StoreCoordinator.defaultMetadataForNewVersions` when nil.
    /// - Returns: The version the drain made, or nil when there was nothing to drain.
    /// - Throws: What ``drain(metadata:)`` and ``update(to:)`` throw, or the merge's error.
    @discardableResult
    public func drain(into coordinator: StoreCoordinator, metadata: Version.Metadata? = nil) throws -> Version.ID? {
        guard let drained = try drain(metadata: metadata ?? coordinator.defaultMetadataForNewVersions) else { return nil }
        try coordinator.performMerge()
        try update(to: coordinator.currentVersion)
        return drained
    }

    /// The version the tables show, when they are whole tables of this schema at a version
    /// the store holds (else nil: the next update rebuilds).
    private func shownVersion(in db: Database) throws -> Version.ID? {
        guard let state = try State.read(db), state.schema == schema.fingerprint, try State.tablesExist(state.tables, in: db),
              let shown = state.version, store.historyIncludesVersions(identifiedBy: [shown]) else { return nil }
        return shown
    }

    /// Keeps the tables at `coordinator`'s current version: updates to it now and after
    /// every move (saves, merges, pulls, reverts, checkouts), until the coordinator closes
    /// or the calling task is cancelled. Edits to owned tables an update drains are merged
    /// into the coordinator's current version, and the tables follow.
    ///
    /// - Throws: What ``update(to:)`` throws, or the merge's error.
    public func follow(_ coordinator: StoreCoordinator) async throws {
        for await version in coordinator.currentVersions {
            try Task.checkCancellation()
            if try update(to: version).drained != nil { try coordinator.performMerge() }
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
    public internal(set) var version: Version.ID
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
    /// The version the update made of the edits to owned tables it drained first.
    public internal(set) var drained: Version.ID?
    /// The first ``ModelProjection/reportedSkipLimit`` rows of owned tables whose edits
    /// were dropped because they make no model of their type (the stored row is back).
    public internal(set) var rejected: [Skipped] = []
    /// How many rows' edits were dropped in all.
    public internal(set) var rejectedCount = 0

    init(version: Version.ID) {
        self.version = version
    }
}
