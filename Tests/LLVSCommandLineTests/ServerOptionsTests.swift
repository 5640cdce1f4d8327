import Foundation
import Testing

/// `llvs-server`'s version and the options of its limits, as a process.
@Suite struct ServerOptionsTests {
    @Test func versionIsPrinted() throws {
        let result = try ToolRunner("llvs-server").succeed(["--version"])
        #expect(result.text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").count == 3, "stdout: \(result.text)")
    }

    @Test func limitOptionsAreChecked() throws {
        let server = try ToolRunner("llvs-server")
        let refused: [[String]] = [
            ["--tls-certificate", "cert.pem"],
            ["--max-body-bytes", "2000000", "--max-concurrent-body-bytes", "1000000"],
            ["--idle-timeout", "0"],
            ["--max-connections", "0"],
            ["--metrics-token", "short"],
        ]
        for arguments in refused {
            let result = try server.run(arguments)
            #expect(result.status == 64, "\(arguments): status \(result.status), stderr: \(result.stderr)")
        }
    }

    @Test func pushAndPullOverTLSWithATrustedSelfSignedCertificate() throws {
        let scratch = try ScratchDirectory()
        let certificate = scratch.path("cert.pem"), key = scratch.path("key.pem")
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        openssl.arguments = ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                             "-keyout", key, "-out", certificate, "-days", "2", "-subj", "/CN=localhost",
                             "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"]
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        try #require(openssl.terminationStatus == 0, "openssl req failed")

        let token = "server-tls-token-0123456789abcdef"
        var server = try ToolRunner("llvs-server")
        server.environment["LLVS_SERVER_TOKENS"] = "*=\(token)"
        let process = try BackgroundTool(server, ["--port", "0", "--data-directory", scratch.path("data"),
                                                  "--tls-certificate", certificate, "--tls-key", key])
        let lines = try process.lines(atLeast: 1)
        let listening = try #require(lines.first { $0.hasPrefix("llvs-server listening on https://") }, "output: \(lines)")
        let base = try #require(listening.split(separator: " ").first { $0.hasPrefix("https://") }.map(String.init))

        var llvs = try ToolRunner("llvs")
        llvs.environment["LLVS_TOKEN"] = token
        let a = ["--store", scratch.path("a")], b = ["--store", scratch.path("b")]
        try llvs.succeed(["init"] + a)
        try llvs.succeed(["init"] + b)
        try llvs.succeed(["put", "note", "over https"] + a)
        // A certificate nobody trusts: said in words, with what to do, at once (no retries).
        let started = ContinuousClock.now
        let untrusted = try llvs.run(["push", "\(base)/v1/stores/notes"] + a)
        #expect(untrusted.status == 1, "a certificate nobody trusts: \(untrusted.stderr)")
        #expect(untrusted.stderr.contains("TLS certificate is not trusted"), "\(untrusted.stderr)")
        #expect(untrusted.stderr.contains("LLVS_CA_CERTIFICATES"), "\(untrusted.stderr)")
        for leaked in ["BoringSSL", "handshakeFailed", ".swift", "is the server running"] {
            #expect(!untrusted.stderr.contains(leaked), "\(leaked) in: \(untrusted.stderr)")
        }
        #expect(ContinuousClock.now - started < .seconds(20), "retried a certificate that cannot become trusted")
        llvs.environment["LLVS_CA_CERTIFICATES"] = certificate
        #expect(try llvs.succeed(["push", "\(base)/v1/stores/notes", "--json"] + a).object()["sent"] as? Int == 1)
        #expect(try llvs.succeed(["pull", "\(base)/v1/stores/notes", "--json"] + b).object()["retrieved"] as? Int == 1)
        #expect(try llvs.succeed(["get", "note"] + b).text == "over https")
        #expect(process.stop(), "SIGTERM stops the server")
    }

    /// A server that cannot be reached is said in words, without the type names and source
    /// paths of the network library's errors.
    @Test func unreachableServersAreSaidInWords() throws {
        let scratch = try ScratchDirectory()
        let llvs = try ToolRunner("llvs")
        let store = ["--store", scratch.path("s")]
        try llvs.succeed(["init"] + store)
        try llvs.succeed(["put", "k", "v"] + store)
        for (url, expected) in [("http://127.0.0.1:9/v1/stores/notes", "connection refused"),
                                ("http://no-such-host.invalid/v1/stores/notes", "does not resolve")] {
            let result = try llvs.run(["push", url, "--retries", "0"] + store)
            #expect(result.status == 1, "\(url): \(result.stderr)")
            #expect(result.stderr.contains(expected), "\(url): \(result.stderr)")
            for leaked in ["NIOConnectionError", "IOError", "errorCode", ".swift"] {
                #expect(!result.stderr.contains(leaked), "\(leaked) in: \(result.stderr)")
            }
        }
    }

    @Test func anUnreadableCertificateStopsTheServer() throws {
        let scratch = try ScratchDirectory()
        try Data("not a certificate".utf8).write(to: URL(fileURLWithPath: scratch.path("cert.pem")))
        try Data("not a key".utf8).write(to: URL(fileURLWithPath: scratch.path("key.pem")))
        var server = try ToolRunner("llvs-server")
        server.environment["LLVS_SERVER_TOKENS"] = "*=server-options-token-0123456789"
        let result = try server.run(["--port", "0", "--data-directory", scratch.path("data"),
                                     "--tls-certificate", scratch.path("cert.pem"), "--tls-key", scratch.path("key.pem")])
        #expect(result.status != 0)
        #expect(result.stderr.contains("Cannot use \(scratch.path("cert.pem")) for TLS"), "stderr: \(result.stderr)")
    }
}
