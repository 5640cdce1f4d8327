import AsyncHTTPClient
import Foundation
import Logging
import LLVSExchange
import LLVSHTTPExchange
import LLVSSupport
import LLVSZones
import NIOCore
import NIOHTTP1

/// An `ExchangeFolder` on a WebDAV server (RFC 4918): Nextcloud, ownCloud, Apache httpd
/// with mod_dav, nginx, rclone, a NAS.
///
/// - Files are published atomically: a `PUT` to a temporary name (`.tmp-…`) in the root,
///   then a `MOVE` onto the name, with `Overwrite: F` where the file must not exist yet (a
///   `412` then means another writer published it first).
/// - Folders are made with `MKCOL` when a `MOVE` answers that its destination's folder is
///   missing (`409 Conflict`; rclone answers `403`, Apache `500`), then the `MOVE` is sent
///   again, up to the retry policy's attempts (at least four) while it answers so.
/// - Listings are one `PROPFIND` with `Depth: 1`.
/// - The log is a segment file per append (`WebDAVLog`), created and never replaced, so
///   two writers never write one file and no lock is needed. Each append also rewrites a
///   small file, `log/last-append`; an idle poll is one `GET` of it with `If-None-Match`,
///   answered `304` with no body.
/// - Requests that fail transiently (no connection, a timeout, `408`, `423 Locked`, `429`,
///   `5xx` but `507`) are retried with backoff, waiting at least what `Retry-After` asks
///   (`HTTPRetryPolicy`). `507 Insufficient Storage`, `413` and refusals are typed errors
///   naming the file; a send stopped by one is completed by the next send. A server
///   certificate that is not trusted is `HTTPExchangeError.untrustedCertificate(url:reason:)`,
///   as for `HTTPExchange`, and is not retried.
public struct WebDAVFolder: ExchangeFolder {
    /// The folder's URL, without a trailing slash.
    public let url: URL
    /// How requests authenticate (nil: they do not).
    public let authorization: WebDAVAuthorization?
    /// How transient failures are retried.
    public var retryPolicy: HTTPRetryPolicy { sender.retryPolicy }
    let sender: RetryingRequestSender
    var logger: Logger { sender.logger }
    let base: String
    private let requests = Locked(0)

    /// How many requests this folder (and every copy of it) has sent, retries included: what
    /// a transfer costs on a server that bills or limits requests.
    public var requestCount: Int { requests.withLock { $0 } }
    let basePath: String

    /// Statuses worth retrying: those of ``HTTPRetryPolicy/isTransient(status:)`` and `423 Locked`.
    static func isTransient(_ status: Int) -> Bool {
        status == 423 || HTTPRetryPolicy.isTransient(status: status)
    }

