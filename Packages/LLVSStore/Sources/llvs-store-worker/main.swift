// llvs-store-worker: a helper process for the store's multi-process and crash tests.
//
//   llvs-store-worker <store directory> <worker name> <version count> [file|sqlite]
//
// Makes <version count> versions, each based on the store's most recent head (reloading
// the history first, so it builds on what other processes wrote), each inserting one value
// `<worker name>-<n>` whose data is the same text. After each makeVersion returns it prints
// `<version id> <value id>` and flushes, so a parent that kills the process knows which
// versions must have survived. A count of 0 writes forever. The store uses file storage
// unless `sqlite` is given.

import Foundation
import LLVSSQLite
import LLVSStore

let arguments = CommandLine.arguments
guard (4...5).contains(arguments.count), let count = Int(arguments[3]), count >= 0,
      arguments.count == 4 || ["file", "sqlite"].contains(arguments[4]) else {
    FileHandle.standardError.write(Data("usage: llvs-store-worker <store directory> <worker name> <version count> [file|sqlite]\n".utf8))
    exit(2)
}
let directory = URL(fileURLWithPath: arguments[1])
let name = arguments[2]

do {
    let storage: any Storage = arguments.count == 5 && arguments[4] == "sqlite" ? SQLiteStorage() : FileStorage()
    let store = try Store(rootDirectoryURL: directory, storage: storage)
    var made = 0
    while count == 0 || made < count {
        try store.reloadHistory()
        let valueId = "\(name)-\(made)"
        let version = try store.makeVersion(basedOnPredecessor: store.mostRecentHead?.id,
                                            inserting: [Value(idString: valueId, data: Data(valueId.utf8))])
        FileHandle.standardOutput.write(Data("\(version.id) \(valueId)\n".utf8))
        made += 1
    }
} catch {
    FileHandle.standardError.write(Data("llvs-store-worker \(name) failed: \(error)\n".utf8))
    exit(1)
}
