import Foundation

/// Work over `0..<count` split into contiguous parts, one per core, run in parallel.
public enum ParallelParts {
    /// Runs `body` on contiguous ranges covering `0..<count`: one range per active core when
    /// `count` is at least `minimumCount` (and there is more than one core), else the whole
    /// range once, on the calling thread. Returns when every range has run.
    ///
    /// - Complexity: `body`'s work, divided among the cores.
    public static func forEach(in count: Int, parallelFrom minimumCount: Int, _ body: @Sendable (Range<Int>) -> Void) {
        let partCount = count >= minimumCount ? max(1, ProcessInfo.processInfo.activeProcessorCount) : 1
        guard partCount > 1 else {
            body(0..<max(count, 0))
            return
        }
        let partLength = (count + partCount - 1) / partCount
        DispatchQueue.concurrentPerform(iterations: partCount) { part in
            body(min(part * partLength, count)..<min((part + 1) * partLength, count))
        }
    }
}
