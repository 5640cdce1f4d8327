import Foundation
import Testing

/// `llvs push`, `pull`, `sync` and `remote add` with `webdav+https://` and `webdav+http://`
/// folders on the WebDAV servers `Scripts/webdav` runs (Apache over TLS with the test CA,
/// rclone in clear), credentials from the environment or a netrc file, never the command line.
@Suite("llvs with WebDAV folders", .enabled(if: ProcessInfo.processInfo.environment["LLVS_TEST_WEBDAV_APACHE_HTTPS"] != nil))
struct WebDAVCommandTests {
    static let environment = ProcessInfo.processInfo.environment
    static let user = environment["LLVS_TEST_WEBDAV_USER"] ?? "llvs"
    static let password = environment["LLVS_TEST_WEBDAV_PASSWORD"] ?? ""

    /// The tool trusting the test CA, with `credentials` in its environment.
    func tool(_ credentials: [String: String]) throws -> ToolRunner {
        var llvs = try ToolRunner("llvs")
        llvs.environment = credentials.merging(["LLVS_CA_CERTIFICATES": Self.environment["LLVS_TEST_WEBDAV_CA"] ?? "",
                                                "LLVS_NETRC": "", "HOME": try ScratchDirectory().url.path]) { new, _ in new }
        return llvs
    }

    @Test func pushPullAndSyncThroughAWebDAVFolder() throws {
        let scratch = try ScratchDirectory()
        let base = try #require(Self.environment["LLVS_TEST_WEBDAV_APACHE_HTTPS"])
        let folder = "webdav+\(base)/cli-\(UUID().uuidString.prefix(8))"
        let llvs = try tool(["LLVS_WEBDAV_USER": Self.user, "LLVS_WEBDAV_PASSWORD": Self.password])
        let a = ["--store", scratch.path("a")], b = ["--store", scratch.path("b")]
        try llvs.succeed(["init"] + a)
        try llvs.succeed(["init"] + b)
        try llvs.succeed(["put", "greeting", "hello from a"] + a)
        let pushed = try llvs.succeed(["push", folder, "--json"] + a).object()
        #expect(pushed["sent"] as? Int == 1)
        try llvs.succeed(["remote", "add", "cloud", folder] + b)
        #expect(try llvs.succeed(["pull", "cloud", "--json"] + b).object()["retrieved"] as? Int == 1)
        #expect(try llvs.succeed(["get", "greeting"] + b).text == "hello from a")
        try llvs.succeed(["put", "colour", "blue"] + b)
        try llvs.succeed(["sync", "cloud"] + b)
        try llvs.succeed(["pull", folder] + a)
        #expect(try llvs.succeed(["get", "colour"] + a).text == "blue")
        // The remote is kept as written, credentials nowhere in the store directory.
        let remotes = try String(contentsOfFile: scratch.path("b") + "/remotes.json", encoding: .utf8)
        #expect(remotes.contains("webdav+https://") && !remotes.contains(Self.password))
    }

    /// A server whose certificate the tool does not trust: said in words, with the variable
    /// that trusts it, at once (no retries), and nothing pushed.
    @Test func anUntrustedCertificateNamesTheVariableThatTrustsIt() throws {
        let scratch = try ScratchDirectory()
        let base = try #require(Self.environment["LLVS_TEST_WEBDAV_APACHE_HTTPS"])
        var llvs = try tool(["LLVS_WEBDAV_USER": Self.user, "LLVS_WEBDAV_PASSWORD": Self.password])
        llvs.environment["LLVS_CA_CERTIFICATES"] = nil
        let store = ["--store", scratch.path("s")]
        try llvs.succeed(["init"] + store)
        try llvs.succeed(["put", "k", "v"] + store)
        let started = ContinuousClock.now
        let result = try llvs.run(["push", "webdav+\(base)/untrusted-\(UUID().uuidString.prefix(8))"] + store)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("TLS certificate is not trusted") && result.stderr.contains("LLVS_CA_CERTIFICATES"), "\(result.stderr)")
        #expect(!result.stderr.contains("BoringSSL") && !result.stderr.contains(".swift"), "\(result.stderr)")
        #expect(ContinuousClock.now - started < .seconds(20), "retried a certificate that cannot become trusted")
    }

    @Test func credentialsComeFromANetrcFileAndClearTextIsWarnedAbout() throws {
        let scratch = try ScratchDirectory()
        let base = try #require(Self.environment["LLVS_TEST_WEBDAV_RCLONE_HTTP"])
        let netrc = scratch.path("netrc")
        try Data("machine elsewhere.example login x password y\n\nmachine 127.0.0.1\n  login \(Self.user)\n  password \(Self.password)\n".utf8)
            .write(to: URL(fileURLWithPath: netrc))
        let llvs = try tool(["LLVS_NETRC": netrc])
        let a = ["--store", scratch.path("a")]
        try llvs.succeed(["init"] + a)
        try llvs.succeed(["put", "k", "v"] + a)
        let pushed = try llvs.succeed(["push", "webdav+\(base)/netrc-\(UUID().uuidString.prefix(8))"] + a)
        #expect(pushed.stderr.contains("travel in clear"), "stderr: \(pushed.stderr)")
    }

    @Test func credentialsOnTheCommandLineOrMissingAreRefused() throws {
        let scratch = try ScratchDirectory()
        let base = try #require(Self.environment["LLVS_TEST_WEBDAV_APACHE_HTTPS"])
        let a = ["--store", scratch.path("a")]
        let bare = try tool([:])
        try bare.succeed(["init"] + a)
        try bare.succeed(["put", "k", "v"] + a)
        let inURL = try bare.run(["push", base.replacingOccurrences(of: "https://", with: "webdav+https://llvs:secret@")] + a)
        #expect(inURL.status != 0 && inURL.stderr.contains("carries credentials"), "stderr: \(inURL.stderr)")
        let without = try bare.run(["push", "webdav+\(base)/none", "--retries", "0"] + a)
        #expect(without.status != 0 && without.stderr.contains("401"), "stderr: \(without.stderr)")
        let half = try tool(["LLVS_WEBDAV_USER": Self.user]).run(["push", "webdav+\(base)/half"] + a)
        #expect(half.status != 0 && half.stderr.contains("LLVS_WEBDAV_PASSWORD"), "stderr: \(half.stderr)")
        let token = try bare.run(["push", "webdav+\(base)/x", "--token", "abc"] + a)
        #expect(token.status != 0 && token.stderr.contains("--token is for store URLs"), "stderr: \(token.stderr)")
    }
}
