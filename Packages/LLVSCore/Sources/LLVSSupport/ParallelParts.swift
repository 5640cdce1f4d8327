import Foundation

/// Work over `0..<count` split into contiguous parts, one or more per core, run in parallel.
public enum ParallelParts {
    /// Runs `body` on contiguous ranges covering `0..<count`: `partsPerCore` ranges per active
    /// core (no more ranges than elements) when `count` is at least `minimumCount` (and there
    /// is more than one core), else the whole range once, on the calling thread. Returns when
    /// every range has run. More parts per core balance the work when other threads keep
    /// some cores busy: a busy core then delays only its smaller parts.
    ///
    /// - Complexity: `body`'s work, divided among the cores.
    public static func forEach(in count: Int, parallelFrom minimumCount: Int, partsPerCore: Int = 1,
                               _ body: @Sendable (Range<Int>) -> Void) {
        forEach(in: count, parallelFrom: minimumCount, partsPerCore: partsPerCore, cores: { activeProcessorCount }, body)
    }

    /// The active cores, asked once: Foundation reads them from the system (a file read on
    /// Linux) each time it is asked, a cost paid per batch otherwise.
    static let activeProcessorCount = ProcessInfo.processInfo.activeProcessorCount

    /// ``forEach(in:parallelFrom:partsPerCore:_:)`` on `cores()` cores. Below the minimum,
    /// `cores` is not called: on Linux the active processor count is read from the
    /// process's CPU quota files, which costs more than a small batch's work.
    static func forEach(in count: Int, parallelFrom minimumCount: Int, partsPerCore: Int, cores coreCount: () -> Int,
                        _ body: @Sendable (Range<Int>) -> Void) {
        let cores = count >= minimumCount && count > 1 ? max(1, coreCount()) : 1
        let partCount = cores > 1 ? min(count, cores * min(max(1, partsPerCore), 64)) : 1
        guard partCount > 1 else {
            body(0..<max(count, 0))
            return
        }
        // Parts differ by at most one element, so none is empty (and nothing overflows).
        let base = count / partCount, extra = count % partCount
        @Sendable func start(_ part: Int) -> Int { part * base + min(part, extra) }
        DispatchQueue.concurrentPerform(iterations: partCount) { part in
            body(start(part)..<start(part + 1))
        }
    }

    /// `transform` of every element of `elements`, in order, computed on contiguous parts as
    /// ``forEach(in:parallelFrom:partsPerCore:_:)`` splits them.
    ///
    /// - Throws: What `transform` threw for the first element (in order) it failed on; the
    ///   other parts run to their end or their own failure first.
    /// - Complexity: `transform`'s work, divided among the cores.
    public static func map<Element: Sendable, Output: Sendable, Failure: Error>(
        _ elements: [Element], parallelFrom minimumCount: Int, partsPerCore: Int = 1,
        _ transform: @Sendable (Element) throws(Failure) -> Output
    ) throws(Failure) -> [Output] {
        try mapParts(elements, parallelFrom: minimumCount, partsPerCore: partsPerCore) { (part) throws(Failure) in
            var outputs: [Output] = []
            outputs.reserveCapacity(part.count)
            for element in part { outputs.append(try transform(element)) }
            return outputs
        }
    }

    /// The outputs of `transform` on contiguous parts of `elements` (as
    /// ``forEach(in:parallelFrom:partsPerCore:_:)`` splits them), joined in order: for work
    /// that keeps something from one element to the next within a part (a buffer to reuse).
    /// `transform` returns one output per element of its part.
    ///
    /// - Throws: What `transform` threw on the first part (in order) it failed on; the other
    ///   parts run to their end or their own failure first.
    /// - Complexity: `transform`'s work, divided among the cores.
    public static func mapParts<Element: Sendable, Output: Sendable, Failure: Error>(
        _ elements: [Element], parallelFrom minimumCount: Int, partsPerCore: Int = 1,
        _ transform: @Sendable (ArraySlice<Element>) throws(Failure) -> [Output]
    ) throws(Failure) -> [Output] {
        let parts = Locked<[Int: Result<[Output], Failure>]>([:])
        forEach(in: elements.count, parallelFrom: minimumCount, partsPerCore: partsPerCore) { range in
            let result = Result { () throws(Failure) in try transform(elements[range]) }
            parts.withLock { $0[range.lowerBound] = result }
        }
        var outputs: [Output] = []
        outputs.reserveCapacity(elements.count)
        for (_, part) in parts.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
            outputs.append(contentsOf: try part.get())
        }
        return outputs
    }
}
