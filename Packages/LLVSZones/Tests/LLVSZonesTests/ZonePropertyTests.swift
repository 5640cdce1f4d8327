import Foundation
import LLVSCore
import LLVSTesting
import PropertyBased
import Testing
import LLVSZones

/// Random sequences of batches over a small space of keys and versions (so references
/// repeat often) behave like a first-write-wins dictionary, before and after reopening.
@Suite struct ZonePropertyTests {
    /// `(key, version, payload)` triples, grouped into batches of 1–6.
    static let batches = zip(Gen.int(in: 0...5), Gen.int(in: 0...3), Gen.int(in: 0...999))
        .array(of: 1...6).array(of: 1...8)

    static func check(storage: any Storage, batches: [[(Int, Int, Int)]]) throws {
        let directory = try TemporaryDirectory()
        var model: [ZoneReference: Data] = [:]
        do {
            let zone = try storage.makeZones(rootDirectoryURL: directory.url).values
            for batch in batches {
                let items = batch.map { key, version, payload in
                    ZoneItem(reference: ZoneReference(key: .init("k\(key)"), version: .init("v\(version)")),
                             data: Data("\(payload)".utf8))
                }
                try zone.store(items)
                // Within a batch the last item for a reference wins; across batches, the first.
                var batchValues: [ZoneReference: Data] = [:]
                for item in items { batchValues[item.reference] = item.data }
                for (reference, data) in batchValues where model[reference] == nil { model[reference] = data }
                let all = (0...5).flatMap { key in (0...3).map { ZoneReference(key: .init("k\(key)"), version: .init("v\($0)")) } }
                #expect(try zone.data(for: all) == all.map { model[$0] })
            }
        }
        let reopened = try storage.makeZones(rootDirectoryURL: directory.url).values
        for (reference, data) in model {
            #expect(try reopened.data(for: reference) == data)
        }
    }

    @Test func fileZoneBehavesLikeAFirstWriteWinsDictionary() async {
        await propertyCheck(count: 200, input: Self.batches) { batches in
            try Self.check(storage: FileStorage(), batches: batches)
        }
    }

    @Test func memoryZoneBehavesLikeAFirstWriteWinsDictionary() async {
        await propertyCheck(count: 1_000, input: Self.batches) { batches in
            try Self.check(storage: MemoryStorage(), batches: batches)
        }
    }
}
