import Foundation
import LLVSZones
import Testing

extension ZoneConformance {
    /// Plays `batches` of `(key, version, payload)` triples (keys 0–5, versions 0–3) on a
    /// fresh value zone of `storage` and checks it behaves like a first-write-wins
    /// dictionary — within a batch the last item for a reference wins, across batches the
    /// first — after every batch and after reopening. Each backend's property test feeds it
    /// random batches. Failures are recorded with Swift Testing expectations.
    ///
    /// - Throws: Any error the backend throws.
    public static func checkBatches(_ batches: [[(Int, Int, Int)]], on storage: any Storage) throws {
        let directory = try TemporaryDirectory()
        var model: [ZoneReference: Data] = [:]
        let all = (0...5).flatMap { key in (0...3).map { ZoneReference(key: .init("k\(key)"), version: .init("v\($0)")) } }
        do {
            let zone = try storage.makeZones(rootDirectoryURL: directory.url).values
            for batch in batches {
                let items = batch.map { key, version, payload in
                    ZoneItem(reference: ZoneReference(key: .init("k\(key)"), version: .init("v\(version)")),
                             data: Data("\(payload)".utf8))
                }
                try zone.store(items)
                var batchValues: [ZoneReference: Data] = [:]
                for item in items { batchValues[item.reference] = item.data }
                for (reference, data) in batchValues where model[reference] == nil { model[reference] = data }
                #expect(try zone.data(for: all) == all.map { model[$0] })
            }
        }
        let reopened = try storage.makeZones(rootDirectoryURL: directory.url).values
        #expect(try reopened.data(for: all) == all.map { model[$0] }, "after reopening")
    }
}
