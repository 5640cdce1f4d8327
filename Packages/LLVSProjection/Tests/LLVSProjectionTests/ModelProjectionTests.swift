import Foundation
import GRDB
import LLVSCoordinator
import LLVSCore
import LLVSModel
import LLVSProjection
import LLVSStore
import LLVSStoreTesting
import LLVSTesting
import Testing

@Suite struct ModelProjectionTests {
    let directory: TemporaryDirectory
    let store: Store
    let path: String

    init() throws {
        directory = try TemporaryDirectory(prefix: "llvs-projection")
        store = try Store(rootDirectoryURL: directory.url.appendingPathComponent("store"))
        path = directory.url.appendingPathComponent("projection.sqlite").path
    }

    func note(_ title: String, category: String = "work", stars: Int = 0) -> Note {
        var note = Note()
        note.title = title
        note.body = "\(title) body"
        note.category = category
        note.stars = stars
        note.updated = Date(timeIntervalSinceReferenceDate: 1_000)
        return note
    }

    @Test func columnsComeFromTheModelsProperties() throws {
        let schema = try testSchema()
        let kinds = Dictionary(uniqueKeysWithValues: try #require(schema.tables.first).columns.map { ($0.name, $0.kind) })
        #expect(kinds["title"] == .text)
        #expect(kinds["stars"] == .integer)
        #expect(kinds["updated"] == .date)
        #expect(kinds["tags"] == .json)
        #expect(kinds["author"] == .reference(targetType: "Person"))
        #expect(kinds["place"] == .json)
        #expect(kinds["pinned"] == .boolean)
        // An enum with no empty raw value stops the probe: its column takes what the JSON holds.
        #expect(kinds["status"] == .json)
        #expect(schema.tables.first?.columns.count == 10)
    }

    @Test func rowsHoldScalarsJSONUnixDatesAndJoinableReferences() throws {
        var batch = ModelBatch()
        var first = note("alpha")
        first.tags = ["b", "a"]
        first.author = ModelReference("ada")
        first.place = Place(city: "Paris", floor: 3)
        first.pinned = true
        first.status = .published
        try batch.save(first, instanceIdentifier: "n1")
        try batch.save(Person(name: "Ada"), instanceIdentifier: "ada")
        let version = try store.save(batch, basedOn: nil)
        let projection = try ModelProjection(path: path, store: store, schema: try testSchema())
        let report = try projection.update(to: version.id)
        #expect(report.rebuilt && report.rowsChanged == 2 && report.skippedCount == 0)
        try projection.database.read { db in
            let row = try #require(try Row.fetchOne(db, sql: """
                SELECT n.*, p.name AS authorName, datetime(n.updated, 'unixepoch') AS day, json_extract(n.place, '$.city') AS city
                FROM Note n JOIN Person p ON p.llvs_instance = n.author
                """))
            #expect(row["llvs_id"] as String? == "Note/n1")
            #expect(row["llvs_instance"] as String? == "n1")
            #expect(row["llvs_version"] as String? == version.id.rawValue)
            #expect(row["title"] as String? == "alpha")
            #expect(row["stars"] as Int? == 0)
            #expect(row["pinned"] as Int? == 1)
            #expect(row["status"] as String? == "published")
            #expect(row["tags"] as String? == #"["a","b"]"# || row["tags"] as String? == #"["b","a"]"#)
            #expect(row["authorName"] as String? == "Ada")
            #expect(row["day"] as String? == "2001-01-01 00:16:40")
            #expect(row["city"] as String? == "Paris")
        }
        let fetched = try projection.fetch(Note.self, sql: "SELECT * FROM Note WHERE category = ?", arguments: ["work"])
        #expect(fetched.map(\.model) == [first])
        #expect(fetched.first?.id == "n1" && fetched.first?.version == version.id)
    }

    @Test func indexesAndFullTextAreMadeAndQueried() throws {
        var batch = ModelBatch()
        try batch.save(note("alpha beta", category: "work"), instanceIdentifier: "n1")
        try batch.save(note("gamma", category: "home"), instanceIdentifier: "n2")
        let version = try store.save(batch, basedOn: nil)
        let projection = try ModelProjection(path: path, store: store, schema: try testSchema())
        try projection.update(to: version.id)
        let indexes = try projection.database.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Note'")
        }
        #expect(indexes.contains("Note_by_category") && indexes.contains("Note_by_updated"))
        let plan = try projection.database.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT * FROM Note WHERE category = 'home'").map { $0["detail"] as String? ?? "" }
        }
        #expect(plan.contains { $0.contains("Note_by_category") })
        let found = try projection.fetch(Note.self, sql: """
            SELECT Note.* FROM Note JOIN Note_fts ON Note_fts.rowid = Note.rowid WHERE Note_fts MATCH ? ORDER BY rank
            """, arguments: ["beta"])
        #expect(found.map(\.id) == ["n1"])
        let typed = try projection.fetch(Note.self, projection.table(Note.self).filter(Column("category") == "home"))
        #expect(typed.map(\.id) == ["n2"])
    }

    @Test func updatesFollowSavesRemovalsRevertsAndCheckouts() throws {
        var batch = ModelBatch()
        try batch.save(note("alpha"), instanceIdentifier: "n1")
        let v1 = try store.save(batch, basedOn: nil)
        batch = ModelBatch()
        try batch.save(note("beta"), instanceIdentifier: "n2")
        try batch.save(note("alpha two"), instanceIdentifier: "n1")
        let v2 = try store.save(batch, basedOn: v1.id)
        let v3 = try store.removeModel(Note.self, instanceIdentifier: "n1", basedOn: v2.id)
        let projection = try ModelProjection(path: path, store: store, schema: try testSchema())
        let schema = try testSchema()
        for version in [v1, v2, v3, v1, v3, v2] {
            let report = try projection.update(to: version.id)
            #expect(try projection.projectedVersion() == version.id)
            #expect(try dump(projection) == (try freshDump(of: store, at: version.id, schema: schema)))
            _ = report
        }
        #expect(projection.lastUpdate?.rebuilt == false && projection.lastUpdate?.previousVersion == v3.id)
        let rows = try projection.fetch(Note.self, sql: "SELECT * FROM Note ORDER BY llvs_id")
        #expect(rows.map(\.id) == ["n1", "n2"])
        #expect(rows.first { $0.id == "n1" }?.version == v2.id && rows.first { $0.id == "n2" }?.version == v2.id)
    }

    @Test func undecodableValuesAreSkippedAndReportedWithinABound() throws {
        var changes: [Value.Change] = [.insert(Value(id: Value.ID("Note/good"), data: try JSONEncoder().encode(note("alpha"))))]
        changes.append(.insert(Value(id: Value.ID("Note/text"), data: Data("not json".utf8))))
        changes.append(.insert(Value(id: Value.ID("Note/newer"), data: Data(#"{"$version":7,"title":"x"}"#.utf8))))
        for index in 0..<150 {
            changes.append(.insert(Value(id: Value.ID("Note/bad\(index)"), data: Data(#"{"title":5}"#.utf8))))
        }
        changes.append(.insert(Value(id: Value.ID("plain"), data: Data("plain value".utf8))))
        let version = try store.makeVersion(basedOnPredecessor: nil, storing: changes)
        let projection = try ModelProjection(path: path, store: store, schema: try testSchema())
        let report = try projection.update(to: version.id)
        #expect(report.skippedCount == 152)
        #expect(report.skipped.count == ModelProjection.reportedSkipLimit)
        #expect(report.skipped.contains { $0.valueId == Value.ID("Note/text") })
        #expect(report.skipped.contains { $0.valueId == Value.ID("Note/newer") && $0.reason.contains("newer") })
        #expect(try projection.fetch(Note.self, sql: "SELECT * FROM Note").map(\.id) == ["good"])
        // A value that becomes undecodable loses its row.
        let broken = try store.makeVersion(basedOnPredecessor: version.id, storing: [.update(Value(id: Value.ID("Note/good"), data: Data("[]".utf8)))])
        #expect(try projection.update(to: broken.id).skipped.map(\.valueId) == [Value.ID("Note/good")])
        #expect(try projection.fetch(Note.self, sql: "SELECT * FROM Note").isEmpty)
    }

    @Test func aRaisedSchemaVersionRebuilds() throws {
        var batch = ModelBatch()
        try batch.save(note("alpha"), instanceIdentifier: "n1")
        let version = try store.save(batch, basedOn: nil)
        try ModelProjection(path: path, store: store, schema: try testSchema(version: 1)).update(to: version.id)
        let same = try ModelProjection(path: path, store: store, schema: try testSchema(version: 1))
        #expect(try same.update(to: version.id).rebuilt == false)
        let raised = try ModelProjection(path: path, store: store, schema: try testSchema(version: 2))
        #expect(try raised.update(to: version.id).rebuilt == true)
        // Fewer tables: the old ones are dropped.
        var smaller = ProjectionSchema(version: 3)
        try smaller.add(Person.self)
        try ModelProjection(path: path, store: store, schema: smaller).update(to: version.id)
        let tables = try raised.database.read { db in try db.tableExists("Note") }
        #expect(!tables)
    }

    @Test(arguments: ["garbage", "deleted", "droppedTable", "wrongVersion"])
    func aDamagedOrDeletedProjectionIsRebuiltFromTheStore(_ damage: String) throws {
        var batch = ModelBatch()
        try batch.save(note("alpha"), instanceIdentifier: "n1")
        try batch.save(Person(name: "Ada"), instanceIdentifier: "ada")
        let version = try store.save(batch, basedOn: nil)
        let schema = try testSchema()
        do {
            let projection = try ModelProjection(path: path, store: store, schema: schema)
            try projection.update(to: version.id)
            switch damage {
            case "droppedTable": try projection.database.write { try $0.execute(sql: "DROP TABLE Person") }
            case "wrongVersion": try projection.database.write { try $0.execute(sql: "UPDATE llvs_projection SET value = 'nowhere' WHERE key = 'version'") }
            default: break
            }
        }
        switch damage {
        case "garbage":
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            try Data(repeating: 0x5A, count: 8_192).write(to: URL(fileURLWithPath: path))
        case "deleted":
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        default: break
        }
        let reopened = try ModelProjection(path: path, store: store, schema: schema)
        let report = try reopened.update(to: version.id)
        #expect(report.rebuilt)
        #expect(try dump(reopened) == (try freshDump(of: store, at: version.id, schema: schema)))
    }

    /// Instance identifiers and strings holding a NUL or quotes round-trip through the
    /// tables and typed fetches (SQLite text would end at the NUL: such strings are blobs).
    @Test func identifiersAndStringsWithNULsAndQuotesComeBackWhole() throws {
        var batch = ModelBatch()
        let instances = ["a\u{0}b", "a\u{0}c", "it's \"quoted\"", "\u{1F600}"]
        for (index, instance) in instances.enumerated() {
            try batch.save(note("t\u{0}\(index) '\"", stars: index), instanceIdentifier: instance)
        }
        let version = try store.save(batch, basedOn: nil)
        let projection = try ModelProjection(path: path, store: store, schema: try testSchema())
        #expect(try projection.update(to: version.id).rowsChanged == instances.count)
        let fetched = try projection.fetch(Note.self, sql: "SELECT * FROM Note ORDER BY stars")
        #expect(fetched.map(\.id) == instances)
        #expect(fetched.map(\.model.title) == instances.indices.map { "t\u{0}\($0) '\"" })
        #expect(fetched.allSatisfy { $0.valueId == Value.ID("Note/\($0.id)") && $0.version == version.id })
    }

    @Test func anUnknownVersionIsRefusedAndNothingChanges() throws {
        var batch = ModelBatch()
        try batch.save(note("alpha"), instanceIdentifier: "n1")
        let version = try store.save(batch, basedOn: nil)
        let projection = try ModelProjection(path: path, store: store, schema: try testSchema())
        try projection.update(to: version.id)
        #expect(throws: ProjectionError.unknownVersion(Version.ID("nowhere"))) { try projection.update(to: Version.ID("nowhere")) }
        #expect(try projection.projectedVersion() == version.id)
    }

    @Test func schemaMistakesAreTypedErrors() throws {
        var schema = ProjectionSchema(version: 1)
        #expect(throws: ProjectionError.unknownColumn(type: "Note", column: "nope")) { try schema.add(Note.self, indexes: [["nope"]]) }
        #expect(throws: ProjectionError.unknownColumn(type: "Note", column: "missing")) { try schema.add(Note.self, fullText: ["missing"]) }
        try schema.add(Note.self)
        #expect(throws: ProjectionError.duplicateTable("Note")) { try schema.add(Note.self) }
    }

    @Test func readersSeeWholeVersionsWhileUpdatesRun() async throws {
        // Every version gives all 200 notes the same star count: a reader that saw part of
        // an update would see two counts.
        var head = try store.save(try Self.batch(stars: 0), basedOn: nil).id
        let projection = try ModelProjection(path: path, store: store, schema: try testSchema())
        try projection.update(to: head)
        var versions: [Version.ID] = []
        for stars in 1...15 {
            head = try store.save(try Self.batch(stars: stars), basedOn: head).id
            versions.append(head)
        }
        let reader = Task {
            var reads = 0
            do {
                while !Task.isCancelled {
                    let counts = try await projection.database.read { db in try Int.fetchAll(db, sql: "SELECT DISTINCT stars FROM Note") }
                    if counts.count != 1 { return -1 }
                    reads += 1
                }
            } catch is CancellationError {}
            return reads
        }
        for version in versions + versions.reversed() { try projection.update(to: version) }
        reader.cancel()
        #expect(try await reader.value >= 0)
    }

    static func batch(stars: Int) throws -> ModelBatch {
        var batch = ModelBatch()
        for index in 0..<200 {
            var note = Note()
            note.title = "n\(index)"
            note.stars = stars
            try batch.save(note, instanceIdentifier: "n\(index)")
        }
        return batch
    }

    @Test func followingACoordinatorAndObservingAQuery() async throws {
        let coordinator = try StoreCoordinator(withStoreDirectoryAt: directory.url.appendingPathComponent("coordinated"),
                                               cacheDirectoryAt: directory.url.appendingPathComponent("cache"))
        let projection = try ModelProjection(path: path, store: coordinator.store, schema: try testSchema())
        let follower = Task { try await projection.follow(coordinator) }
        var results = projection.observe(Note.self, sql: "SELECT * FROM Note WHERE category = 'work' ORDER BY llvs_id").makeAsyncIterator()
        try coordinator.save(note("alpha"), instanceIdentifier: "n1")
        var seen: [String] = []
        while seen != ["n1"] {
            seen = try #require(try await results.next()).models.map(\.id)
        }
        try coordinator.save(note("beta"), instanceIdentifier: "n2")
        while seen != ["n1", "n2"] {
            seen = try #require(try await results.next()).models.map(\.id)
        }
        let current = coordinator.currentVersion
        follower.cancel()
        #expect(try projection.projectedVersion() == current)
    }
}