    /// The folder at `url` (`http` or `https`; created on first write, its parent must exist).
    ///
    /// - Parameters:
    ///   - url: The folder, `http` or `https`.
    ///   - authorization: Basic credentials or a bearer token, or nil.
    ///   - httpClient: The client (`HTTPExchange.defaultHTTPClient`, or one trusting a
    ///     private CA: `HTTPExchange.makeHTTPClient(trustingCertificatesIn:)`).
    ///   - retryPolicy: How transient failures are retried.
    ///   - logger: Where retries are logged (at debug level).
    /// - Throws: ``WebDAVError/invalidURL(_:)`` when `url` is not an `http` or `https` URL with a host.
    public init(url: URL, authorization: WebDAVAuthorization? = nil, httpClient: HTTPClient = HTTPExchange.defaultHTTPClient,
                retryPolicy: HTTPRetryPolicy = HTTPRetryPolicy(), logger: Logger = Logger(label: "llvs.webdav")) throws {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil,
              var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw WebDAVError.invalidURL(url.absoluteString)
        }
        components.query = nil
        components.fragment = nil
        while components.percentEncodedPath.hasSuffix("/") { components.percentEncodedPath.removeLast() }
        guard let text = components.string, let clean = URL(string: text) else { throw WebDAVError.invalidURL(url.absoluteString) }
        self.url = clean
        self.base = text
        self.basePath = components.path
        self.authorization = authorization
        self.sender = RetryingRequestSender(client: httpClient, retryPolicy: retryPolicy, logger: logger)
    }

    // MARK: ExchangeFolder

    /// The file's URL.
    public func location(of path: String) -> String { target(path) }

    /// `GET`s the file; nil on `404`.
    ///
    /// - Throws: `ExchangeError.transport(operation:location:reason:)`.
    public func read(_ path: String) async throws -> Data? {
        let response = try await send(.GET, path, operation: "read", accepting: [404])
        return response.status == 404 ? nil : response.body
    }

    /// The bytes of the file from byte `offset` on (a `Range` request; the whole answer
    /// cut when the server ignores ranges), empty when it has no more, nil when it is absent.
    ///
    /// - Throws: ``ExchangeError/transport(operation:location:reason:)``.
    func read(_ path: String, from offset: Int) async throws -> Data? {
        guard offset > 0 else { return try await read(path) }
        let response = try await send(.GET, path, operation: "read", headers: [("Range", "bytes=\(offset)-")], accepting: [404, 416])
        switch response.status {
        case 404: return nil
        case 416: return Data()
        case 206: return response.body
        default: return response.body.count > offset ? Data(response.body.dropFirst(offset)) : Data()
        }
    }

    /// One `PROPFIND` with `Depth: 1`; empty on `404`.
    ///
    /// - Throws: `ExchangeError.transport(operation:location:reason:)`, or
    ///   `ExchangeError.malformedData(location:reason:)` when the answer is not a multistatus document.
    public func list(_ path: String) async throws -> [ExchangeFolderEntry] {
        let response = try await send(HTTPMethod(rawValue: "PROPFIND"), path + "/", operation: "list",
                                      headers: [("Depth", "1"), ("Content-Type", "application/xml; charset=utf-8")],
                                      body: WebDAVListing.requestBody, accepting: [404])
        if response.status == 404 { return [] }
        do {
            let responses = try WebDAVListing.responses(in: response.body)
            return WebDAVListing.entries(responses, folderPath: basePath + "/" + path)
        } catch {
            throw ExchangeError.malformedData(location: target(path + "/"), reason: error.reason)
        }
    }

    /// `PUT`s a temporary file, then `MOVE`s it onto `path` with `Overwrite: F`.
    ///
    /// - Returns: False when the server answers `412`: a file is there already.
    /// - Throws: `ExchangeError.transport(operation:location:reason:)`.
    public func create(_ data: Data, at path: String, durably: Bool) async throws -> Bool {
        try await publish(data, at: path, overwrite: false)
    }

    /// `PUT`s a temporary file, then `MOVE`s it onto `path` with `Overwrite: T`.
    ///
    /// - Throws: `ExchangeError.transport(operation:location:reason:)`.
    public func replace(_ data: Data, at path: String) async throws {
        _ = try await publish(data, at: path, overwrite: true)
    }

    /// Nothing: a WebDAV server has stored a file when it answers the `MOVE`.
    public func synchronize(_ paths: [String]) async throws {}

    /// `DELETE`s the file or folder; `404` is no error.
    ///
    /// - Throws: `ExchangeError.transport(operation:location:reason:)`.
    public func remove(_ path: String) async throws {
        _ = try await send(.DELETE, path, operation: "remove", accepting: [404])
    }

    /// A log of one segment file per append in the folder at `path`.
    public func log(at path: String) -> any ExchangeFolderLog {
        WebDAVLog(folder: self, path: path)
    }

    // MARK: Publishing

    private func publish(_ data: Data, at path: String, overwrite: Bool) async throws -> Bool {
        // Temporary files stay in the root, so that one listing finds those a stopped sender left.
        let temporary = ".tmp-" + DurableFile.uniqueName()
        try await put(data, at: temporary, folder: "")
        do {
            var status = try await move(temporary, to: path, overwrite: overwrite, accepting: Self.missingFolderStatuses)
            if Self.missingFolderStatuses.contains(status) {
                // The destination's folder may be missing: servers answer 409 (RFC 4918),
                // 403 (rclone) or 500 (Apache). Make it, then move again, retrying as usual.
                try await makeFolders(Self.parent(of: path))
                // A server can take a while to let a MOVE into a folder it has just made (CI
                // runs saw rclone answer 403 again right after the MKCOL, again after four
                // tries within a second, and under a full test run again after six tries
                // within 1.5 s): as many tries as the retry policy allows (at least four),
                // as far apart as its retries (50 ms to 1 s), and for at least
                // `patienceAfterMakingFolders`, before the answer stands.
                let moves = max(Self.movesAfterMakingFolders, retryPolicy.maximumAttempts)
                let clock = ContinuousClock()
                let patience = clock.now.advanced(by: Self.patienceAfterMakingFolders)
                var attempt = 1
                while true {
                    let last = attempt >= moves && clock.now >= patience
                    status = try await move(temporary, to: path, overwrite: overwrite, accepting: last ? [] : Self.missingFolderStatuses)
                    guard Self.missingFolderStatuses.contains(status), !last else { break }
                    try await Task.sleep(for: min(max(retryPolicy.delay(beforeRetry: attempt), .milliseconds(50)), .seconds(1)))
                    attempt += 1
                    // rclone can lose sight of the temporary file itself ("Dir.Rename error:
                    // file does not exist" in its log, answered 403 like a missing folder,
                    // seen under a full test run): upload it again (same name, same bytes)
                    // before the next MOVE.
                    try await put(data, at: temporary, folder: "")
                }
            }
            switch status {
            case 412:
                try? await remove(temporary)
                return false
            case 404:
                // The temporary file is gone: an earlier attempt of this MOVE went through and
                // its answer was lost. The file is ours if it holds our bytes.
                guard try await read(path) == data else {
                    throw ExchangeError.transport(operation: "publish", location: target(path),
                                                  reason: "the uploaded temporary file \(temporary) vanished before it was moved into place")
                }
                return true
            default:
                return true
            }
        } catch {
            try? await remove(temporary)
            throw error
        }
    }

    /// What servers answer a `MOVE` into a folder that does not exist.
    static let missingFolderStatuses: Set<Int> = [403, 409, 500]

    /// The fewest times a `MOVE` is sent after its destination's folders were made (the
    /// retry policy's attempts when they are more).
    static let movesAfterMakingFolders = 4

    /// How long a `MOVE` into folders just made is tried again at least, while the server
    /// answers as if they were missing.
    static let patienceAfterMakingFolders: Duration = .seconds(5)

    /// `MOVE`s `source` onto `path`; the status, 2xx, 404, 412 or one of `accepting`.
    private func move(_ source: String, to path: String, overwrite: Bool, accepting: Set<Int>) async throws -> Int {
        try await send(HTTPMethod(rawValue: "MOVE"), source, operation: "publish",
                       headers: [("Destination", target(path)), ("Overwrite", overwrite ? "T" : "F")],
                       accepting: accepting.union([404, 412])).status
    }

    /// The root: where this folder's temporary files are.
    public var temporaryFileFolders: [String]? { [""] }

    /// True: every file costs requests to the server.
    public var isRemote: Bool { true }

    /// `PUT`s `data`, making the folders on the way when the server answers that one is
    /// missing (`409 Conflict`, as RFC 4918 says; rclone answers `404`).
    func put(_ data: Data, at path: String, folder: String) async throws {
        let attempt = { try await send(.PUT, path, operation: "write", headers: [("Content-Type", "application/octet-stream")],
                                       body: data, accepting: [404, 409]) }
        let status = try await attempt().status
        guard status == 404 || status == 409 else { return }
        try await makeFolders(folder)
        let retried = try await attempt().status
        guard retried != 404 && retried != 409 else {
            throw ExchangeError.transport(operation: "write", location: target(path), reason: "\(Self.describe(retried)): its folder cannot be made")
        }
    }

    /// `MKCOL`s the root, then each folder down to `path` (`405`: it exists already).
    private func makeFolders(_ path: String) async throws {
        try await makeFolder("")
        var prefix = ""
        for segment in path.split(separator: "/") {
            prefix = prefix.isEmpty ? String(segment) : prefix + "/" + segment
            try await makeFolder(prefix)
        }
    }

    /// `MKCOL`s one folder. A `403` is taken for "it exists" when the folder is there after
    /// all: Apache answers so to the loser of two writers making one folder at once.
    private func makeFolder(_ path: String) async throws {
        let status = try await send(HTTPMethod(rawValue: "MKCOL"), path + "/", operation: "create folder", accepting: [403, 405]).status
        guard status == 403 else { return }
        let found = try await send(HTTPMethod(rawValue: "PROPFIND"), path + "/", operation: "create folder", headers: [("Depth", "0")],
                                   accepting: [404]).status
        guard found == 207 else {
            throw ExchangeError.transport(operation: "create folder", location: target(path + "/"), reason: Self.describe(403))
        }
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[..<slash])
    }

    // MARK: Requests

    typealias Response = RetryingRequestSender.Answer

    /// The URL of a folder-relative path, each segment percent-encoded.
    func target(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/;?#%")
        let trailing = path.hasSuffix("/")
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
            .map { $0.addingPercentEncoding(withAllowedCharacters: allowed) ?? String($0) }
        return ([base] + segments).joined(separator: "/") + (trailing ? "/" : "")
    }

    /// Sends a request, retrying transient failures. Returns a 2xx answer or one of
    /// `accepting`.
    ///
    /// - Throws: ``ExchangeError/transport(operation:location:reason:)`` naming the status
    ///   and what it means, `HTTPExchangeError.untrustedCertificate(url:reason:)`, or
    ///   `CancellationError`.
    func send(_ method: HTTPMethod, _ path: String, operation: String, headers: [(String, String)] = [], body: Data? = nil,
              accepting: Set<Int> = []) async throws -> Response {
        let url = target(path)
        var fields = headers
        if let authorization { fields.insert(("Authorization", authorization.headerValue), at: 0) }
        let outcome = try await sender.send(method, url: url, headers: fields, body: body, isTransient: { !accepting.contains($0) && Self.isTransient($0) },
                                            describe: { Self.describe($0.status) }, counting: { requests.withLock { $0 += 1 } })
        switch outcome {
        case .gaveUp(let lastFailure):
            throw ExchangeError.transport(operation: operation, location: url,
                                          reason: "the server did not answer after \(retryPolicy.maximumAttempts) attempts (last: \(lastFailure))")
        case .untrustedCertificate(let reason):
            throw HTTPExchangeError.untrustedCertificate(url: url, reason: reason)
        case .answered(let answer):
            guard (200..<300).contains(answer.status) || accepting.contains(answer.status) else {
                throw ExchangeError.transport(operation: operation, location: url, reason: Self.describe(answer.status))
            }
            return answer
        }
    }

    /// A status with what it means for a WebDAV exchange.
    static func describe(_ status: Int) -> String {
        switch status {
        case 401: "401 Unauthorized: the credentials are missing or wrong"
        case 403: "403 Forbidden: the account may not do this here"
        case 404: "404 Not Found"
        case 405: "405 Method Not Allowed: is this a WebDAV folder?"
        case 409: "409 Conflict: a parent folder is missing"
        case 412: "412 Precondition Failed"
        case 413: "413 Content Too Large: the server refuses uploads this large; lower maximumBatchByteCount"
        case 423: "423 Locked: another client holds a lock on it"
        case 507: "507 Insufficient Storage: the account or disk is full"
        default: "status \(status)"
        }
    }
}

/// Why a WebDAV exchange cannot be made.
public enum WebDAVError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL is not an `http` or `https` URL with a host.
    case invalidURL(String)

    /// What went wrong, in a sentence.
    public var description: String {
        switch self {
        case .invalidURL(let url): "not a WebDAV folder URL (http or https, with a host): \(url)"
        }
    }
}
