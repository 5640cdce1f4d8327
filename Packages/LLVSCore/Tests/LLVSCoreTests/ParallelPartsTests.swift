import LLVSCore
import LLVSSupport
import Testing

/// `ParallelParts` covers its range exactly once, in contiguous parts, whether it splits it
/// or not.
@Suite struct ParallelPartsTests {
    @Test(arguments: [0, 1, 7, 99, 100, 101, 10_007])
    func everyIndexIsVisitedOnce(count: Int) {
        let visits = Locked([Int](repeating: 0, count: count))
        let parts = Locked<[Range<Int>]>([])
        ParallelParts.forEach(in: count, parallelFrom: 100) { range in
            parts.withLock { $0.append(range) }
            visits.withLock { for index in range { $0[index] += 1 } }
        }
        #expect(visits.withLock { $0.allSatisfy { $0 == 1 } })
        let sorted = parts.withLock { $0 }.sorted { $0.lowerBound < $1.lowerBound }
        #expect(sorted.first?.lowerBound == 0)
        #expect(sorted.last?.upperBound == count)
        #expect(zip(sorted, sorted.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
        if count < 100 { #expect(sorted.count == 1) }
    }
}
