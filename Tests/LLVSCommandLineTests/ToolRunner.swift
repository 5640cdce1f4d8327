import Foundation
import Testing

/// Runs one of the package's executables (built beside the test bundle) as a child process.
struct ToolRunner {
    /// What a run printed and how it ended.
    struct Result {
        var status: Int32
        var stdout: Data
        var stderr: String
        var text: String { String(decoding: stdout, as: UTF8.self) }

        /// The stdout parsed as JSON.
        func json() throws -> Any {
            try JSONSerialization.jsonObject(with: stdout)
        }

        /// The stdout parsed as a JSON object.
        func object() throws -> [String: Any] {
            try #require(try json() as? [String: Any], "stdout is not a JSON object: \(text)")
        }

        /// The stdout parsed as a JSON array of objects.
        func array() throws -> [[String: Any]] {
            try #require(try json() as? [[String: Any]], "stdout is not a JSON array: \(text)")
        }
    }

    let executable: URL
    var environment: [String: String] = [:]
    var currentDirectory: URL?

    /// The executable `name` from the build directory the tests run from.
    init(_ name: String) throws {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [directory, directory.deletingLastPathComponent(), directory.deletingLastPathComponent().deletingLastPathComponent()]
            .map { $0.appendingPathComponent(name) }
        executable = try #require(candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) },
                                  "\(name) is not built next to the tests (looked in \(candidates.map(\.path)))")
    }

    /// The executable at `executable` (a program of the system, such as HAProxy).
    init(executable: URL) {
        self.executable = executable
    }

    /// Runs the tool with `arguments` and `input` on stdin, and waits for it.
    @discardableResult
    func run(_ arguments: [String], input: Data = Data()) throws -> Result {
        let process = makeProcess(arguments)
        // Output goes to files, so a child writing much never blocks on a full pipe.
        let outputs = try ScratchDirectory()
        let stdoutURL = outputs.url.appendingPathComponent("stdout"), stderrURL = outputs.url.appendingPathComponent("stderr")
        for url in [stdoutURL, stderrURL] { _ = FileManager.default.createFile(atPath: url.path, contents: nil) }
        let stdin = Pipe()
        process.standardInput = stdin
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        try process.run()
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: try Data(contentsOf: stdoutURL),
                      stderr: String(decoding: try Data(contentsOf: stderrURL), as: UTF8.self))
    }

    /// Runs the tool with `arguments` until its standard output has a whole line containing
    /// `needle`, then stops it; returns the output so far. Throws when the tool exits, or 60 s
    /// pass, before such a line.
    func firstLine(containing needle: String, _ arguments: [String]) throws -> String {
        let process = makeProcess(arguments)
        let outputs = try ScratchDirectory()
        let stdoutURL = outputs.url.appendingPathComponent("stdout")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
        let deadline = Date().addingTimeInterval(60)
        while true {
            let running = process.isRunning  // before reading, so the last output is read after an exit
            let text = String(decoding: try Data(contentsOf: stdoutURL), as: UTF8.self)
            if text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().contains(where: { $0.contains(needle) }) {
                return text
            }
            guard running, Date() < deadline else {
                throw ToolRunnerError.noSuchLine(needle: needle, output: text)
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// A process for the tool with `arguments`, in the test's environment without the
    /// variables that would change what the tool does, plus ``environment``.
    func makeProcess(_ arguments: [String]) -> Process {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        for name in ["LLVS_STORE", "LLVS_PROGRESS", "LLVS_TOKEN"] { environment[name] = nil }
        environment.merge(self.environment) { _, new in new }
        process.environment = environment
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        return process
    }

    /// Runs the tool and expects it to succeed.
    @discardableResult
    func succeed(_ arguments: [String], input: Data = Data(), sourceLocation: SourceLocation = #_sourceLocation) throws -> Result {
        let result = try run(arguments, input: input)
        #expect(result.status == 0, "\(executable.lastPathComponent) \(arguments.joined(separator: " ")) failed: \(result.stderr)",
                sourceLocation: sourceLocation)
        return result
    }
}

/// A fresh directory, removed when the test ends.
final class ScratchDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("llvs-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

/// Why ``ToolRunner/firstLine(containing:_:)`` found no line.
enum ToolRunnerError: Error, CustomStringConvertible {
    /// The tool exited, or the time ran out, before a line containing `needle`.
    case noSuchLine(needle: String, output: String)

    var description: String {
        switch self {
        case let .noSuchLine(needle, output): "no line containing \"\(needle)\" in the tool's output: \(output)"
        }
    }
}
