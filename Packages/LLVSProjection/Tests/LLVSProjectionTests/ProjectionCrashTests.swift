import Foundation
import GRDB
import LLVSCore
import LLVSModel
import LLVSProjection
import LLVSStore
import LLVSStoreTesting
import LLVSTesting
import Testing

/// The worker's model and schema (`llvs-projection-worker` declares the same).
struct Memo: StorableModel, Equatable {
    static let modelTypeIdentifier = "Memo"
    var title: String
    var body: String
    var category: String
    var stars: Int
    var updated: Date
}

func memoSchema(owned: Bool = false) throws -> ProjectionSchema {
    var schema = ProjectionSchema(version: 1)
    try schema.add(Memo.self, indexes: [["category"]], fullText: ["title", "body"], owned: owned)
    return schema
}

/// A process killed (SIGKILL) inside an update, after the diff's rows are written and
/// before the commit, leaves the tables at the version they showed, and the next update
/// goes on from there.
@Suite struct ProjectionCrashTests {
    static var workerURL: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("llvs-projection-worker")
    }

    /// Runs the worker; returns how it ended.
    static func runWorker(_ arguments: [String]) throws -> (reason: Process.TerminationReason, status: Int32) {
        let process = Process()
        process.executableURL = workerURL
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return (process.terminationReason, process.terminationStatus)
    }

    @Test(arguments: [StoreReplica.Backend.file, .sqlite])
    func aKillBetweenTheDiffAndTheCommitLeavesConsistentTables(_ backend: StoreReplica.Backend) throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.workerURL.path), "build the package first: \(Self.workerURL.path)")
        let directory = try TemporaryDirectory(prefix: "llvs-projection-crash")
        let storeURL = directory.url.appendingPathComponent("store")
        let path = directory.url.appendingPathComponent("projection.sqlite").path
        let store = try Store(rootDirectoryURL: storeURL, storage: backend.makeStorage())
        var batch = ModelBatch()
        for index in 0..<60 {
            try batch.save(Memo(title: "alpha \(index)", body: "first", category: "c\(index % 3)", stars: index, updated: Date(timeIntervalSinceReferenceDate: 0)),
                           instanceIdentifier: "m\(index)")
        }
        let v1 = try store.save(batch, basedOn: nil).id
        batch = ModelBatch()
        for index in 0..<40 {
            try batch.save(Memo(title: "beta \(index)", body: "second", category: "c\(index % 2)", stars: -index, updated: Date(timeIntervalSinceReferenceDate: 9)),
                           instanceIdentifier: "m\(index)")
        }
        for index in 50..<60 { try batch.remove(Memo.self, instanceIdentifier: "m\(index)") }
        let v2 = try store.save(batch, basedOn: v1).id
        let schema = try memoSchema()
        try ModelProjection(path: path, store: store, schema: schema).update(to: v1)

        let killed = try Self.runWorker([storeURL.path, backend.rawValue, path, v2.rawValue, "kill"])
        #expect(killed.reason == .uncaughtSignal && killed.status == SIGKILL)
        let afterKill = try ModelProjection(path: path, store: store, schema: schema)
        #expect(try afterKill.projectedVersion() == v1)
        #expect(try dump(afterKill) == (try freshDump(of: store, at: v1, schema: schema)))

        let finished = try Self.runWorker([storeURL.path, backend.rawValue, path, v2.rawValue, "finish"])
        #expect(finished.reason == .exit && finished.status == 0)
        let afterFinish = try ModelProjection(path: path, store: store, schema: schema)
        #expect(try afterFinish.projectedVersion() == v2)
        #expect(try dump(afterFinish) == (try freshDump(of: store, at: v2, schema: schema)))
    }

    /// A process killed inside a drain, after the drained version is saved and before the
    /// commit, leaves the edits captured and the tables at the version they showed; the next
    /// drain saves the edits again (the first version stays in the history beside it, with
    /// the same changes) and the tables show it.
    @Test(arguments: [StoreReplica.Backend.file, .sqlite])
    func aKillInsideADrainLosesNoEdit(_ backend: StoreReplica.Backend) throws {
        let directory = try TemporaryDirectory(prefix: "llvs-projection-crash")
        let storeURL = directory.url.appendingPathComponent("store")
        let path = directory.url.appendingPathComponent("projection.sqlite").path
        let store = try Store(rootDirectoryURL: storeURL, storage: backend.makeStorage())
        var batch = ModelBatch()
        for index in 0..<20 {
            try batch.save(Memo(title: "alpha \(index)", body: "first", category: "c\(index % 3)", stars: index, updated: Date(timeIntervalSinceReferenceDate: 0)),
                           instanceIdentifier: "m\(index)")
        }
        let v1 = try store.save(batch, basedOn: nil).id
        let schema = try memoSchema(owned: true)
        let projection = try ModelProjection(path: path, store: store, schema: schema)
        try projection.update(to: v1)
        try projection.database.write { db in
            try db.execute(sql: "UPDATE Memo SET title = 'edited', stars = stars + 100 WHERE llvs_instance = 'm1'")
            try db.execute(sql: "DELETE FROM Memo WHERE llvs_instance = 'm2'")
            try db.execute(sql: "INSERT INTO Memo (llvs_instance, title, body, category, stars, updated) VALUES ('m99', 'new', 'b', 'c0', 9, 978307200)")
        }
        let edited = try dump(projection)

        let killed = try Self.runWorker([storeURL.path, backend.rawValue, path, "-", "drain-kill"])
        #expect(killed.reason == .uncaughtSignal && killed.status == SIGKILL)
        let reopenedStore = try Store(rootDirectoryURL: storeURL, storage: backend.makeStorage())
        let afterKill = try ModelProjection(path: path, store: reopenedStore, schema: schema)
        #expect(try afterKill.projectedVersion() == v1)
        #expect(try afterKill.database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM llvs_captured") } == 4)
        #expect(try dump(afterKill) == edited)

        let finished = try Self.runWorker([storeURL.path, backend.rawValue, path, "-", "drain-finish"])
        #expect(finished.reason == .exit && finished.status == 0)
        let finalStore = try Store(rootDirectoryURL: storeURL, storage: backend.makeStorage())
        let afterFinish = try ModelProjection(path: path, store: finalStore, schema: schema)
        let drained = try #require(try afterFinish.projectedVersion())
        #expect(drained != v1)
        #expect(try afterFinish.database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM llvs_captured") } == 0)
        #expect(try dump(afterFinish) == (try freshDump(of: finalStore, at: drained, schema: schema)))
        #expect(try finalStore.fetchModel(Memo.self, instanceIdentifier: "m1", at: drained)?.stars == 101)
        #expect(try finalStore.fetchModel(Memo.self, instanceIdentifier: "m2", at: drained) == nil)
        #expect(try finalStore.fetchModel(Memo.self, instanceIdentifier: "m99", at: drained)?.title == "new")
        // The killed drain's version is in the history too, on v1, with the same changes.
        let heads = finalStore.queryHistory { Array($0.headIdentifiers) }
        #expect(heads.count == 2 && heads.contains(drained))
        for head in heads {
            #expect(Set(try finalStore.valueChanges(madeBetween: v1, and: head).map(\.valueId)) == ["Memo/m1", "Memo/m2", "Memo/m99"])
        }
    }
}
