import Foundation
import LLVSTesting
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The sync server killed (`SIGKILL`) while a client pushes to it, on SQLite and on
/// PostgreSQL: after a restart on the same data, every version whose push the client saw
/// acknowledged is served, the store lists only versions it can provide (a pull of
/// everything succeeds), and the client's next push completes the transfer once.
///
/// `LLVS_TRIALS` sets the rounds per storage (2 by default, for CI; `Scripts/trials` runs
/// more).
@Suite(.serialized) struct ServerKillTrialTests {
    static let token = "server-kill-trial-token-0123456789"
    static let rounds = ProcessInfo.processInfo.environment["LLVS_TRIALS"].flatMap(Int.init).map { max(1, $0) } ?? 2
    static let versionCount = 120

    enum Backing: String, CaseIterable, CustomStringConvertible {
        case sqlite, postgresql
        var description: String { rawValue }
        var isAvailable: Bool {
            self == .sqlite || ProcessInfo.processInfo.environment["LLVS_TEST_POSTGRES_URL"] != nil
        }
        func arguments(dataDirectory: String) -> [String] {
            switch self {
            case .sqlite: ["--data-directory", dataDirectory]
            case .postgresql: ["--data-directory", dataDirectory, "--database", ProcessInfo.processInfo.environment["LLVS_TEST_POSTGRES_URL"] ?? ""]
            }
        }
    }

    /// The highest `sent <n>` a worker printed: the versions whose push was acknowledged.
    static func acknowledged(_ output: String) -> Int {
        output.split(separator: "\n").compactMap { $0.hasPrefix("sent ") ? Int($0.dropFirst(5)) : nil }.max() ?? 0
    }

    @Test(arguments: Backing.allCases.filter(\.isAvailable))
    func aServerKilledMidPushLosesNoAcknowledgedVersion(_ backing: Backing) async throws {
        let scratch = try ScratchDirectory()
        var server = try ToolRunner("llvs-server")
        server.environment["LLVS_SERVER_TOKENS"] = "*=\(Self.token)"
        let worker = try ToolRunner("llvs-http-worker")
        let llvs = try ToolRunner("llvs")
        let serverArguments = backing.arguments(dataDirectory: scratch.path("data"))
        var killedMidPush = 0
        for round in 0..<Self.rounds {
            let name = "kill-\(round)-\(UUID().uuidString.prefix(8))"
            let (running, base) = try await ServerProcessTests.startServer(server, serverArguments)
            let client = scratch.path("client-\(round)")
            let pusher = try BackgroundTool(worker, [client, "\(base)/v1/stores/\(name)", Self.token, String(Self.versionCount)])
            // Kill the server once the push has reached a random point well before its end.
            // The wait and the kill run on one thread off the cooperative pool: a loaded
            // pool (CI runs many suites at once) could otherwise resume this test only after
            // the push had finished, and the kill would land on an idle server.
            let killPoint = Int.random(in: 2...(Self.versionCount / 3))
            let killed = try await offCooperativePool {
                let deadline = ContinuousClock.now + .seconds(60)
                while Self.acknowledged(pusher.stdout) < killPoint, pusher.process.isRunning, ContinuousClock.now < deadline {
                    Thread.sleep(forTimeInterval: 0.002)
                }
                return running.stop(signal: SIGKILL)
            }
            #expect(killed)
            try await Task.sleep(for: .milliseconds(100))
            _ = pusher.stop(signal: SIGKILL)
            let acknowledged = Self.acknowledged(pusher.stdout)
            if acknowledged < Self.versionCount { killedMidPush += 1 }

            // Restarted on the same data: everything acknowledged is there, and whole.
            let (restarted, newBase) = try await ServerProcessTests.startServer(server, serverArguments)
            let url = "\(newBase)/v1/stores/\(name)"
            let reader = ["--store", scratch.path("reader-\(round)")]
            try llvs.succeed(["init"] + reader)
            let pulled = try llvs.succeed(["pull", url, "--token", Self.token, "--json"] + reader).object()["retrieved"] as? Int ?? -1
            #expect(pulled >= acknowledged, "round \(round): \(acknowledged) acknowledged, \(pulled) served after the restart")
            #expect(try llvs.succeed(["verify"] + reader).status == 0)

            // The client's next push completes the transfer, each version once.
            let resumed = try worker.run([client, url, Self.token, String(Self.versionCount)])
            #expect(resumed.status == 0, "round \(round): \(resumed.stderr)")
            let rest = try llvs.succeed(["pull", url, "--token", Self.token, "--json"] + reader).object()["retrieved"] as? Int ?? -1
            #expect(pulled + rest == Self.versionCount, "round \(round): \(pulled) + \(rest) versions pulled")
            #expect(restarted.stop())
        }
        print("ServerKillTrialTests \(backing): \(Self.rounds) rounds, \(killedMidPush) killed mid-push, no acknowledged version lost")
        #expect(killedMidPush >= 1, "the kills must land mid-push to test anything")
    }
}
