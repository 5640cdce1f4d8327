import ArgumentParser
import Foundation
import LLVS
import LLVSSyncProtocol
#if HTTPClient
import AsyncHTTPClient
import Logging
#endif

/// Where `push`, `pull` and `sync` exchange versions: a shared directory
/// (`FileSystemExchange`), a store served over HTTP by `llvs-server` or `llvs serve`
/// (`HTTPExchange`), named by its store URL `http[s]://HOST[:PORT]/v1/stores/NAME`, or a
/// folder on a WebDAV server (`WebDAVExchange`), named `webdav+http[s]://HOST[:PORT]/PATH`.
enum RemoteLocation: Sendable, CustomStringConvertible {
    /// A shared directory, absolute and standardized.
    case directory(URL)
    /// A store URL: scheme and host in lower case, no trailing slash.
    case server(URL)
    /// A WebDAV folder's http(s) URL: scheme and host in lower case, no trailing slash.
    case webDAV(URL)

    /// The prefix of a WebDAV folder's URL on the command line.
    static let webDAVPrefix = "webdav+"

    /// Reads a command-line argument: a `webdav+http[s]` URL names a WebDAV folder, an
    /// http(s) URL a served store, anything without `://` a directory.
    ///
    /// - Throws: `ValidationError` for another scheme or a URL that is not a store URL.
    init(argument: String) throws {
        guard argument.contains("://") else {
            self = .directory(URL(fileURLWithPath: argument).standardizedFileURL)
            return
        }
        if argument.lowercased().hasPrefix(Self.webDAVPrefix) {
            self = .webDAV(try Self.webDAVURL(argument))
            return
        }
        self = .server(try Self.storeURL(argument))
    }

    /// The key the exchange's restoration state is kept under in `state.json`: the
    /// directory's path, the store URL, or the WebDAV folder's URL as written (`webdav+…`).
    var key: String {
        switch self {
        case .directory(let url): return url.path
        case .server(let url): return url.absoluteString
        case .webDAV(let url): return Self.webDAVPrefix + url.absoluteString
        }
    }

    /// The path or URL, for messages.
    var description: String { key }

    /// True for the URL of a blind store (`…/v1/blind/NAME`), which keeps only the sealed
    /// blobs of an encrypted store.
    var isBlindStore: Bool {
        #if HTTPClient
        if case .server(let url) = self { return HTTPBlobTransport.isBlindStoreURL(url) }
        #endif
        return false
    }

    /// True for a store URL.
    var isServer: Bool {
        if case .server = self { return true }
        return false
    }

    /// A new exchange between `store` and this remote; `accessToken` is sent to a server,
    /// and a request that fails for a passing reason is tried again `retries` times, each
    /// retry announced on stderr as it happens.
    ///
    /// - Throws: `HTTPExchangeError.invalidStoreURL` when the exchange refuses the URL,
    ///   `.unusableCertificates` when `$LLVS_CA_CERTIFICATES` names an unusable file.
    /// For a WebDAV folder, the credentials come from the environment or a netrc file
    /// (``WebDAVCredentials``), and a warning goes to stderr when they would travel in clear.
    func makeExchange(store: Store, accessToken: String?, retries: Int = 7) throws -> any Exchange {
        if case .directory(let url) = self { return FileSystemExchange(rootDirectoryURL: url, store: store) }
        #if HTTPClient
        return try makeNetworkExchange(store: store, accessToken: accessToken, retries: retries)
        #else
        throw CLIError.failed("this llvs was built without the network exchanges (only the CommandLineTool trait, as Scripts/demo builds it), "
                              + "so it reaches shared directories only: build it with the default traits (swift build --product llvs) for \(description)")
        #endif
    }

    #if HTTPClient
    /// ``makeExchange(store:accessToken:retries:)`` for a store URL or a WebDAV folder.
    private func makeNetworkExchange(store: Store, accessToken: String?, retries: Int) throws -> any Exchange {
        var logger = Logger(label: "llvs.exchange") { _ in RetryAnnouncer(retries: retries) }
        logger.logLevel = .debug
        let retryPolicy = HTTPRetryPolicy(maximumAttempts: retries + 1)
        switch self {
        case .directory(let url):
            return FileSystemExchange(rootDirectoryURL: url, store: store)
        case .server(let url):
            return try HTTPExchange(storeURL: url, store: store, accessToken: accessToken, httpClient: try Self.httpClient(),
                                    retryPolicy: retryPolicy, logger: logger)
        case .webDAV(let url):
            let authorization = try WebDAVCredentials.authorization(for: url)
            if authorization != nil, url.scheme == "http" {
                Output.note("llvs: warning: the credentials for \(url.host ?? "the server") travel in clear over http; use webdav+https:// unless this network is yours")
            }
            return try WebDAVExchange(url: url, store: store, authorization: authorization, httpClient: try Self.httpClient(),
                                      retryPolicy: retryPolicy, logger: logger)
        }
    }

