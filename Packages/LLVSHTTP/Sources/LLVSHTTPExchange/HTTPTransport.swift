import AsyncHTTPClient
import Foundation
import Logging
import LLVSCore
import LLVSSyncProtocol
import NIOCore
import NIOHTTP1

/// Sends the requests of one ``HTTPExchange``: builds URLs under the store URL, adds the
/// token, retries transient failures with backoff, and turns error answers into
/// ``HTTPExchangeError``s.
struct HTTPTransport: Sendable {
    let storeURL: String
    let accessToken: String?
    let sender: RetryingRequestSender
    var client: HTTPClient { sender.client }
    var retryPolicy: HTTPRetryPolicy { sender.retryPolicy }
    var logger: Logger { sender.logger }

    init(storeURL: URL, accessToken: String?, client: HTTPClient, retryPolicy: HTTPRetryPolicy, logger: Logger) throws {
        guard let scheme = storeURL.scheme?.lowercased(), scheme == "http" || scheme == "https", storeURL.host != nil else {
            throw HTTPExchangeError.invalidStoreURL(storeURL.absoluteString)
        }
        var text = storeURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        self.storeURL = text
        self.accessToken = accessToken
        self.sender = RetryingRequestSender(client: client, retryPolicy: retryPolicy, logger: logger)
    }

    /// The URL of a store-relative path with a query.
    func url(_ path: String, query: [(String, String)] = []) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+?#")
        let encoded = query.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0.1)" }
        return "\(storeURL)/\(path)" + (encoded.isEmpty ? "" : "?" + encoded.joined(separator: "&"))
    }

    /// Sends a request, retrying transient failures. Returns the body of a 2xx answer, or
    /// nil for a 404 when `notFoundIsNil`.
    ///
    /// - Throws: ``HTTPExchangeError``, or `CancellationError` when the task is cancelled.
    func send(_ method: HTTPMethod, _ path: String, query: [(String, String)] = [], body: Data? = nil,
              contentType: String = "application/json", headers: [(String, String)] = [], timeout: Duration? = nil,
              notFoundIsNil: Bool = false) async throws -> Data? {
        let target = url(path, query: query)
        var fields = headers
        if let accessToken { fields.insert(("Authorization", "Bearer \(accessToken)"), at: 0) }
        if body != nil { fields.append(("Content-Type", contentType)) }
        let outcome = try await sender.send(method, url: target, headers: fields, body: body, timeout: timeout,
                                            isTransient: HTTPRetryPolicy.isTransient(status:),
                                            describe: { "status \($0.status)" + (Self.errorBody($0.body).map { ": \($0.message)" } ?? "") })
        switch outcome {
        case .gaveUp(let lastFailure):
            throw HTTPExchangeError.unavailable(url: target, attempts: retryPolicy.maximumAttempts, reason: lastFailure)
        case .untrustedCertificate(let reason):
            throw HTTPExchangeError.untrustedCertificate(url: target, reason: reason)
        case .answered(let answer):
            switch answer.status {
            case 200..<300:
                return answer.body
            case 404 where notFoundIsNil:
                return nil
            case 401:
                throw HTTPExchangeError.unauthorized(url: target)
            default:
                let error = Self.errorBody(answer.body)
                throw HTTPExchangeError.rejected(url: target, status: answer.status, code: error?.error ?? "unknown",
                                                 message: error?.message ?? String(decoding: answer.body.prefix(500), as: UTF8.self))
            }
        }
    }

    /// Sends a request and decodes its JSON answer.
    ///
    /// - Throws: What ``send(_:_:query:body:contentType:timeout:notFoundIsNil:)`` throws, or
    ///   ``HTTPExchangeError/malformedResponse(url:reason:)``.
    func json<T: Decodable>(_ type: T.Type, _ method: HTTPMethod, _ path: String, query: [(String, String)] = [],
                            body: (any Encodable)? = nil, timeout: Duration? = nil, notFoundIsNil: Bool = false) async throws -> T? {
        var encoded: Data?
        if let body { encoded = try CanonicalJSON.encode(body) }
        guard let data = try await send(method, path, query: query, body: encoded, timeout: timeout, notFoundIsNil: notFoundIsNil) else { return nil }
        do {
            return try CanonicalJSON.decode(type, from: data)
        } catch {
            throw HTTPExchangeError.malformedResponse(url: url(path, query: query), reason: "\(error)")
        }
    }

    private static func errorBody(_ data: Data) -> SyncErrorBody? {
        try? JSONDecoder().decode(SyncErrorBody.self, from: data)
    }
}
