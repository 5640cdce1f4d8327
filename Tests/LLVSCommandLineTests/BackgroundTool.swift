import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A tool started in the background (a server), whose output is read while it runs.
/// Terminated when released, so a failing test leaves no process behind. Its state is set
/// once (the process runs on its own), so tasks may share it.
final class BackgroundTool: @unchecked Sendable {
    let process: Process
    private let outputs: ScratchDirectory
    private var stdoutURL: URL { outputs.url.appendingPathComponent("stdout") }
    private var stderrURL: URL { outputs.url.appendingPathComponent("stderr") }

    /// Starts `tool` with `arguments`; stdout and stderr go to files.
    init(_ tool: ToolRunner, _ arguments: [String]) throws {
        process = tool.makeProcess(arguments)
        outputs = try ScratchDirectory()
        for url in [stdoutURL, stderrURL] { _ = FileManager.default.createFile(atPath: url.path, contents: nil) }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// What the tool printed on stdout so far.
    var stdout: String { String(decoding: (try? Data(contentsOf: stdoutURL)) ?? Data(), as: UTF8.self) }

    /// What the tool printed on stderr so far.
    var stderr: String { String(decoding: (try? Data(contentsOf: stderrURL)) ?? Data(), as: UTF8.self) }

    /// Why waiting for output failed; the test reports the description.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The stdout lines once there are at least `count` complete ones, waiting up to `timeout`.
    func lines(atLeast count: Int, timeout: Duration = .seconds(20)) throws -> [String] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let lines = stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
            if lines.count >= count { return lines }
            guard process.isRunning, ContinuousClock.now < deadline else {
                throw Failure(description: "expected \(count) line(s) on stdout; got \(stdout.debugDescription), stderr: \(stderr)")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// Sends `signal` and waits up to `timeout` for the process to end; returns whether it did.
    func stop(signal: Int32 = SIGTERM, timeout: Duration = .seconds(10)) -> Bool {
        kill(process.processIdentifier, signal)
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.02) }
        guard !process.isRunning else { return false }
        process.waitUntilExit()
        return true
    }
}
