import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1

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
                lastFailure = "\(error)"
                retryAfter = nil
                continue
            }
            guard isTransient(answer.status) else { return .answered(answer) }
            lastFailure = describe(answer)
        }
        return .gaveUp(lastFailure: lastFailure)
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
