import Foundation
import LLVSCore
import Testing
@testable import LLVSZones

/// The memory zone's runs of sorted keys (the shared contract is in ConformanceTests and
/// ZonePropertyTests).
@Suite struct MemoryZoneTests {
    /// A version stored one item at a time, in random order, reads back whole and stays in
    /// O(log n) runs; a key stored again keeps its first data.
    @Test func aVersionStoredPieceByPieceStaysInFewRuns() throws {
        var generator = SystemRandomNumberGenerator()
        var runs = SortedRuns()
        let keys = (0..<1_000).map { ZoneReference.Key(String(format: "key %04d", $0)) }
        for (count, key) in keys.shuffled(using: &generator).enumerated() {
            runs.add([(key, Data(key.rawValue.utf8))])
            #expect(runs.runCount <= Int(log2(Double(count + 1))) + 1)
        }
        runs.add([(keys[3], Data("later".utf8))])
        for key in keys {
            #expect(runs.data(for: key) == Data(key.rawValue.utf8))
        }
        #expect(runs.data(for: ZoneReference.Key("key 1000")) == nil)
        #expect(runs.data(for: ZoneReference.Key("")) == nil)
    }

    /// Large runs whose keys follow the last run's (a bulk version stored in ascending
    /// parts) stay runs of their own, not merged; smaller or overlapping runs still merge,
    /// and every key is found in whichever run holds it.
    @Test func ascendingLargePartsStayApartAndOthersMerge() throws {
        var runs = SortedRuns()
        let partCount = SortedRuns.separateRunCount
        let key = { (index: Int) in ZoneReference.Key(String(format: "key %07d", index)) }
        for part in 0..<5 {
            runs.add((part * partCount..<(part + 1) * partCount).map { (key($0), Data("\($0)".utf8)) })
        }
        #expect(runs.runCount == 5)
        // A small run after them merges by the usual rule; a large one that overlaps merges.
        runs.add([(key(5 * partCount), Data("small".utf8))])
        #expect(runs.runCount == 6)
        runs.add((0..<partCount).map { (key($0 * 5 + 7), Data("overlapping".utf8)) })
        #expect(runs.runCount < 7)
        for index in stride(from: 0, to: 5 * partCount, by: 97) {
            #expect(runs.data(for: key(index)) == Data("\(index)".utf8))
        }
        #expect(runs.data(for: key(5 * partCount)) == Data("small".utf8))
        #expect(runs.data(for: key(5 * partCount + 2)) == Data("overlapping".utf8))
        #expect(runs.data(for: key(6 * partCount)) == nil)
    }

    /// One batch of a million-item shape (here 100,000): one run, every key found.
    @Test func aBulkBatchIsOneRun() throws {
        let zone = MemoryZone()
        let items = (0..<100_000).map { ZoneItem(reference: ZoneReference(key: .init("k\($0)"), version: "V"), data: Data([UInt8(truncatingIfNeeded: $0)])) }
        try zone.store(items.reversed())
        let found = try zone.data(for: items.map(\.reference))
        #expect(found == items.map(\.data))
    }
}
