import Foundation
import LLVS

/// W5's fresh opening: a process of its own (this executable with `--open-only`) opens a
/// store and reports what it took, so that the peak memory is that of opening alone.
enum OpeningProcess {
    /// What the opening process reports.
    struct Outcome: Codable {
        var versions: Int
        var milliseconds: Double
        var peakResidentBytes: Int
    }

    /// Opens the store at `path` in this process and prints the ``Outcome`` as JSON.
    static func openAndReport(path: String, backend: String) throws {
        let storage: any Storage
        switch backend {
        case "file": storage = FileStorage()
        case "sqlite": storage = SQLiteStorage()
        default: throw BenchmarkError.unsupportedBackend(backend)
        }
        var store: Store?
        let time = try milliseconds { store = try Store(rootDirectoryURL: URL(fileURLWithPath: path), storage: storage) }
        let versions = store?.queryHistory { $0.count } ?? 0
        let outcome = Outcome(versions: versions, milliseconds: time, peakResidentBytes: peakResidentBytes())
        print(String(decoding: try JSONEncoder().encode(outcome), as: UTF8.self))
    }

    /// Runs this executable with `--open-only path --backend backend` and reads its outcome.
    static func run(path: String, backend: String) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["--open-only", path, "--backend", backend]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkError.wrongResult("the opening process exited with status \(process.terminationStatus)")
        }
        return try JSONDecoder().decode(Outcome.self, from: data)
    }
}
