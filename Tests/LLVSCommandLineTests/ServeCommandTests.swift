import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `llvs serve` through the built binary: one store served over HTTP, another pushing,
/// pulling and syncing with it by URL while the served store stays usable.
@Suite struct ServeCommandTests {
    /// A token long enough for the server (16 characters at least).
    static let token = "serve-test-token-0123456789"

    /// Push, pull and sync by URL move values both ways; a wrong token gets 401; SIGTERM stops the server.
    @Test func aServedStoreExchangesWithAnotherByURL() throws {
        let scratch = try ScratchDirectory()
        let llvs = try ToolRunner("llvs")
        let a = ["--store", scratch.path("a")], b = ["--store", scratch.path("b")]
        try llvs.succeed(["init"] + a)
        try llvs.succeed(["put", "greeting", "hello from a"] + a)
        try llvs.succeed(["init"] + b)

        // The server announces its URL, with the real port, and the token.
        let server = try BackgroundTool(llvs, ["serve", "--port", "0", "--token", Self.token] + a)
        let announcement = try server.lines(atLeast: 2)
        let prefix = "Serving \(scratch.path("a")) at "
        let serving = try #require(announcement.first { $0.hasPrefix(prefix) }, "announcement: \(announcement)")
        let url = String(serving.dropFirst(prefix.count))
        #expect(url.hasPrefix("http://127.0.0.1:") && url.hasSuffix("/v1/stores/default"))
        #expect(!url.contains(":0/"), "the bound port is printed, not 0")
        #expect(announcement.contains("Token: \(Self.token)"))

        // B pulls A's version with --token, then pushes its own with LLVS_TOKEN.
        let pulled = try llvs.succeed(["pull", url, "--token", Self.token, "--json"] + b).object()
        #expect(pulled["retrieved"] as? Int == 1)
        #expect(try llvs.succeed(["get", "greeting"] + b).text == "hello from a")
        try llvs.succeed(["put", "colour", "blue"] + b)
        var withToken = llvs
        withToken.environment["LLVS_TOKEN"] = Self.token
        #expect(try withToken.succeed(["push", url + "/", "--json"] + b).object()["sent"] as? Int == 1)

        // The served store is not locked: other commands work on it while it serves.
        #expect(try llvs.succeed(["merge", "--json"] + a).object()["result"] as? String == "fastForward")
        #expect(try llvs.succeed(["get", "colour"] + a).text == "blue")
        try llvs.succeed(["put", "greeting", "hello again"] + a)

        // Concurrent edits on both sides: sync pulls A's, merges, and pushes B's and the merge.
        try llvs.succeed(["put", "size", "large"] + b)
        let synced = try withToken.succeed(["sync", url, "--json"] + b).object()
        #expect(synced["retrieved"] as? Int == 1)
        #expect(synced["sent"] as? Int == 2)
        #expect(try llvs.succeed(["get", "greeting"] + b).text == "hello again")
        try llvs.succeed(["merge"] + a)
        #expect(try llvs.succeed(["get", "size"] + a).text == "large")
        #expect(try llvs.succeed(["heads", "--json"] + a).array().first?["id"] as? String
                == llvs.succeed(["heads", "--json"] + b).array().first?["id"] as? String)

        // A wrong token is refused with 401, as text and as JSON.
        let refused = try llvs.run(["pull", url, "--token", "not-the-right-token-42"] + b)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("401"), "stderr: \(refused.stderr)")
        let refusedJSON = try llvs.run(["push", url, "--token", "not-the-right-token-42", "--json"] + b)
        #expect(refusedJSON.status == 1)
        let error = try #require(try JSONSerialization.jsonObject(with: Data(refusedJSON.stderr.utf8)) as? [String: Any])["error"] as? [String: Any]
        #expect(error?["code"] as? String == "unauthorized")
        #expect(try llvs.run(["pull", url] + b).status == 1, "no token at all")

        // SIGTERM shuts the server down cleanly.
        #expect(server.stop(signal: SIGTERM), "the server exits on SIGTERM")
        #expect(server.process.terminationReason == .exit && server.process.terminationStatus == 0, "stderr: \(server.stderr)")
    }

    /// With --json the announcement is one object; without a token one is generated.
    @Test func serveAnnouncesJSONAndGeneratesATokenWhenNoneIsGiven() throws {
        let scratch = try ScratchDirectory()
        let llvs = try ToolRunner("llvs")
        let a = ["--store", scratch.path("a")]
        try llvs.succeed(["init"] + a)
        try llvs.succeed(["put", "k", "v"] + a)

        let server = try BackgroundTool(llvs, ["serve", "--port", "0", "--name", "notes", "--json"] + a)
        _ = try server.lines(atLeast: 4)
        let announcement = try #require(try JSONSerialization.jsonObject(with: Data(server.stdout.utf8)) as? [String: Any])
        let url = try #require(announcement["url"] as? String)
        let token = try #require(announcement["token"] as? String)
        #expect(url.hasSuffix("/v1/stores/notes"))
        #expect(token.count == 64, "a generated token: \(token)")

        let b = ["--store", scratch.path("b")]
        try llvs.succeed(["init"] + b)
        try llvs.succeed(["pull", url, "--token", token] + b)
        #expect(try llvs.succeed(["get", "k"] + b).text == "v")
        #expect(server.stop(signal: SIGINT))
    }

    /// (`CommandLineScenarioTests` checks a URL that is not a store URL.)
    @Test func badURLsAndServeOptionsAreUsageErrors() throws {
        let scratch = try ScratchDirectory()
        let llvs = try ToolRunner("llvs")
        let store = ["--store", scratch.path("s")]
        try llvs.succeed(["init"] + store)

        #expect(try llvs.run(["pull", "ftp://example.com/v1/stores/notes"] + store).status == 64)
        #expect(try llvs.run(["pull", "http://example.com/v1/stores/.hidden"] + store).status == 64)
        #expect(try llvs.run(["push", scratch.path("shared"), "--token", Self.token] + store).status == 64, "--token is for URLs")
        #expect(try llvs.run(["serve", "--name", "no/slashes"] + store).status == 64)
        #expect(try llvs.run(["serve", "--port", "70000"] + store).status == 64)
        #expect(try llvs.run(["serve", "--token", "short"] + store).status == 64)
    }
}
