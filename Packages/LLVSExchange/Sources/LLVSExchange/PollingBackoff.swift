/// How a polling loop spaces its checks: ``minimumInterval`` after a check that found a
/// change, then twice the last interval after each idle check, up to ``maximumInterval``.
/// A folder nobody writes to is looked at less and less often (on storage that bills or
/// limits requests, that is what idle costs), and one that changes is watched closely again.
///
/// ```swift
/// var backoff = PollingBackoff(minimumInterval: .seconds(5), maximumInterval: .seconds(60))
/// backoff.next(afterChange: false) // 5 s, then 10, 20, 40, 60, 60…
/// backoff.next(afterChange: true)  // 5 s again
/// ```
public struct PollingBackoff: Sendable, Hashable {
    /// The interval after a change, and the first.
    public let minimumInterval: Duration
    /// The longest interval.
    public let maximumInterval: Duration
    /// The interval the last ``next(afterChange:)`` returned (``minimumInterval`` before any).
    public private(set) var currentInterval: Duration
    private var started = false

    /// A backoff from `minimumInterval` up to `maximumInterval`. A negative interval counts as
    /// zero, and a maximum below the minimum as the minimum (no backoff).
    public init(minimumInterval: Duration, maximumInterval: Duration) {
        let minimum = max(minimumInterval, .zero)
        self.minimumInterval = minimum
        self.maximumInterval = max(maximumInterval, minimum)
        self.currentInterval = minimum
    }

    /// The wait before the next check: ``minimumInterval`` when the last check found a
    /// change (or for the first), else the last wait doubled, at most ``maximumInterval``.
    public mutating func next(afterChange changed: Bool) -> Duration {
        if changed || !started {
            currentInterval = minimumInterval
        } else if currentInterval >= maximumInterval / 2 {
            currentInterval = maximumInterval
        } else {
            // Below half the maximum: doubling cannot overflow.
            currentInterval = max(currentInterval * 2, .nanoseconds(1))
        }
        started = true
        return currentInterval
    }
}
