import Foundation
import LLVS
import PropertyBased
import Testing

/// Random edit sequences through `import LLVS` alone behave like a dictionary per version.
@Suite struct UmbrellaPropertyTests {
    static let edits = zip(Gen.int(in: 0...4), Gen.int(in: 0...2)).array(of: 1...5).array(of: 1...10)

    @Test func versionsHoldWhatWasWritten() async {
        await propertyCheck(count: 1_000, input: Self.edits) { batches in
            let store = try Store(rootDirectoryURL: URL(fileURLWithPath: "/umbrella"), storage: MemoryStorage())
            var model: [String: String] = [:]
            var head: Version.ID?
            var snapshots: [(Version.ID, [String: String])] = []
            for (step, batch) in batches.enumerated() {
                var changes: [Value.ID: Value.Change] = [:]
                for (key, action) in batch {
                    let id = Value.ID("k\(key)")
                    changes[id] = action == 0 ? .remove(id) : .update(Value(id: id, data: Data("\(step)".utf8)))
                    model["k\(key)"] = action == 0 ? nil : "\(step)"
                }
                head = try store.makeVersion(basedOnPredecessor: head, storing: Array(changes.values)).id
                snapshots.append((head!, model))
            }
            for (version, expected) in snapshots {
                var found: [String: String] = [:]
                for reference in try store.valueReferences(at: version) {
                    found[reference.valueId.rawValue] = try store.value(storedAt: reference).map { String(decoding: $0.data, as: UTF8.self) }
                }
                #expect(found == expected)
            }
        }
    }
}
