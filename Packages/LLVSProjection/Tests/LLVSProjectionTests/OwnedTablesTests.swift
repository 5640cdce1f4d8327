import Foundation
import GRDB
import LLVSCoordinator
import LLVSCore
import LLVSModel
import LLVSProjection
import LLVSStore
import LLVSStoreTesting
import LLVSTesting
import PropertyBased
import Testing

@MergeableModel
struct Chore: Identifiable, Equatable, Sendable {
    static let modelTypeIdentifier = "Chore"
    var id = ""
    var title = ""
}

/// Owned tables: the app writes rows with SQL, triggers capture the changed columns, a drain
/// makes one version of them; incoming versions are not captured; replicas editing different
/// columns of one row merge per column. On every backend.
@Suite struct OwnedTablesTests {
    /// The tests' schema with `Note` owned.
    static func ownedSchema() throws -> ProjectionSchema {
        var schema = ProjectionSchema(version: 1)
        try schema.add(Note.self, indexes: [["category"]], fullText: ["title", "body"], owned: true)
        try schema.add(Person.self)
        return schema
    }

    static func note(_ title: String, stars: Int = 0) -> Note {
        var note = Note()
        note.title = title
        note.body = "\(title) body"
        note.category = "work"
        note.stars = stars
        note.updated = Date(timeIntervalSinceReferenceDate: 1_000)
        note.place = Place(city: "Oslo", floor: 2)
        return note
    }

    /// A replica with notes n1 and n2 saved, and its owned projection at that version.
    static func replica(_ backend: StoreReplica.Backend, in directory: TemporaryDirectory,
                        named name: String = "p") throws -> (StoreReplica, ModelProjection, Version.ID) {
        let replica = try StoreReplica(backend: backend)
        var batch = ModelBatch()
        try batch.save(note("alpha", stars: 5), instanceIdentifier: "n1")
        try batch.save(note("beta"), instanceIdentifier: "n2")
        let version = try replica.store.save(batch, basedOn: nil).id
        let projection = try ModelProjection(path: directory.url.appendingPathComponent("\(name).sqlite").path,
                                             store: replica.store, schema: try ownedSchema())
        try projection.update(to: version)
        return (replica, projection, version)
    }

    /// Two replicas of `replica`'s notes, each with its owned projection at their version.
    static func twoReplicas(_ backend: StoreReplica.Backend, in directory: TemporaryDirectory) throws
        -> (StoreReplica, ModelProjection, StoreReplica, ModelProjection) {
        let (here, hereProjection, base) = try replica(backend, in: directory, named: "here")
        let there = try StoreReplica(backend: backend)
        try there.receive(from: here, upTo: nil)
        let thereProjection = try ModelProjection(path: directory.url.appendingPathComponent("there.sqlite").path,
                                                  store: there.store, schema: try ownedSchema())
        try thereProjection.update(to: base)
        return (here, hereProjection, there, thereProjection)
    }

    /// Drains both replicas' edits and gives each the other's version: the drained versions.
    static func drainAndSwap(_ here: StoreReplica, _ hereProjection: ModelProjection,
                             _ there: StoreReplica, _ thereProjection: ModelProjection) throws -> (Version.ID, Version.ID) {
        let hereVersion = try #require(try hereProjection.drain())
        let thereVersion = try #require(try thereProjection.drain())
        try here.receive(from: there, upTo: nil)
        try there.receive(from: here, upTo: nil)
        return (hereVersion, thereVersion)
    }

    /// The model arbiter of the tests' types.
    static func arbiter() -> MergeableArbiter {
        let arbiter = MergeableArbiter()
        arbiter.register(Note.self)
        arbiter.register(Person.self)
        return arbiter
    }

    static func captured(_ projection: ModelProjection) throws -> Int {
        try projection.database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM llvs_captured") ?? -1 }
    }