    /// The shared client, or one trusting `$LLVS_CA_CERTIFICATES` besides the system's CAs.
    ///
    /// - Throws: `.unusableCertificates` when the variable names an unusable file.
    private static func httpClient() throws -> HTTPClient {
        if let certificates = ProcessInfo.processInfo.environment[trustedCertificatesVariable], !certificates.isEmpty {
            return try HTTPExchange.sharedHTTPClient(trustingCertificatesIn: URL(fileURLWithPath: certificates))
        }
        return HTTPExchange.defaultHTTPClient
    }
    #endif

    /// The http(s) URL of a `webdav+http[s]://HOST[:PORT]/PATH` argument.
    ///
    /// - Throws: `ValidationError` naming what is wrong with it.
    private static func webDAVURL(_ text: String) throws -> URL {
        let form = "webdav+https://HOST[:PORT]/PATH (or webdav+http:// on a network of your own)"
        guard var components = URLComponents(string: String(text.dropFirst(webDAVPrefix.count))),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw ValidationError("\(text) is not a WebDAV folder URL; one looks like \(form)")
        }
        guard let host = components.host, !host.isEmpty else { throw ValidationError("\(text) has no host; a WebDAV folder URL looks like \(form)") }
        guard components.user == nil, components.password == nil else {
            throw ValidationError("\(text) carries credentials; keep them out of the command line: \(WebDAVCredentials.help)")
        }
        guard components.query == nil, components.fragment == nil else {
            throw ValidationError("\(text) has a query or fragment; a WebDAV folder URL looks like \(form)")
        }
        var path = components.path
        while path.hasSuffix("/") { path.removeLast() }
        components.scheme = scheme
        components.host = host.lowercased()
        components.path = path
        guard let url = components.url else { throw ValidationError("\(text) is not a WebDAV folder URL (\(form))") }
        return url
    }

    /// The environment variable naming a PEM file of certificates to trust besides the
    /// system's (a private CA, or a server's self-signed certificate), for https store URLs.
    static let trustedCertificatesVariable = "LLVS_CA_CERTIFICATES"

    /// The standardized store URL in `text`.
    ///
    /// - Throws: `ValidationError` naming what is wrong with it.
    private static func storeURL(_ text: String) throws -> URL {
        let form = "http[s]://HOST[:PORT]/v1/stores/NAME, or /v1/blind/NAME for a blind store"
        guard var components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw ValidationError("\(text) is not a URL; a store URL looks like \(form)")
        }
        guard scheme == "http" || scheme == "https" else {
            throw ValidationError("\(text): only http and https URLs are served stores; name a directory by its path")
        }
        guard let host = components.host, !host.isEmpty else { throw ValidationError("\(text) has no host; a store URL looks like \(form)") }
        guard components.user == nil, components.password == nil else {
            throw ValidationError("\(text) carries credentials; pass the access token with --token or LLVS_TOKEN")
        }
        guard components.query == nil, components.fragment == nil else {
            throw ValidationError("\(text) has a query or fragment; a store URL looks like \(form)")
        }
        var path = components.path
        while path.hasSuffix("/") { path.removeLast() }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[parts.count - 3] == "v1", ["stores", "blind"].contains(parts[parts.count - 2]) else {
            throw ValidationError("\(text) is not a store URL (\(form))")
        }
        guard SyncStoreName.isValid(String(parts[parts.count - 1])) else {
            throw ValidationError("\(text): \"\(parts[parts.count - 1])\" is not a store name (1-64 of A-Z a-z 0-9 . _ -, not starting with a dot)")
        }
        components.scheme = scheme
        components.host = host.lowercased()
        components.path = path
        guard let url = components.url else { throw ValidationError("\(text) is not a store URL (\(form))") }
        return url
    }
}

#if HTTPClient
/// A log handler that prints one line on stderr for each retry `HTTPExchange` makes
/// (its debug message "retrying"), and drops everything else:
/// `llvs: no answer from URL (reason); retry 1 of 7 in 0.1 s`.
struct RetryAnnouncer: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .debug
    let retries: Int

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        guard event.message.description == "retrying", let metadata = event.metadata else { return }
        let url = metadata["url"].map { "\($0)".prefix { $0 != "?" } } ?? "the server"
        let attempt = metadata["attempt"].flatMap { Int("\($0)") }.map { "retry \($0 - 1) of \(retries)" } ?? "retrying"
        let seconds = metadata["delay"].flatMap { Double("\($0)".prefix { $0 != " " }) }
        let delay = seconds.map { String(format: " in %.1f s", $0) } ?? ""
        let reason = metadata["after"].map { " (\($0))" } ?? ""
        Output.note("llvs: no answer from \(url)\(reason); \(attempt)\(delay)")
    }
}
#endif
