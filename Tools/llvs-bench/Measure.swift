import Foundation

/// Times `body` with the monotonic clock, in milliseconds.
func milliseconds(_ body: () throws -> Void) rethrows -> Double {
    milliseconds(of: try ContinuousClock().measure(body))
}

/// A duration in milliseconds.
func milliseconds(of duration: Duration) -> Double {
    Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
}

/// The median of `runs` timings of `body`, in milliseconds (BENCHMARKS.md: median of 3
/// runs where a run is short).
func medianMilliseconds(runs: Int = 3, _ body: () throws -> Void) rethrows -> Double {
    var timings: [Double] = []
    for _ in 0..<runs {
        timings.append(try milliseconds(body))
    }
    timings.sort()
    return timings[timings.count / 2]
}

/// The peak resident set size of this process so far, in bytes (`VmHWM` of
/// /proc/self/status on Linux; 0 where that is unavailable).
func peakResidentBytes() -> Int {
    statusBytes("VmHWM:")
}

/// The resident set size of this process now, in bytes (`VmRSS`; 0 where unavailable).
func residentBytes() -> Int {
    statusBytes("VmRSS:")
}

/// A size line of /proc/self/status, in bytes.
private func statusBytes(_ key: String) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix(key) {
        let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return kilobytes * 1_024
    }
    return 0
}
