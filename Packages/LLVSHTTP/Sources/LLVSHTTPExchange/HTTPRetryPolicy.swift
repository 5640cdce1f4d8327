/// How ``HTTPExchange`` retries a request that failed transiently: a connection that could
/// not be made or broke, a timeout, or a status of 408, 429, 500, 502, 503 or 504. Every
/// request of the sync API is safe to repeat (a repeated push stores nothing twice).
///
/// The delay before retry `n` (1-based) is `initialDelay × 2^(n-1)`, capped at
/// `maximumDelay`, times a random factor in 0.5…1 so that many clients do not retry in step.
public struct HTTPRetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included (1: no retries).
    public var maximumAttempts: Int
    /// The delay before the first retry.
    public var initialDelay: Duration
    /// The longest delay between attempts.
    public var maximumDelay: Duration
    /// How long one request may take before it counts as failed.
    public var requestTimeout: Duration

    /// Creates a policy; the defaults retry for about half a minute.
    public init(maximumAttempts: Int = 8, initialDelay: Duration = .milliseconds(100), maximumDelay: Duration = .seconds(8),
                requestTimeout: Duration = .seconds(60)) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.requestTimeout = requestTimeout
    }

    /// No retries.
    public static let none = HTTPRetryPolicy(maximumAttempts: 1)

    /// The delay before retry number `retry` (1 for the first retry).
    public func delay(beforeRetry retry: Int, random: Double = Double.random(in: 0.5...1)) -> Duration {
        var delay = initialDelay
        for _ in 1..<max(1, retry) where delay < maximumDelay { delay *= 2 }
        return min(delay, maximumDelay) * random
    }

    /// True for the statuses worth retrying.
    public static func isTransient(status: Int) -> Bool {
        [408, 429, 500, 502, 503, 504].contains(status)
    }
}
