import Foundation
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

func memoSchema() throws -> ProjectionSchema {
    var schema = ProjectionSchema(version: 1)
    try schema.add(Memo.self, indexes: [["category"]], fullText: ["title", "body"])
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
}
