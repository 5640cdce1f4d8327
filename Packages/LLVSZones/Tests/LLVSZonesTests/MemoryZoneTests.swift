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

    /// One batch of a million-item shape (here 100,000): one run, every key found.
    @Test func aBulkBatchIsOneRun() throws {
        let zone = MemoryZone()
        let items = (0..<100_000).map { ZoneItem(reference: ZoneReference(key: .init("k\($0)"), version: "V"), data: Data([UInt8(truncatingIfNeeded: $0)])) }
        try zone.store(items.reversed())
        let found = try zone.data(for: items.map(\.reference))
        #expect(found == items.map(\.data))
    }
}
