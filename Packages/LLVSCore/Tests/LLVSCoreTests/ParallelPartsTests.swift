import Foundation
import LLVSCore
@testable import LLVSSupport
import Testing

/// `ParallelParts` covers its range exactly once, in contiguous parts, whether it splits it
/// or not.
@Suite struct ParallelPartsTests {
    @Test(arguments: [0, 1, 7, 99, 100, 101, 10_007], [1, 4, 0, -3, 1_000])
    func everyIndexIsVisitedOnce(count: Int, partsPerCore: Int) {
        let visits = Locked([Int](repeating: 0, count: count))
        let parts = Locked<[Range<Int>]>([])
        ParallelParts.forEach(in: count, parallelFrom: 100, partsPerCore: partsPerCore) { range in
            parts.withLock { $0.append(range) }
            visits.withLock { for index in range { $0[index] += 1 } }
        }
        #expect(visits.withLock { $0.allSatisfy { $0 == 1 } })
        let sorted = parts.withLock { $0 }.sorted { $0.lowerBound < $1.lowerBound }
        #expect(sorted.first?.lowerBound == 0)
        #expect(sorted.last?.upperBound == count)
        #expect(zip(sorted, sorted.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
        if count < 100 { #expect(sorted.count == 1) }
        // At most `partsPerCore` (1 to 64) parts per core, never an empty one.
        let cores = ProcessInfo.processInfo.activeProcessorCount
        #expect(sorted.count <= max(1, cores * min(max(1, partsPerCore), 64)))
        #expect(count == 0 || sorted.allSatisfy { !$0.isEmpty })
    }

    /// The core count is asked for only when a range is long enough to split (on Linux it
    /// costs file reads), and a range that splits gets `partsPerCore` parts per core.
    @Test(arguments: [0, 1, 15, 16, 17, 40], [1, 4])
    func theCoreCountIsAskedForOnlyFromTheMinimum(count: Int, partsPerCore: Int) {
        let asked = Locked(0)
        let parts = Locked(0)
        ParallelParts.forEach(in: count, parallelFrom: 16, partsPerCore: partsPerCore, cores: {
            asked.withLock { $0 += 1 }
            return 3
        }) { _ in parts.withLock { $0 += 1 } }
        #expect(asked.withLock { $0 } == (count >= 16 ? 1 : 0))
        #expect(parts.withLock { $0 } == (count >= 16 ? min(count, 3 * partsPerCore) : 1))
    }

    /// A failure `map` reports: the element it failed on.
    struct Failure: Error, Equatable {
        let element: Int
    }

    @Test(arguments: [0, 1, 7, 99, 100, 101, 10_007], [1, 4])
    func mapKeepsTheOrderOfTheElements(count: Int, partsPerCore: Int) throws {
        let elements = Array(0..<count).map { $0 * 3 + 1 }
        let mapped = try ParallelParts.map(elements, parallelFrom: 100, partsPerCore: partsPerCore) { (element) throws(Failure) -> String in "\(element)" }
        #expect(mapped == elements.map { "\($0)" })
    }

    @Test(arguments: [7, 10_007], [1, 4])
    func mapThrowsTheFailureOfTheFirstElementThatFails(count: Int, partsPerCore: Int) {
        // Elements 5 and count − 2 fail: with two parts, each part fails on its own, and the
        // earlier element's failure is the one reported.
        #expect(throws: Failure(element: 5)) {
            try ParallelParts.map(Array(0..<count), parallelFrom: 100, partsPerCore: partsPerCore) { (element) throws(Failure) -> Int in
                if element == 5 || element == count - 2 { throw Failure(element: element) }
                return element
            }
        }
    }

    /// `mapParts` hands each part its contiguous run and joins the outputs in order; state
    /// kept within a part (a counter here) starts afresh in each.
    @Test(arguments: [0, 1, 7, 99, 100, 101, 10_007], [1, 4])
    func mapPartsJoinsThePartsInOrder(count: Int, partsPerCore: Int) throws {
        let elements = Array(0..<count)
        let parts = Locked(0)
        let mapped = try ParallelParts.mapParts(elements, parallelFrom: 100, partsPerCore: partsPerCore) { (part) throws(Failure) -> [String] in
            parts.withLock { $0 += 1 }
            var seen = 0
            return part.map { element in
                seen += 1
                return "\(element):\(seen)"
            }
        }
        #expect(mapped.map { Int($0.prefix { $0 != ":" }) } == elements)
        // Each part counts from 1, so as many elements say 1 as there were parts.
        #expect(mapped.filter { $0.hasSuffix(":1") }.count == (count == 0 ? 0 : parts.withLock { $0 }))
    }

    @Test func mapPartsThrowsTheFailureOfTheFirstPartThatFails() {
        #expect(throws: Failure(element: 5)) {
            try ParallelParts.mapParts(Array(0..<10_007), parallelFrom: 100, partsPerCore: 4) { (part) throws(Failure) -> [Int] in
                if let failing = part.first(where: { $0 == 5 || $0 == 10_005 }) { throw Failure(element: failing) }
                return Array(part)
            }
        }
    }
}