    @Test(arguments: StoreReplica.Backend.allCases)
    func sqlEditsDrainIntoOneVersion(_ backend: StoreReplica.Backend) throws {
        let directory = try TemporaryDirectory(prefix: "llvs-owned")
        let (replica, projection, base) = try Self.replica(backend, in: directory)
        try projection.database.write { db in
            try db.execute(sql: "UPDATE Note SET title = 'alpha edited', pinned = 1, updated = 978307200 + 5000 WHERE llvs_instance = 'n1'")
            try db.execute(sql: """
                INSERT INTO Note (llvs_instance, title, body, category, stars, updated, tags, place, pinned, status)
                VALUES ('n3', 'gamma', 'gamma body', 'home', 2, 978307200 + 10, '["x"]', '{"city":"Rome","floor":1}', 0, 'published')
                """)
            try db.execute(sql: "DELETE FROM Note WHERE llvs_instance = 'n2'")
        }
        #expect(try Self.captured(projection) == 5)
        let drained = try #require(try projection.drain(metadata: ["by": try Version.MetadataValue("test")]))
        #expect(try Self.captured(projection) == 0)
        #expect(try projection.projectedVersion() == drained)
        let version = try #require(replica.store.version(identifiedBy: drained))
        #expect(version.predecessors?.idOfFirst == base && version.predecessors?.idOfSecond == nil)

        var expected = Self.note("alpha edited", stars: 5)
        expected.body = "alpha body"
        expected.pinned = true
        expected.updated = Date(timeIntervalSinceReferenceDate: 5_000)
        #expect(try replica.store.fetchModel(Note.self, instanceIdentifier: "n1", at: drained) == expected)
        var inserted = Note()
        inserted.title = "gamma"
        inserted.body = "gamma body"
        inserted.category = "home"
        inserted.stars = 2
        inserted.updated = Date(timeIntervalSinceReferenceDate: 10)
        inserted.tags = ["x"]
        inserted.place = Place(city: "Rome", floor: 1)
        inserted.status = .published
        #expect(try replica.store.fetchModel(Note.self, instanceIdentifier: "n3", at: drained) == inserted)
        #expect(try replica.store.fetchModel(Note.self, instanceIdentifier: "n2", at: drained) == nil)
        // The tables now hold the stored rows, as a projection built from nothing does.
        #expect(try dump(projection) == (try freshDump(of: replica.store, at: drained, schema: projection.schema)))
        #expect(try projection.fetch(Note.self, sql: "SELECT * FROM Note WHERE pinned = 1").map(\.id) == ["n1"])
        // Nothing more to drain.
        #expect(try projection.drain() == nil)
    }

    @Test(arguments: StoreReplica.Backend.allCases)
    func incomingVersionsAreNotCaptured(_ backend: StoreReplica.Backend) throws {
        let directory = try TemporaryDirectory(prefix: "llvs-owned")
        let (replica, projection, base) = try Self.replica(backend, in: directory)
        var batch = ModelBatch()
        try batch.save(Self.note("alpha again"), instanceIdentifier: "n1")
        try batch.save(Self.note("delta"), instanceIdentifier: "n4")
        try batch.remove(Note.self, instanceIdentifier: "n2")
        let next = try replica.store.save(batch, basedOn: base).id
        let report = try projection.update(to: next)
        #expect(report.drained == nil && report.rowsChanged == 3)
        try projection.update(to: base)
        #expect(try Self.captured(projection) == 0)
        #expect(try projection.drain() == nil)
        #expect(try dump(projection) == (try freshDump(of: replica.store, at: base, schema: projection.schema)))
    }

    @Test(arguments: StoreReplica.Backend.allCases)
    func aRowThatMakesNoModelIsRefusedAndNothingIsLost(_ backend: StoreReplica.Backend) throws {
        let directory = try TemporaryDirectory(prefix: "llvs-owned")
        let (replica, projection, base) = try Self.replica(backend, in: directory)
        try projection.database.write { db in
            try db.execute(sql: "UPDATE Note SET stars = 'many', title = 'kept?' WHERE llvs_instance = 'n1'")
            try db.execute(sql: "UPDATE Note SET title = 'beta edited' WHERE llvs_instance = 'n2'")
        }
        #expect(throws: ProjectionError.self) { try projection.drain() }
        // Nothing saved, the edits still captured.
        #expect(try replica.headIdentifiers() == [base])
        #expect(try Self.captured(projection) == 3)
        // An update drains what it can, puts the bad row back as stored, and reports it.
        let report = try projection.update(to: base)
        let drained = try #require(report.drained)
        #expect(report.version == drained)
        #expect(report.rejectedCount == 1 && report.rejected.map(\.valueId) == [Value.ID("Note/n1")])
        #expect(try replica.store.fetchModel(Note.self, instanceIdentifier: "n2", at: drained)?.title == "beta edited")
        #expect(try replica.store.fetchModel(Note.self, instanceIdentifier: "n1", at: drained)?.title == "alpha")
        #expect(try dump(projection) == (try freshDump(of: replica.store, at: drained, schema: projection.schema)))
        // An insert that leaves a property out is refused the same way.
        try projection.database.write { db in try db.execute(sql: "INSERT INTO Note (title) VALUES ('bare')") }
        #expect(throws: ProjectionError.self) { try projection.drain() }
    }

