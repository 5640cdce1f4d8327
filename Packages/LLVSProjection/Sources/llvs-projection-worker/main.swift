// llvs-projection-worker: the crash tests' process. It opens a store and its projection of
// `Memo` values, updates the projection to a version, and with `kill` kills itself with
// SIGKILL inside the update's transaction, after its changes and before its commit.
//
//   llvs-projection-worker STORE-DIRECTORY BACKEND PROJECTION-FILE VERSION kill|finish

import Foundation
import LLVSCore
@_spi(Testing) import LLVSProjection
import LLVSStore
import LLVSStoreTesting
import LLVSModel

/// The crash tests' model (the tests declare the same type and schema).
struct Memo: StorableModel {
    static let modelTypeIdentifier = "Memo"
    var title: String
    var body: String
    var category: String
    var stars: Int
    var updated: Date
}

let arguments = CommandLine.arguments
guard arguments.count == 6, let backend = StoreReplica.Backend(rawValue: arguments[2]), ["kill", "finish"].contains(arguments[5]) else {
    FileHandle.standardError.write(Data("usage: llvs-projection-worker STORE-DIRECTORY memory|file|sqlite PROJECTION-FILE VERSION kill|finish\n".utf8))
    exit(64)
}
do {
    let store = try Store(rootDirectoryURL: URL(fileURLWithPath: arguments[1]), storage: backend.makeStorage())
    var schema = ProjectionSchema(version: 1)
    try schema.add(Memo.self, indexes: [["category"]], fullText: ["title", "body"])
    let kills = arguments[5] == "kill"
    let projection = try ModelProjection(path: arguments[3], store: store, schema: schema, beforeCommit: {
        if kills { kill(getpid(), SIGKILL) }
    })
    let report = try projection.update(to: Version.ID(arguments[4]))
    print("updated \(report.rowsChanged)")
} catch {
    FileHandle.standardError.write(Data("llvs-projection-worker: \(error)\n".utf8))
    exit(1)
}
