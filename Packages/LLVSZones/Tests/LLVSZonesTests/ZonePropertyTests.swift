import Foundation
import LLVSCore
import LLVSTesting
import PropertyBased
import Testing
import LLVSZones

/// Random sequences of batches over a small space of keys and versions (so references
/// repeat often) behave like a first-write-wins dictionary, before and after reopening
/// (`ZoneConformance.checkBatches`).
@Suite struct ZonePropertyTests {
    /// `(key, version, payload)` triples, grouped into batches of 1–6.
    static let batches = zip(Gen.int(in: 0...5), Gen.int(in: 0...3), Gen.int(in: 0...999))
        .array(of: 1...6).array(of: 1...8)

    @Test func fileZoneBehavesLikeAFirstWriteWinsDictionary() async {
        await propertyCheck(count: 200, input: Self.batches) { batches in
            try ZoneConformance.checkBatches(batches, on: FileStorage())
        }
    }

    @Test func memoryZoneBehavesLikeAFirstWriteWinsDictionary() async {
        await propertyCheck(count: 1_000, input: Self.batches) { batches in
            try ZoneConformance.checkBatches(batches, on: MemoryStorage())
        }
    }
}