    @Test func theProjectionsOwnColumnsAreRefusedToTheApp() throws {
        let directory = try TemporaryDirectory(prefix: "llvs-owned")
        let (_, projection, _) = try Self.replica(.file, in: directory)
        for assignment in ["llvs_data = '{}'", "llvs_version = 'x'", "llvs_instance = 'other'", "llvs_id = 'Note/other'"] {
            #expect(throws: DatabaseError.self) {
                try projection.database.write { db in try db.execute(sql: "UPDATE Note SET \(assignment) WHERE llvs_instance = 'n1'") }
            }
        }
        #expect(try Self.captured(projection) == 0)
        // A row inserted with no instance gets a UUID, and its llvs_id follows it.
        let id = try projection.database.write { db -> String? in
            try db.execute(sql: """
                INSERT INTO Note (title, body, category, stars, updated, tags, place, pinned, status)
                VALUES ('new', '', '', 0, 0, '[]', '{"city":"","floor":0}', 0, 'draft')
                """)
            return try String.fetchOne(db, sql: "SELECT llvs_id FROM Note WHERE title = 'new'")
        }
        let instance = try #require(id.flatMap { instanceIdentifier(from: Value.ID($0)) })
        #expect(UUID(uuidString: instance) != nil && instance == instance.uppercased())
        let drained = try #require(try projection.drain())
        #expect(try projection.store.fetchModel(Note.self, instanceIdentifier: instance, at: drained)?.title == "new")
    }

    /// An inserted row of an `Identifiable` model is saved under the model's `id`, whatever
    /// instance the row was given; the table then holds the stored row under that id.
    @Test(arguments: StoreReplica.Backend.allCases)
    func anIdentifiableModelsIdNamesItsInstance(_ backend: StoreReplica.Backend) throws {
        let directory = try TemporaryDirectory(prefix: "llvs-owned")
        let replica = try StoreReplica(backend: backend)
        let base = try replica.store.save(Chore(id: "c1", title: "first"), basedOn: nil).id
        var schema = ProjectionSchema(version: 1)
        try schema.add(Chore.self, owned: true)
        let projection = try ModelProjection(path: directory.url.appendingPathComponent("p.sqlite").path, store: replica.store, schema: schema)
        try projection.update(to: base)
        try projection.database.write { db in
            try db.execute(sql: "INSERT INTO Chore (id, title) VALUES ('c2', 'second')")
            try db.execute(sql: "INSERT INTO Chore (llvs_instance, id, title) VALUES ('other', 'c3', 'third')")
        }
        let drained = try #require(try projection.drain())
        #expect(try replica.store.fetchAllModels(Chore.self, at: drained).map(\.id).sorted() == ["c1", "c2", "c3"])
        #expect(try replica.store.fetchModel(Chore.self, instanceIdentifier: "other", at: drained) == nil)
        let rows = try projection.database.read { try Row.fetchAll($0, sql: "SELECT llvs_instance, id, llvs_version FROM Chore ORDER BY id") }
        #expect(rows.map { $0["llvs_instance"] as String } == ["c1", "c2", "c3"])
        #expect(rows.dropFirst().allSatisfy { $0["llvs_version"] as String == drained.rawValue })
        #expect(try dump(projection) == (try freshDump(of: replica.store, at: drained, schema: schema)))
    }

    /// Two replicas edit different columns (and one counter on both) of one row, drain, swap
    /// versions and merge in either order: both hold every edit, the counter summed.
    @Test(arguments: StoreReplica.Backend.allCases, [false, true])
    func replicasEditingDifferentColumnsMergePerColumn(_ backend: StoreReplica.Backend, hereFirst: Bool) throws {
        let directory = try TemporaryDirectory(prefix: "llvs-owned")
        let (here, hereProjection, there, thereProjection) = try Self.twoReplicas(backend, in: directory)

        try hereProjection.database.write { db in
            try db.execute(sql: "UPDATE Note SET title = 'alpha from here', stars = stars + 1 WHERE llvs_instance = 'n1'")
        }
        try thereProjection.database.write { db in
            try db.execute(sql: "UPDATE Note SET body = 'alpha body, there', pinned = 1, stars = stars + 2 WHERE llvs_instance = 'n1'")
            try db.execute(sql: "UPDATE Note SET category = 'home' WHERE llvs_instance = 'n2'")
        }
        let (hereEdit, thereEdit) = try Self.drainAndSwap(here, hereProjection, there, thereProjection)
        let arbiter = Self.arbiter()
        let hereMerge = try here.store.merge(version: hereFirst ? hereEdit : thereEdit, with: hereFirst ? thereEdit : hereEdit,
                                             resolvingWith: arbiter).id
        let thereMerge = try there.store.merge(version: thereEdit, with: hereEdit, resolvingWith: arbiter).id
        try hereProjection.update(to: hereMerge)
        try thereProjection.update(to: thereMerge)

        var expected = Self.note("alpha from here", stars: 8)
        expected.body = "alpha body, there"
        expected.pinned = true
        for (replica, merge) in [(here, hereMerge), (there, thereMerge)] {
            #expect(try replica.store.fetchModel(Note.self, instanceIdentifier: "n1", at: merge) == expected)
            #expect(try replica.store.fetchModel(Note.self, instanceIdentifier: "n2", at: merge)?.category == "home")
        }
        let columns = "SELECT llvs_instance, title, body, category, stars, updated, tags, author, place, pinned, status FROM Note ORDER BY llvs_id"
        let hereRows = try hereProjection.database.read { try Row.fetchAll($0, sql: columns) }
        let thereRows = try thereProjection.database.read { try Row.fetchAll($0, sql: columns) }
        #expect(hereRows == thereRows && hereRows.count == 2)
        #expect(try Self.captured(hereProjection) == 0 && (try Self.captured(thereProjection)) == 0)
    }

    /// An update to an incoming version drains the pending edits first (on the version the
    /// tables showed), so the incoming version never overwrites them; following a
    /// coordinator merges the drained version in.
    @Test func followingACoordinatorMergesDrainedEdits() async throws {
        let directory = try TemporaryDirectory(prefix: "llvs-owned")
        let coordinator = try StoreCoordinator(withStoreDirectoryAt: directory.url.appendingPathComponent("store"),
                                               cacheDirectoryAt: directory.url.appendingPathComponent("cache"))
        let arbiter = MergeableArbiter()
        arbiter.register(Note.self)
        coordinator.mergeArbiter = arbiter
        try coordinator.save(Self.note("alpha"), instanceIdentifier: "n1")
        let projection = try ModelProjection(path: directory.url.appendingPathComponent("p.sqlite").path,
                                             store: coordinator.store, schema: try Self.ownedSchema())
        try projection.update(to: coordinator.currentVersion)

        // A drain into the coordinator fast-forwards it.
        try await projection.database.write { db in try db.execute(sql: "UPDATE Note SET title = 'alpha edited' WHERE llvs_instance = 'n1'") }
        let drained = try #require(try projection.drain(into: coordinator))
        #expect(coordinator.currentVersion == drained)
        #expect(try projection.projectedVersion() == drained)

        // An edit pending while the coordinator saves elsewhere in the same note: following
        // drains it, merges it in, and the tables show both.
        try await projection.database.write { db in try db.execute(sql: "UPDATE Note SET pinned = 1 WHERE llvs_instance = 'n1'") }
        var fromApp = try #require(try coordinator.store.fetchModel(Note.self, instanceIdentifier: "n1", at: drained))
        fromApp.body = "body from the app"
        try coordinator.save(fromApp, instanceIdentifier: "n1")
        let follower = Task { try await projection.follow(coordinator) }
        let deadline = Date().addingTimeInterval(30)
        var pinned: Bool?
        while Date() < deadline {
            pinned = try projection.fetch(Note.self, sql: "SELECT * FROM Note WHERE body = 'body from the app'").first?.model.pinned
            if pinned == true, try projection.projectedVersion() == coordinator.currentVersion { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        follower.cancel()
        #expect(pinned == true)
        let merged = try #require(try coordinator.store.fetchModel(Note.self, instanceIdentifier: "n1", at: coordinator.currentVersion))
        #expect(merged.pinned && merged.body == "body from the app" && merged.title == "alpha edited")
        #expect(try Self.captured(projection) == 0)
    }

    /// One replica's edits of note n1: which columns (a mask of title, category, pinned,
    /// stars, body), a value, and the counter's step.
    static let edits = zip(Gen.int(in: 1...31), Gen.int(in: 0...99), Gen.int(in: 1...5))

    static func apply(_ edit: (Int, Int, Int), prefix: String, to projection: ModelProjection) throws {
        let (mask, value, step) = edit
        var assignments: [String] = []
        if mask & 1 != 0 { assignments.append("title = '\(prefix)\(value)'") }
        if mask & 2 != 0 { assignments.append("category = '\(prefix)c\(value)'") }
        if mask & 4 != 0 { assignments.append("pinned = 1") }
        if mask & 8 != 0 { assignments.append("stars = stars + \(step)") }
        if mask & 16 != 0 { assignments.append("body = body || ' \(prefix)\(value)'") }
        try projection.database.write { db in
            try db.execute(sql: "UPDATE Note SET \(assignments.joined(separator: ", ")) WHERE llvs_instance = 'n1'")
        }
    }

    /// Random edits of one row on two replicas, drained, swapped and merged each way: the
    /// replicas' rows agree, a column only one side edited holds that side's value, and the
    /// counter holds both steps.
    @Test(arguments: StoreReplica.Backend.allCases)
    func ownedTablesConvergeAcrossTwoReplicas(_ backend: StoreReplica.Backend) async {
        await propertyCheck(count: ProjectionPropertyTests.cases(8), input: Self.edits, Self.edits) { hereEdit, thereEdit in
            await failingOnThrow { try Self.converge(hereEdit, thereEdit, backend: backend) }
        }
    }

    static func converge(_ hereEdit: (Int, Int, Int), _ thereEdit: (Int, Int, Int), backend: StoreReplica.Backend) throws {
        let directory = try TemporaryDirectory(prefix: "llvs-owned-property")
        let (here, hereProjection, there, thereProjection) = try Self.twoReplicas(backend, in: directory)
        try Self.apply(hereEdit, prefix: "h", to: hereProjection)
        try Self.apply(thereEdit, prefix: "t", to: thereProjection)
        let (hereVersion, thereVersion) = try Self.drainAndSwap(here, hereProjection, there, thereProjection)
        let arbiter = Self.arbiter()
        try hereProjection.update(to: try here.store.merge(version: hereVersion, with: thereVersion, resolvingWith: arbiter).id)
        try thereProjection.update(to: try there.store.merge(version: thereVersion, with: hereVersion, resolvingWith: arbiter).id)

        let columns = "SELECT llvs_id, llvs_data, title, body, category, stars, updated, tags, author, place, pinned, status FROM Note ORDER BY llvs_id"
        let hereRows = try hereProjection.database.read { try Row.fetchAll($0, sql: columns) }
        let thereRows = try thereProjection.database.read { try Row.fetchAll($0, sql: columns) }
        #expect(hereRows == thereRows)
        let row = try #require(hereRows.first)
        #expect(row["stars"] as Int == 5 + (hereEdit.0 & 8 != 0 ? hereEdit.2 : 0) + (thereEdit.0 & 8 != 0 ? thereEdit.2 : 0))
        for (bit, column, expected) in [(1, "title", "\(hereEdit.1)"), (2, "category", "c\(hereEdit.1)")] {
            switch (hereEdit.0 & bit != 0, thereEdit.0 & bit != 0) {
            case (true, false): #expect(row[column] as String == "h" + expected)
            case (false, true): #expect(row[column] as String == "t" + (bit == 1 ? "\(thereEdit.1)" : "c\(thereEdit.1)"))
            default: break
            }
        }
        #expect((row["pinned"] as Int == 1) == ((hereEdit.0 | thereEdit.0) & 4 != 0))
        let body = row["body"] as String
        if hereEdit.0 & 16 != 0 { #expect(body.contains(" h\(hereEdit.1)")) }
        if thereEdit.0 & 16 != 0 { #expect(body.contains(" t\(thereEdit.1)")) }
        #expect(try Self.captured(hereProjection) == 0 && (try Self.captured(thereProjection)) == 0)
    }
}
