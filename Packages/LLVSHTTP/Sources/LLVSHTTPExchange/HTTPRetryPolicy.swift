import Foundation

/// How ``HTTPExchange`` retries a request that failed transiently: a connection that could
/// not be made or broke, a timeout, or a status of 408, 429, 500, 502, 503 or 504. Every
/// request of the sync API is safe to repeat (a repeated push stores nothing twice).
///
/// The delay before retry `n` (1-based) is `initialDelay × 2^(n-1)`, capped at
/// `maximumDelay`, times a random factor in 0.5…1 so that many clients do not retry in step.
/// When the answer carries `Retry-After` (a server at its limits answers 503 with it), the
/// delay is at least those seconds, capped at `maximumRetryAfter`, plus up to a tenth more.
public struct HTTPRetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included (1: no retries).
    public var maximumAttempts: Int
    /// The delay before the first retry.
    public var initialDelay: Duration
    /// The longest delay between attempts.
    public var maximumDelay: Duration
    /// How long one request may take before it counts as failed.
    public var requestTimeout: Duration
    /// The longest wait a `Retry-After` header may ask for; a longer one is cut to this.
    public var maximumRetryAfter: Duration

    /// Creates a policy; the defaults retry for about half a minute (longer when servers
    /// ask, through `Retry-After`, for up to a minute per retry).
    public init(maximumAttempts: Int = 8, initialDelay: Duration = .milliseconds(100), maximumDelay: Duration = .seconds(8),
                requestTimeout: Duration = .seconds(60), maximumRetryAfter: Duration = .seconds(60)) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.requestTimeout = requestTimeout
        self.maximumRetryAfter = maximumRetryAfter
    }

    /// No retries.
    public static let none = HTTPRetryPolicy(maximumAttempts: 1)

    /// The delay before retry number `retry` (1 for the first retry).
    public func delay(beforeRetry retry: Int, random: Double = Double.random(in: 0.5...1)) -> Duration {
        var delay = initialDelay
        for _ in 1..<max(1, retry) where delay < maximumDelay { delay *= 2 }
        return min(delay, maximumDelay) * random
    }

    /// The delay before retry number `retry` when the failed answer asked for `retryAfter`
    /// (nil: it did not): the larger of the backoff and `retryAfter` (at most
    /// ``maximumRetryAfter``) times a random factor in 1…1.1.
    public func delay(beforeRetry retry: Int, retryAfter: Duration?, random: Double = Double.random(in: 0.5...1)) -> Duration {
        let backoff = delay(beforeRetry: retry, random: random)
        guard let retryAfter, retryAfter > .zero else { return backoff }
        let asked = min(retryAfter, maximumRetryAfter) * (1 + (1 - random) / 5)
        return max(backoff, asked)
    }

    /// The wait a `Retry-After` header value asks for: delay-seconds, or an HTTP date
    /// (IMF-fixdate) measured from `now`; nil when it is neither.
    public static func retryAfter(_ value: String, now: Date = Date()) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(text) { return seconds >= 0 ? .seconds(seconds) : nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let date = formatter.date(from: text) else { return nil }
        let interval = date.timeIntervalSince(now)
        return interval > 0 ? .milliseconds(Int64(min(interval, 86_400) * 1000)) : .zero
    }

    /// True for the statuses worth retrying.
    public static func isTransient(status: Int) -> Bool {
        [408, 429, 500, 502, 503, 504].contains(status)
    }
}
