import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// Sends one HTTP request, retrying transient failures as an ``HTTPRetryPolicy`` says: the
/// part of ``HTTPExchange`` and of the WebDAV exchange that talks to the network. What an
/// answer means (which statuses are errors, what they are called) stays with each caller.
package struct RetryingRequestSender: Sendable {
    /// The client requests go through.
    package let client: HTTPClient
    /// How transient failures are retried.
    package let retryPolicy: HTTPRetryPolicy
    package let logger: Logger
    /// The largest answer read: a batch or snapshot chunk is a few times a batch's bytes at most.
    package static let maximumResponseByteCount = 1 << 30

    package init(client: HTTPClient, retryPolicy: HTTPRetryPolicy, logger: Logger) {
        self.client = client
        self.retryPolicy = retryPolicy
        self.logger = logger
    }

    /// A whole answer.
    package struct Answer: Sendable {
        package var status: Int
        package var body: Data
        package var headers: HTTPHeaders
    }

    /// How a request ended: an answer that was not transient, or none after every attempt.
    package enum Outcome: Sendable {
        case answered(Answer)
        /// Every attempt failed transiently; `lastFailure` says how the last one did.
        case gaveUp(lastFailure: String)
        /// The TLS handshake failed on the server's certificate (not trusted, or not for this
        /// host name), which trying again does not change; `reason` says which.
        case untrustedCertificate(reason: String)
    }

    /// Sends the request until an answer that `isTransient` does not call transient, waiting
    /// between attempts as ``retryPolicy`` says (at least what a `Retry-After` asks). A
    /// connection that fails or a timeout counts as transient.
    ///
    /// - Parameters:
    ///   - timeout: How long one attempt may take (nil: the policy's `requestTimeout`).
    ///   - describe: How a transient answer is named in the log and in `lastFailure`.
    ///   - counting: Called once per attempt.
    /// - Throws: `CancellationError` only.
    package func send(_ method: HTTPMethod, url: String, headers: [(String, String)] = [], body: Data? = nil, timeout: Duration? = nil,
                      isTransient: (Int) -> Bool, describe: (Answer) -> String, counting: () -> Void = {}) async throws -> Outcome {
        var lastFailure = ""
        var retryAfter: Duration?
        for attempt in 1...retryPolicy.maximumAttempts {
            try Task.checkCancellation()
            if attempt > 1 {
                let delay = retryPolicy.delay(beforeRetry: attempt - 1, retryAfter: retryAfter)
                logger.debug("retrying", metadata: ["url": "\(url)", "attempt": "\(attempt)", "delay": "\(delay)", "after": "\(lastFailure)"])
                try await Task.sleep(for: delay)
            }
            var request = HTTPClientRequest(url: url)
            request.method = method
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
            counting()
            let answer: Answer
            do {
                let response = try await client.execute(request, timeout: Self.timeAmount(timeout ?? retryPolicy.requestTimeout), logger: logger)
                retryAfter = response.headers.first(name: "Retry-After").flatMap { HTTPRetryPolicy.retryAfter($0) }
                let data = Data(try await response.body.collect(upTo: Self.maximumResponseByteCount).readableBytesView)
                answer = Answer(status: Int(response.status.code), body: data, headers: response.headers)
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                if let reason = Self.certificateFailure(error) { return .untrustedCertificate(reason: reason) }
                lastFailure = Self.describe(error)
                retryAfter = nil
                continue
            }
            guard isTransient(answer.status) else { return .answered(answer) }
            lastFailure = describe(answer)
        }
        return .gaveUp(lastFailure: lastFailure)
    }

    /// Why the server's certificate was refused, when `error` is a TLS handshake that failed
    /// on it; nil for every other failure.
    package static func certificateFailure(_ error: any Error) -> String? {
        if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
            return "the certificate does not name this host"
        }
        guard let error = error as? NIOSSLError, case .handshakeFailed(let boringSSL) = error else { return nil }
        let text = "\(boringSSL)"
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            return "no trusted certificate authority signed it (self-signed, a private authority, or expired)"
        }
        return nil
    }

    /// A failure to connect in words, without the source paths and type names a NIO error
    /// prints: the system's message for an errno, else the error's own description.
    package static func describe(_ error: any Error) -> String {
        if let error = error as? IOError { return "\(String(cString: strerror(error.errnoCode)).lowercased()) (errno \(error.errnoCode))" }
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout: return "the connection timed out"
            case .deadlineExceeded: return "no answer within the request timeout"
            case .remoteConnectionClosed: return "the server closed the connection"
            default: return "\(error)"
            }
        }
        if let error = error as? NIOConnectionError {
            if let first = error.connectionErrors.first { return describe(first.error) }
            if error.dnsAError != nil || error.dnsAAAAError != nil { return "the host name \(error.host) does not resolve" }
            return "the connection to \(error.host) failed"
        }
        if let error = error as? NIOSSLError, case .handshakeFailed = error { return "the TLS handshake failed" }
        return "\(error)"
    }

    /// `duration` as a NIO time amount: zero when negative, at most about 146 years, so that
    /// a caller's huge timeout cannot overflow.
    package static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, duration > .zero else { return .zero }
        guard seconds < Int64.max / 2_000_000_000 else { return .nanoseconds(Int64.max / 2) }
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
