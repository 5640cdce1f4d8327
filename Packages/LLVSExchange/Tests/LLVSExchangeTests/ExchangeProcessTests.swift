import Foundation
import LLVSCore
import LLVSExchange
import LLVSStore
import LLVSTesting
import Testing

/// Real processes on one shared directory: concurrent senders lose nothing, and a sender
/// killed at a random instant leaves a directory every reader can use; the next send
/// completes the transfer. The sender is the `llvs-exchange-worker` executable built with
/// this package.
///
/// `LLVS_TRIALS` sets the number of killed senders (12 by default, for CI; `Scripts/trials`
/// runs many).
@Suite(.serialized) struct ExchangeProcessTests {
    static let kills = ProcessInfo.processInfo.environment["LLVS_TRIALS"].flatMap(Int.init).map { max(1, $0) } ?? 12

    static var workerURL: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("llvs-exchange-worker")
    }

    static func startWorker(store: URL, exchange: URL, name: String, count: Int, stepped: Pipe? = nil) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = workerURL
        process.arguments = [store.path, exchange.path, name, String(count)]
        let output = Pipe()
        process.standardOutput = output
        if let stepped {
            process.standardInput = stepped
            process.environment = ProcessInfo.processInfo.environment.merging(["LLVS_WORKER_STEPPED": "1"]) { _, new in new }
        }
        try process.run()
        return (process, output)
    }

    /// Lets a stepped worker (reading `output`, waiting on `steps`) go on after each batch
    /// it reports, until it reports batch `last`, which it is let go after too.
    static func releaseBatches(of output: Pipe, through steps: Pipe, upTo last: Int) {
        var buffer = ""
        while true {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { return }
            buffer += String(decoding: data, as: UTF8.self)
            while let newline = buffer.firstIndex(of: "\n") {
                let line = buffer[..<newline]
                buffer.removeSubrange(...newline)
                guard line.hasPrefix("sent "), let sent = Int(line.dropFirst(5)), sent > 0 else { continue }
                steps.fileHandleForWriting.write(Data("go\n".utf8))
                if sent >= last { return }
            }
        }
    }

    /// The `.tmp-*` files anywhere under `root`.
    static func temporaryFiles(in root: URL) -> [String] {
        (FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? [])
            .filter { ($0 as NSString).lastPathComponent.hasPrefix(".tmp-") }
            .map { root.appendingPathComponent($0).path }
    }

    @Test func concurrentSenderProcessesLoseNothing() async throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.workerURL.path), "build the package first: \(Self.workerURL.path)")
        let shared = try makeSharedDirectory()
        let stores = try (0..<4).map { _ in try TemporaryDirectory(prefix: "llvs-exchange-worker") }
        let workers = try stores.enumerated().map { try Self.startWorker(store: $1.url, exchange: shared.url, name: "w\($0)", count: 30) }
        for (process, output) in workers {
            _ = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
        }
        let reader = try Replica("reader")
        #expect(try await FileSystemExchange(rootDirectoryURL: shared.url, store: reader.store).retrieve().count == 120)
        for index in 0..<4 {
            let heads = reader.store.queryHistory { $0.headIdentifiers }
            let found = try heads.contains { try reader.store.value(idString: "w\(index)-29", at: $0) != nil }
            #expect(found, "worker \(index)'s last value arrived")
        }
    }

    @Test func sendersKilledMidTransferLeaveAUsableDirectory() async throws {
        var generator = SystemRandomNumberGenerator()
        let kills = Self.kills
        var interrupted = 0
        var leftTemporaryFiles = 0
        for round in 0..<kills {
            let shared = try makeSharedDirectory()
            let storeDirectory = try TemporaryDirectory(prefix: "llvs-exchange-killed")
            // The worker waits after each batch until told to go on: after a random batch it
            // is let go once more and killed at a random instant of the next batches, so the
            // kill lands mid-transfer however slowly this test is scheduled (a timed kill
            // alone missed the transfer on a busy machine).
            let steps = Pipe()
            let (process, output) = try Self.startWorker(store: storeDirectory.url, exchange: shared.url, name: "k\(round)", count: 60,
                                                         stepped: steps)
            let killedAfter = Int.random(in: 1...50, using: &generator)
            Self.releaseBatches(of: output, through: steps, upTo: killedAfter)
            try await Task.sleep(for: .microseconds(Int.random(in: 0...3_000, using: &generator)))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()

            // Whatever the instant, a reader retrieves a consistent prefix without error.
            let source = try Store(rootDirectoryURL: storeDirectory.url)
            let early = try Replica("early")
            let partial = try await FileSystemExchange(rootDirectoryURL: shared.url, store: early.store).retrieve()
            #expect(partial.count <= 60)
            if partial.count < 60 { interrupted += 1 }
            for id in partial {
                #expect(try early.store.valueReferences(at: id) == source.valueReferences(at: id), "round \(round): version \(id)")
            }

            // Temporary files the kill left (when it landed mid-write) are an hour old, as
            // far as the next sender can tell, which removes them.
            let leftovers = Self.temporaryFiles(in: shared.url)
            leftTemporaryFiles += leftovers.count
            for path in leftovers {
                try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -7_200)], ofItemAtPath: path)
            }

            // A new sender process completes the transfer.
            let (resumed, resumedOutput) = try Self.startWorker(store: storeDirectory.url, exchange: shared.url, name: "k\(round)", count: 60)
            _ = resumedOutput.fileHandleForReading.readDataToEndOfFile()
            resumed.waitUntilExit()
            #expect(resumed.terminationStatus == 0)
            #expect(Self.temporaryFiles(in: shared.url).isEmpty, "round \(round): the next sender removed the stale temporary files")
            let complete = try await FileSystemExchange(rootDirectoryURL: shared.url, store: early.store).retrieve()
            #expect(partial.count + complete.count == 60, "round \(round): \(partial.count) then \(complete.count)")
            #expect(early.versionIds == source.queryHistory { Set($0.allVersionIdentifiers) })
            // The receiver verifies intact and reopens with everything; so does the sender's
            // store, which the kill interrupted mid-send.
            let report = early.store.verify()
            #expect(report.isIntact, "round \(round): \(report.problems)")
            #expect(try Store(rootDirectoryURL: early.directory.url).queryHistory { $0.count } == 60)
            #expect(source.verify().isIntact, "round \(round)")
        }
        print("\(interrupted) of \(kills) senders were killed before the transfer finished; "
              + "they left \(leftTemporaryFiles) temporary files, all removed by the next sender")
        #expect(interrupted == kills, "every kill lands before the transfer's end (the worker waits after batch 51 at the latest)")
    }
}
