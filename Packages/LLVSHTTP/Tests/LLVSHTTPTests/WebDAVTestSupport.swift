import AsyncHTTPClient
import Foundation
import LLVSExchange
import LLVSHTTPExchange
import LLVSStore
import LLVSWebDAV
import Testing

/// A WebDAV server `Scripts/webdav start` runs on loopback, named by the environment.
struct WebDAVServer: Sendable, CustomTestStringConvertible {
    /// Which server: `apache-https`, `apache-http`, `rclone-https`, `rclone-http`.
    let name: String
    /// The folder the tests make their folders in.
    let url: URL

    var testDescription: String { name }

    static let environment = ProcessInfo.processInfo.environment
    static let user = environment["LLVS_TEST_WEBDAV_USER"] ?? "llvs"
    static let password = environment["LLVS_TEST_WEBDAV_PASSWORD"] ?? ""
    /// The test CA the TLS servers' certificates are signed by.
    static let certificateAuthority = environment["LLVS_TEST_WEBDAV_CA"]

    /// The servers the environment names (CI names all four; `WebDAVAvailabilityTests`
    /// fails in CI otherwise).
    static let available: [WebDAVServer] = [
        ("apache-https", "LLVS_TEST_WEBDAV_APACHE_HTTPS"), ("apache-http", "LLVS_TEST_WEBDAV_APACHE_HTTP"),
        ("rclone-https", "LLVS_TEST_WEBDAV_RCLONE_HTTPS"), ("rclone-http", "LLVS_TEST_WEBDAV_RCLONE_HTTP"),
    ].compactMap { name, variable in environment[variable].flatMap(URL.init(string:)).map { WebDAVServer(name: name, url: $0) } }

    /// The TLS servers, Apache's and rclone's.
    static var overTLS: [WebDAVServer] { available.filter { $0.url.scheme == "https" } }
    /// Apache over TLS (or the first server there is).
    static var apache: [WebDAVServer] { Array(available.filter { $0.name == "apache-https" }.prefix(1)) }

    /// A client trusting the test CA.
    static func client() throws -> HTTPClient {
        guard let certificateAuthority else { return HTTPExchange.defaultHTTPClient }
        return try HTTPExchange.sharedHTTPClient(trustingCertificatesIn: URL(fileURLWithPath: certificateAuthority))
    }

    /// A new folder URL under the server's, named `name` and a random suffix.
    func folder(_ name: String) -> URL {
        url.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8))")
    }

    /// An exchange between `store` and the folder at `url`, retrying and polling quickly.
    func exchange(_ url: URL, store: Store, format: FolderExchange.DirectoryFormat = .batches, batchBytes: Int = 5_000_000,
                  retry: HTTPRetryPolicy = HTTPRetryPolicy(maximumAttempts: 6, initialDelay: .milliseconds(50)),
                  polling: Duration = .milliseconds(200), maximumPolling: Duration = .milliseconds(800)) throws -> WebDAVExchange {
        try WebDAVExchange(url: url, store: store, authorization: .basic(user: Self.user, password: Self.password),
                           httpClient: try Self.client(), retryPolicy: retry, pollingInterval: polling, maximumPollingInterval: maximumPolling,
                           maximumBatchByteCount: batchBytes, newDirectoryFormat: format)
    }
}
