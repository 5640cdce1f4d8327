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
    let client: HTTPClient
    let retryPolicy: HTTPRetryPolicy
    let logger: Logger
    /// The largest response body read (a snapshot chunk or a batch of changes is far smaller).
    let maximumResponseByteCount = 1 << 30

    init(storeURL: URL, accessToken: String?, client: HTTPClient, retryPolicy: HTTPRetryPolicy, logger: Logger) throws {
        guard let scheme = storeURL.scheme?.lowercased(), scheme == "http" || scheme == "https", storeURL.host != nil else {
            throw HTTPExchangeError.invalidStoreURL(storeURL.absoluteString)
        }
        var text = storeURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        self.storeURL = text
        self.accessToken = accessToken
        self.client = client
        self.retryPolicy = retryPolicy
        self.logger = logger
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
        var lastFailure = ""
        var retryAfter: Duration?
        for attempt in 1...retryPolicy.maximumAttempts {
            try Task.checkCancellation()
            if attempt > 1 {
                let delay = retryPolicy.delay(beforeRetry: attempt - 1, retryAfter: retryAfter)
                logger.debug("retrying", metadata: ["url": "\(target)", "attempt": "\(attempt)", "delay": "\(delay)", "after": "\(lastFailure)"])
                try await Task.sleep(for: delay)
            }
            var request = HTTPClientRequest(url: target)
            request.method = method
            if let accessToken { request.headers.add(name: "Authorization", value: "Bearer \(accessToken)") }
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            if let body {
                request.headers.add(name: "Content-Type", value: contentType)
                request.body = .bytes(ByteBuffer(bytes: body))
            }
            let status: Int
            let data: Data
            do {
                let response = try await client.execute(request, timeout: Self.timeAmount(timeout ?? retryPolicy.requestTimeout), logger: logger)
                status = Int(response.status.code)
                retryAfter = response.headers.first(name: "Retry-After").flatMap { HTTPRetryPolicy.retryAfter($0) }
                data = Data(try await response.body.collect(upTo: maximumResponseByteCount).readableBytesView)
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                lastFailure = "\(error)"
                retryAfter = nil
                continue
            }
            switch status {
            case 200..<300:
                return data
            case 404 where notFoundIsNil:
                return nil
            case 401:
                throw HTTPExchangeError.unauthorized(url: target)
            case _ where HTTPRetryPolicy.isTransient(status: status):
                lastFailure = "status \(status)" + (Self.errorBody(data).map { ": \($0.message)" } ?? "")
            default:
                let error = Self.errorBody(data)
                throw HTTPExchangeError.rejected(url: target, status: status, code: error?.error ?? "unknown",
                                                 message: error?.message ?? String(decoding: data.prefix(500), as: UTF8.self))
            }
        }
        throw HTTPExchangeError.unavailable(url: target, attempts: retryPolicy.maximumAttempts, reason: lastFailure)
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

    private static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
