import Foundation
import LLVSCore
import LLVSExchange
import LLVSHTTPExchange
import LLVSStore
import LLVSSupport
import LLVSSyncProtocol
import LLVSSyncStorage
import LLVSTesting
import Testing

/// Clients killed mid-push and servers restarted mid-sync: the server never holds a
/// partial version or a duplicate, and the next exchange completes the transfer.
@Suite("Interrupted pushes and server restarts", .serialized)
struct InterruptionTests {
    static var workerURL: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("llvs-http-worker")
    }

    static func startWorker(store: URL, storeURL: URL, count: Int) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = workerURL
        process.arguments = [store.path, storeURL.absoluteString, testToken, String(count)]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        return (process, output)
    }

    /// Reads lines from `pipe` until one satisfies `done` (or the pipe closes).
    static func waitForLine(_ pipe: Pipe, where done: (String) -> Bool) {
        var buffer = ""
        while true {
            let data = pipe.fileHandleForReading.availableData
            if data.isEmpty { return }
            buffer += String(decoding: data, as: UTF8.self)
            if buffer.split(separator: "\n").contains(where: { done(String($0)) }) { return }
        }
    }

    @Test("A client killed mid-push leaves only whole versions; its retry adds the rest once", arguments: StorageKind.available)
    func killedPush(kind: StorageKind) async throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.workerURL.path), "build the package first: \(Self.workerURL.path)")
        let directory = try TemporaryDirectory(prefix: "llvs-http-kill")
        let server = try await RunningServer(storage: try await makeStorage(kind, in: directory))
        defer { Task { await server.stop() } }
        var generator = SystemRandomNumberGenerator()
        var interrupted = 0
        let rounds = 6, count = 80
        for round in 0..<rounds {
            let name = uniqueStoreName("kill")
            let storeDirectory = try TemporaryDirectory(prefix: "llvs-http-worker")
            let (process, output) = try Self.startWorker(store: storeDirectory.url, storeURL: server.storeURL(name), count: count)
            // The waits block, so they run off the cooperative pool, where the server that
            // the worker pushes to answers it.
            try await offCooperativePool { Self.waitForLine(output) { $0.hasPrefix("sent ") && $0 != "sent 0" } }
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...30, using: &generator)))
            kill(process.processIdentifier, SIGKILL)
            try await offCooperativePool { process.waitUntilExit() }

            // Every version the server lists is whole: its record and changes are there,
            // and a reader adds it without error.
            let source = try Store(rootDirectoryURL: storeDirectory.url)
            let reader = try Client("reader")
            let partial = try await reader.exchange(server.storeURL(name)).retrieve()
            if partial.count < count { interrupted += 1 }
            for id in partial {
                #expect(try reader.store.valueReferences(at: id) == source.valueReferences(at: id), "round \(round): version \(id)")
            }

            // The retry completes the push; nothing is stored twice.
            let (resumed, resumedOutput) = try Self.startWorker(store: storeDirectory.url, storeURL: server.storeURL(name), count: count)
            try await offCooperativePool {
                _ = resumedOutput.fileHandleForReading.readDataToEndOfFile()
                resumed.waitUntilExit()
            }
            #expect(resumed.terminationStatus == 0)
            let listed = try await server.storage.listVersions(in: name, after: nil, limit: 10_000).versionIds
            #expect(listed.count == count && Set(listed).count == count, "round \(round): \(listed.count) listed")
            let rest = try await reader.exchange(server.storeURL(name)).retrieve()
            #expect(partial.count + rest.count == count)
        }
        print("\(interrupted) of \(rounds) pushes were killed before they finished")
        #expect(interrupted >= rounds / 2, "the kills must land mid-push to test anything")
    }

    @Test("A server restarted mid-sync: the client retries and the transfer completes", arguments: StorageKind.available)
    func restartedServer(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory(prefix: "llvs-http-restart")
        let storage = try await makeStorage(kind, in: directory)
        let first = try await RunningServer(storage: storage)
        let port = first.port
        let name = uniqueStoreName("restart")
        let source = try Client("source")
        try source.saveMany(120, valueBytes: 2_000)
        // Patient retries: the server is down for about a second.
        let patience = HTTPRetryPolicy(maximumAttempts: 30, initialDelay: .milliseconds(50), maximumDelay: .milliseconds(400))
        let pusher = try source.exchange(first.storeURL(name), retry: patience, batchBytes: 4_000)

        let restarted = Locked(false)
        let restarter = Task {
            try await Task.sleep(for: .milliseconds(150))
            await first.stop()
            try await Task.sleep(for: .milliseconds(800))
            let second = try await RunningServer(storage: storage, port: port)
            restarted.withLock { $0 = true }
            return second
        }
        let sent = try await pusher.send()
        let second = try await restarter.value
        defer { Task { await second.stop() } }
        #expect(restarted.withLock { $0 })
        #expect(sent.count == 120)

        let listed = try await storage.listVersions(in: name, after: nil, limit: 10_000).versionIds
        #expect(listed.count == 120 && Set(listed) == source.versionIds)

        // A pull interrupted the same way completes too.
        let target = try Client("target")
        let puller = try target.exchange(second.storeURL(name), retry: patience, batchBytes: 4_000)
        let stopper = Task {
            try await Task.sleep(for: .milliseconds(100))
            await second.stop()
            try await Task.sleep(for: .milliseconds(600))
            return try await RunningServer(storage: storage, port: port)
        }
        let retrieved = try await puller.retrieve()
        let third = try await stopper.value
        defer { Task { await third.stop() } }
        #expect(retrieved.count + (try await puller.retrieve()).count == 120)
        #expect(target.versionIds == source.versionIds)
    }
}
