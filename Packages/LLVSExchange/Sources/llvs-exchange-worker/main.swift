// llvs-exchange-worker: a helper process for the exchange package's multi-process and
// crash tests.
//
//   llvs-exchange-worker <store directory> <exchange directory> <worker name> <version count>
//
// If the store is empty, makes <version count> serial versions, each inserting the value
// `<worker name>-<n>`. Then sends every version to the shared directory with
// FileSystemExchange, one version per batch, printing `sent <n>` and flushing after each
// batch, so a parent that kills the process mid-transfer knows it was mid-transfer.
// With LLVS_WORKER_STEPPED=1 in its environment, it also waits after each batch for a line
// on stdin before sending the next, so a parent can place a kill inside a chosen batch
// however slowly it is scheduled itself.

import Foundation
import LLVSExchange
import LLVSStore

let arguments = CommandLine.arguments
guard arguments.count == 5, let count = Int(arguments[4]), count >= 0 else {
    FileHandle.standardError.write(Data("usage: llvs-exchange-worker <store directory> <exchange directory> <worker name> <version count>\n".utf8))
    exit(2)
}
let storeURL = URL(fileURLWithPath: arguments[1])
let exchangeURL = URL(fileURLWithPath: arguments[2])
let name = arguments[3]

do {
    let store = try Store(rootDirectoryURL: storeURL)
    if store.mostRecentHead == nil {
        var head: Version.ID?
        for index in 0..<count {
            let valueId = "\(name)-\(index)"
            head = try store.makeVersion(basedOnPredecessor: head, inserting: [Value(idString: valueId, data: Data(valueId.utf8))]).id
        }
    }
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    let exchange = FileSystemExchange(rootDirectoryURL: exchangeURL, store: store, maximumBatchByteCount: 1)
    let stepped = ProcessInfo.processInfo.environment["LLVS_WORKER_STEPPED"] == "1"
    try await exchange.send { progress in
        FileHandle.standardOutput.write(Data("sent \(progress.completedVersionCount)\n".utf8))
        if stepped, progress.completedVersionCount > 0, progress.completedVersionCount < progress.totalVersionCount { _ = readLine() }
    }
} catch {
    FileHandle.standardError.write(Data("llvs-exchange-worker \(name) failed: \(error)\n".utf8))
    exit(1)
}
