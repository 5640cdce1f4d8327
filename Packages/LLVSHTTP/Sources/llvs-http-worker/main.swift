// llvs-http-worker: a helper process for the HTTP package's kill tests.
//
//   llvs-http-worker <store directory> <store URL> <token> <version count>
//
// If the store is empty, makes <version count> serial versions, each inserting a 2 KB
// value. Then pushes every version to the server with HTTPExchange, about two versions per
// request, printing `sent <n>` and flushing after each batch, so a parent that kills the
// process knows it was mid-push.

import Foundation
import LLVSCore
import LLVSExchange
import LLVSHTTPExchange
import LLVSStore

let arguments = CommandLine.arguments
guard arguments.count == 5, let storeURL = URL(string: arguments[2]), let count = Int(arguments[4]), count >= 0 else {
    FileHandle.standardError.write(Data("usage: llvs-http-worker <store directory> <store URL> <token> <version count>\n".utf8))
    exit(2)
}

do {
    let store = try Store(rootDirectoryURL: URL(fileURLWithPath: arguments[1]))
    if store.mostRecentHead == nil {
        var head: Version.ID?
        for index in 0..<count {
            let value = Value(idString: "value-\(index)", data: Data(repeating: UInt8(index % 251), count: 2_048))
            head = try store.makeVersion(basedOnPredecessor: head, inserting: [value]).id
        }
    }
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    let exchange = try HTTPExchange(storeURL: storeURL, store: store, accessToken: arguments[3], maximumBatchByteCount: 4_096)
    try await exchange.send { progress in
        FileHandle.standardOutput.write(Data("sent \(progress.completedVersionCount)\n".utf8))
    }
} catch {
    FileHandle.standardError.write(Data("llvs-http-worker failed: \(error)\n".utf8))
    exit(1)
}
