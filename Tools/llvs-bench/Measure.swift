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

#if canImport(Glibc)
/// `RUSAGE_SELF` as `getrusage` takes it (Glibc imports the constant as an enum case).
private let RUSAGE_SELF_WHO = __rusage_who_t(RUSAGE_SELF.rawValue)
#else
private let RUSAGE_SELF_WHO = RUSAGE_SELF
#endif

/// The CPU time this process has used so far, user and system, on every thread, in
/// milliseconds (`getrusage(RUSAGE_SELF)`; 0 where that fails).
func processCPUMilliseconds() -> Double {
    var usage = rusage()
    guard getrusage(RUSAGE_SELF_WHO, &usage) == 0 else { return 0 }
    func milliseconds(_ time: timeval) -> Double { Double(time.tv_sec) * 1_000 + Double(time.tv_usec) / 1_000 }
    return milliseconds(usage.ru_utime) + milliseconds(usage.ru_stime)
}

/// Runs `body` and returns its wall-clock time and the CPU time the process used meanwhile
/// (every thread's), both in milliseconds: their ratio is how many cores the work had.
func wallAndCPUMilliseconds(_ body: () async throws -> Void) async rethrows -> (wall: Double, cpu: Double) {
    let cpuBefore = processCPUMilliseconds()
    let wall = milliseconds(of: try await ContinuousClock().measure(body))
    return (wall, processCPUMilliseconds() - cpuBefore)
}
