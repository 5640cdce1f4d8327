import Foundation
import LLVSTesting
import Testing
@testable import LLVSStore

/// Real processes on one store directory: concurrent writers lose nothing, and a writer
/// killed at any instant leaves a store that opens with every version whose makeVersion
/// returned and verifies intact. The writer is the `llvs-store-worker` executable built
/// with this package.
///
/// `LLVS_TRIALS` sets the number of trials (`Scripts/trials` runs many): the kills of each
/// crash test (25 on the file backend and 50 on SQLite by default, for CI), and a tenth of
/// it the rounds of four concurrent writers (one by default), each round on a fresh store.
@Suite(.serialized) struct ProcessTests {
    /// `LLVS_TRIALS`, or `ciCount` when it is not set.
    static func trials(_ ciCount: Int) -> Int {
        ProcessInfo.processInfo.environment["LLVS_TRIALS"].flatMap(Int.init).map { max(1, $0) } ?? ciCount
    }

    static var workerURL: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("llvs-store-worker")
    }

    /// Starts a worker; returns the process and the pipe carrying its output.
    static func startWorker(store: URL, name: String, count: Int, backend: Backend = .file) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = workerURL
        process.arguments = [store.path, name, String(count), backend.rawValue]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        return (process, output)
    }

    /// The `(version, value id)` lines a worker printed.
    static func committed(_ output: Pipe) -> [(Version.ID, String)] {
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            return parts.count == 2 ? (Version.ID(String(parts[0])), String(parts[1])) : nil
        }
    }

    @Test(arguments: [Backend.file, .sqlite])
    func concurrentWriterProcessesLoseNothing(backend: Backend) throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.workerURL.path), "build the package first: \(Self.workerURL.path)")
        let rounds = max(1, Self.trials(10) / 10)
        defer { print("\(backend): \(rounds) rounds of 4 writer processes, 160 versions each, every round verified") }
        for round in 0..<rounds {
            let directory = try TemporaryDirectory()
            let workers = try (0..<4).map { try Self.startWorker(store: directory.url, name: "w\($0)", count: 40, backend: backend) }
            var printed: [(Version.ID, String)] = []
            for (process, output) in workers {
                printed += Self.committed(output)
                process.waitUntilExit()
                #expect(process.terminationStatus == 0, "round \(round)")
            }
            #expect(printed.count == 160, "round \(round)")
            let store = try Store(rootDirectoryURL: directory.url, storage: backend.makeStorage())
            #expect(store.queryHistory { $0.count } == 160, "round \(round)")
            for (version, valueId) in printed {
                #expect(try store.text(valueId, at: version) == valueId, "round \(round): value \(valueId) at \(version)")
            }
            // Each worker built on the heads it saw, so its own values accumulate along its line.
            let newest = try #require(store.mostRecentHead)
            #expect(try store.valueCount(at: newest.id) >= 40)
            let report = store.verify()
            #expect(report.isIntact, "round \(round): \(report.problems)")
        }
    }

    /// 25 kills on the file backend, 50 on SQLite by default (a writer killed
    /// mid-transaction must leave a database that opens with every committed version).
    @Test(arguments: [Backend.file, .sqlite])
    func writersKilledAtAnyInstantLeaveAConsistentStore(backend: Backend) throws {
        let directory = try TemporaryDirectory()
        var survivors: [(Version.ID, String)] = []
        var generator = SystemRandomNumberGenerator()
        let kills = Self.trials(backend == .sqlite ? 50 : 25)
        for round in 0..<kills {
            let (process, output) = try Self.startWorker(store: directory.url, name: "r\(round)", count: 0, backend: backend)
            Thread.sleep(forTimeInterval: Double.random(in: 0.02...0.15, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal)
            let reported = Self.committed(output)
            survivors += reported
            // The store opens, and every version this killed writer reported is there
            // (the earlier rounds' are checked once more at the end).
            let store = try Store(rootDirectoryURL: directory.url, storage: backend.makeStorage())
            for (version, valueId) in reported {
                #expect(try store.text(valueId, at: version) == valueId, "round \(round): value \(valueId) at \(version)")
            }
        }
        // Every version the store shows is readable: each value the writers reported, and
        // every value of the heads and of every 25th version (each version holds all the
        // values before it, so checking them all would be quadratic).
        let store = try Store(rootDirectoryURL: directory.url, storage: backend.makeStorage())
        let versions = store.queryHistory { Array($0) }
        #expect(versions.count >= survivors.count)
        for (version, valueId) in survivors {
            #expect(try store.text(valueId, at: version) == valueId, "value \(valueId) at \(version)")
        }
        let heads = store.queryHistory { $0.headIdentifiers }
        for (index, version) in versions.enumerated() where index % 25 == 0 || heads.contains(version.id) {
            for reference in try store.valueReferences(at: version.id) {
                #expect(try store.value(storedAt: reference) != nil, "\(reference.valueId) at \(version.id)")
            }
        }
        // And the store's own check finds nothing wrong.
        let clock = ContinuousClock()
        let started = clock.now
        let report = store.verify()
        #expect(report.isIntact, "\(report.problems)")
        print("\(backend): \(kills) writers killed, \(survivors.count) acknowledged versions kept, \(versions.count) in the store, "
              + "verified intact: \(report.isIntact) (in \(clock.now - started))")
    }
}
