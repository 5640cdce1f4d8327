import Foundation
import LLVSTesting
import Testing

/// `llvs-server` as a process: served with its defaults (an embedded SQLite database and a
/// generated token), and as two processes over one PostgreSQL database serving one store.
@Suite struct ServerProcessTests {
    static let token = "server-process-token-0123456789"

    /// Starts `llvs-server` with `arguments` and returns it with its base URL. The wait for
    /// it runs off the cooperative pool: a server on PostgreSQL may wait for a schema lock
    /// that a storage of this test process holds, and needs a pool thread to release.
    static func startServer(_ server: ToolRunner, _ arguments: [String]) async throws -> (BackgroundTool, String) {
        let process = try BackgroundTool(server, ["--port", "0"] + arguments)
        let lines = try await offCooperativePool { try process.lines(atLeast: 1) }
        let listening = try #require(lines.first { $0.hasPrefix("llvs-server listening on ") }, "output: \(lines)")
        let url = try #require(listening.split(separator: " ").first { $0.hasPrefix("http://") }.map(String.init))
        return (process, url)
    }

    @Test func withNoOptionsItServesSQLiteWithAGeneratedToken() async throws {
        let scratch = try ScratchDirectory()
        var server = try ToolRunner("llvs-server")
        server.environment["LLVS_SERVER_TOKENS"] = nil
        let (process, base) = try await Self.startServer(server, ["--data-directory", scratch.path("data")])
        struct TokenFile: Decodable { var stores: [String: [String]] }
        let tokenFile = try JSONDecoder().decode(TokenFile.self, from: Data(contentsOf: URL(fileURLWithPath: scratch.path("data/tokens.json"))))
        let token = try #require(tokenFile.stores["*"]?.first, "tokens.json: \(tokenFile)")
        #expect(process.stdout.contains("Access token for every store: \(token)"), "stdout: \(process.stdout), stderr: \(process.stderr)")
        #expect(FileManager.default.fileExists(atPath: scratch.path("data/server.sqlite")))

        let llvs = try ToolRunner("llvs")
        let a = ["--store", scratch.path("a")], b = ["--store", scratch.path("b")]
        try llvs.succeed(["init"] + a)
        try llvs.succeed(["init", "--storage", "sqlite"] + b)
        try llvs.succeed(["put", "note", "through the server"] + a)
        #expect(try llvs.succeed(["push", "\(base)/v1/stores/notes", "--token", token, "--json"] + a).object()["sent"] as? Int == 1)
        #expect(try llvs.succeed(["pull", "\(base)/v1/stores/notes", "--token", token, "--json"] + b).object()["retrieved"] as? Int == 1)
        #expect(try llvs.succeed(["get", "note"] + b).text == "through the server")
        #expect(process.stop(), "SIGTERM stops the server")

        // Restarted on the same data, it keeps the stores and the token.
        let (again, base2) = try await Self.startServer(server, ["--data-directory", scratch.path("data")])
        #expect(try llvs.succeed(["pull", "\(base2)/v1/stores/notes", "--token", token, "--json"] + b).object()["retrieved"] as? Int == 0)
        #expect(again.stop())
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["LLVS_TEST_POSTGRES_URL"] != nil))
    func twoServerProcessesOverOnePostgreSQLDatabaseServeOneStore() async throws {
        let database = try #require(ProcessInfo.processInfo.environment["LLVS_TEST_POSTGRES_URL"])
        let scratch = try ScratchDirectory()
        var server = try ToolRunner("llvs-server")
        server.environment["LLVS_SERVER_TOKENS"] = "*=\(Self.token)"
        let (first, baseA) = try await Self.startServer(server, ["--database", database, "--data-directory", scratch.path("a-data")])
        let (second, baseB) = try await Self.startServer(server, ["--database", database, "--data-directory", scratch.path("b-data")])
        let store = "processes-\(UUID().uuidString.prefix(8))"
        let urlA = "\(baseA)/v1/stores/\(store)", urlB = "\(baseB)/v1/stores/\(store)"

        var llvs = try ToolRunner("llvs")
        llvs.environment["LLVS_TOKEN"] = Self.token
        let replicas = (0..<3).map { ["--store", scratch.path("r\($0)")] }
        for (index, replica) in replicas.enumerated() {
            try llvs.succeed(["init"] + replica)
            try llvs.succeed(["put", "from-\(index)", "value \(index)"] + replica)
        }
        // Replicas sync through either server, in turns, until all hold everything.
        for round in 0..<2 {
            for (index, replica) in replicas.enumerated() {
                let url = (index + round).isMultiple(of: 2) ? urlA : urlB
                try llvs.succeed(["sync", url, "--arbiter", "most-recent-change"] + replica)
            }
        }
        for replica in replicas {
            try llvs.succeed(["pull", urlB] + replica)
            try llvs.succeed(["merge", "--arbiter", "most-recent-change"] + replica)
            for index in 0..<3 { #expect(try llvs.succeed(["get", "from-\(index)"] + replica).text == "value \(index)") }
        }
        let heads = try replicas.map { try llvs.succeed(["heads", "--json"] + $0).array().compactMap { $0["id"] as? String } }
        #expect(heads.allSatisfy { $0 == heads[0] }, "every replica ends on the same head: \(heads)")
        #expect(first.stop() && second.stop())
    }
}
