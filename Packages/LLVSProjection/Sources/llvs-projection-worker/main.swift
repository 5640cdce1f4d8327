// llvs-projection-worker: the crash tests' process. It opens a store and its projection of
// `Memo` values, and either updates the projection to a version (`kill`, `finish`) or, with
// `Memo` owned, drains the edits the test made to its table (`drain-kill`, `drain-finish`;
// VERSION is then ignored). With `kill` and `drain-kill` it kills itself with SIGKILL inside
// the transaction, after its changes (and the drained version's save) and before its commit.
//
//   llvs-projection-worker STORE-DIRECTORY BACKEND PROJECTION-FILE VERSION kill|finish|drain-kill|drain-finish

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
let modes = ["kill", "finish", "drain-kill", "drain-finish"]
guard arguments.count == 6, let backend = StoreReplica.Backend(rawValue: arguments[2]), modes.contains(arguments[5]) else {
    FileHandle.standardError.write(Data("usage: llvs-projection-worker STORE-DIRECTORY memory|file|sqlite PROJECTION-FILE VERSION \(modes.joined(separator: "|"))\n".utf8))
    exit(64)
}
do {
    let store = try Store(rootDirectoryURL: URL(fileURLWithPath: arguments[1]), storage: backend.makeStorage())
    let drains = arguments[5].hasPrefix("drain")
    var schema = ProjectionSchema(version: 1)
    try schema.add(Memo.self, indexes: [["category"]], fullText: ["title", "body"], owned: drains)
    let kills = arguments[5].hasSuffix("kill")
    let projection = try ModelProjection(path: arguments[3], store: store, schema: schema, beforeCommit: {
        if kills { kill(getpid(), SIGKILL) }
    })
    if drains {
        print("drained \(try projection.drain().map(\.rawValue) ?? "nothing")")
    } else {
        print("updated \(try projection.update(to: Version.ID(arguments[4])).rowsChanged)")
    }
} catch {
    FileHandle.standardError.write(Data("llvs-projection-worker: \(error)\n".utf8))
    exit(1)
}
