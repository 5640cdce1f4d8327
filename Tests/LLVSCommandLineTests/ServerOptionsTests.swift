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
