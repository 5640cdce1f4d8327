import LLVSExchange
import PropertyBased
import Testing

/// ``PollingBackoff``: the minimum after a change, doubling while idle, never past the
/// maximum, and no trap whatever intervals a caller passes.
///
/// Replay a property failure by adding the `.fixedSeed("…")` trait the failure message prints.
@Suite struct PollingBackoffTests {
    @Test func doublesWhileIdleUpToTheMaximumAndResetsOnAChange() {
        var backoff = PollingBackoff(minimumInterval: .seconds(5), maximumInterval: .seconds(60))
        let idle = (0..<7).map { _ in backoff.next(afterChange: false) }
        #expect(idle == [.seconds(5), .seconds(10), .seconds(20), .seconds(40), .seconds(60), .seconds(60), .seconds(60)])
        #expect(backoff.next(afterChange: true) == .seconds(5))
        #expect(backoff.next(afterChange: false) == .seconds(10))
    }

    @Test func aMaximumBelowTheMinimumMeansNoBackoff() {
        var backoff = PollingBackoff(minimumInterval: .seconds(2), maximumInterval: .seconds(1))
        #expect(backoff.maximumInterval == .seconds(2))
        #expect((0..<4).map { _ in backoff.next(afterChange: false) } == Array(repeating: .seconds(2), count: 4))
    }

    @Test func extremeIntervalsNeitherTrapNorLeaveTheirBounds() {
        var huge = PollingBackoff(minimumInterval: .seconds(Int64.max / 4), maximumInterval: .seconds(Int64.max))
        for _ in 0..<8 { #expect(huge.next(afterChange: false) <= .seconds(Int64.max)) }
        var negative = PollingBackoff(minimumInterval: .seconds(-3), maximumInterval: .milliseconds(1))
        #expect(negative.next(afterChange: false) == .zero)
        for _ in 0..<40 { #expect(negative.next(afterChange: false) <= .milliseconds(1)) }
        #expect(negative.currentInterval == .milliseconds(1))
    }

    /// Any bounds and any run of idle checks and changes: every wait is within the bounds, a
    /// change gives the minimum, and an idle check gives twice the last wait, capped.
    @Test func everyWaitFollowsTheRule() async {
        let input = zip(Gen.int(in: 0...10_000), Gen.int(in: 0...100_000), Gen.bool.array(of: 1...40))
        await propertyCheck(input: input) { minimum, maximum, changes in
            var backoff = PollingBackoff(minimumInterval: .milliseconds(minimum), maximumInterval: .milliseconds(maximum))
            let upper = Duration.milliseconds(max(minimum, maximum))
            var last: Duration?
            for changed in changes {
                let wait = backoff.next(afterChange: changed)
                #expect(wait >= .milliseconds(minimum) && wait <= upper)
                if changed || last == nil {
                    #expect(wait == .milliseconds(minimum))
                } else if let last {
                    #expect(wait == min(max(last * 2, .nanoseconds(1)), upper))
                }
                last = wait
            }
        }
    }
}
