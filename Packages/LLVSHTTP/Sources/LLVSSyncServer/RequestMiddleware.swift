import Hummingbird
import LLVSCore
import LLVSSupport

/// The bytes that the bodies of requests being handled at once may hold together
/// (``SyncServerConfiguration/maximumConcurrentBodyByteCount``).
final class BodyBudget: Sendable {
    /// The bytes available in all.
    let capacity: Int
    private let reserved = Locked(0)
    private let metrics: SyncMetrics

    init(capacity: Int, metrics: SyncMetrics) {
        self.capacity = capacity
        self.metrics = metrics
    }

    /// Reserves `byteCount` bytes; false (nothing reserved) when they do not fit.
    func reserve(_ byteCount: Int) -> Bool {
        let total: Int? = reserved.withLock { reserved in
            guard byteCount <= capacity - reserved else { return nil }
            reserved += byteCount
            return reserved
        }
        guard let total else { return false }
        metrics.bodyBytesInFlight.record(total)
        return true
    }

    /// Returns bytes that ``reserve(_:)`` took.
    func release(_ byteCount: Int) {
        let total = reserved.withLock { reserved -> Int in
            reserved -= byteCount
            return reserved
        }
        metrics.bodyBytesInFlight.record(total)
    }
}

/// Measures every request (latency by route, bytes in and out, refusals by status) and
/// admits a request with a body only when the ``BodyBudget`` holds it, answering 503
/// `overloaded` with `Retry-After` otherwise. The reservation lasts until the answer is
/// made, since the handlers keep the body (and what it decodes to) until then. Errors the
/// HTTP framework answers itself (a path or method the API does not have) get the API's
/// error body too, as SPEC.md section 15 asks of every error answer.
struct RequestMiddleware<Context: RequestContext>: RouterMiddleware {
    let budget: BodyBudget
    let metrics: SyncMetrics
    let maximumBodyByteCount: Int
    let retryAfterSeconds: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        do {
            let response = try await admitted(request, context: context, next: next)
            record(request, context: context, status: response.status.code, started: started)
            if let length = response.body.contentLength { metrics.responseBytes.increment(by: length) }
            return response
        } catch {
            let answer = Self.withErrorBody(error)
            let status = (answer as? any HTTPResponseError)?.status.code ?? 500
            record(request, context: context, status: status, started: started)
            throw answer
        }
    }

    /// The router's answer for a path or method the API does not have, which has no body,
    /// as the API's `notFound` error.
    static func withErrorBody(_ error: any Error) -> any Error {
        guard let error = error as? HTTPError, error.status == .notFound || error.status == .methodNotAllowed else { return error }
        return SyncHTTPError(.notFound, "The sync API has no such path, or not for this method.")
    }

    private func admitted(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let declared = request.headers[.contentLength].flatMap { Int($0) }
        let hasBody = declared.map { $0 > 0 } ?? (request.headers[.transferEncoding] != nil)
        guard hasBody else { return try await next(request, context) }
        // Above the body limit, the handler answers 413 without reading it: reserve nothing.
        let byteCount = min(declared ?? maximumBodyByteCount, maximumBodyByteCount)
        if let declared, declared > maximumBodyByteCount { return try await next(request, context) }
        guard budget.reserve(byteCount) else {
            throw SyncHTTPError(.overloaded, "The server holds as many request bodies as it may; retry in \(retryAfterSeconds) s.",
                                retryAfterSeconds: retryAfterSeconds)
        }
        defer { budget.release(byteCount) }
        if let declared { metrics.requestBytes.increment(by: declared) }
        return try await next(request, context)
    }

    private func record(_ request: Request, context: Context, status: Int, started: ContinuousClock.Instant) {
        if status >= 400 { metrics.refused(status: status) }
        metrics.recordLatency(ContinuousClock.now - started, route: context.endpointPath ?? "unmatched")
    }
}
