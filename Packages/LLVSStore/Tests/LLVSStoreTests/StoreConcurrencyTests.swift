import Foundation
import LLVSTesting
import Testing
@testable import LLVSStore

/// Many threads using one store at once: writers on their own lines, readers of every
/// version, mergers of the heads, and reloads. Run under the thread sanitizer by
/// `Scripts/test` (`--sanitize=thread`), which reports any data race.
@Suite struct StoreConcurrencyTests {
    @Test(arguments: Backend.allCases)
    func concurrentWritersReadersAndMergers(_ backend: Backend) throws {
        let storeHome = try TestStore(backend)
        defer { withExtendedLifetime(storeHome) {} }
        let store = storeHome.store
        let root = try store.makeVersion(basedOnPredecessor: nil, inserting: [value("shared", "0")])
        let threads = 6, versionsPerThread = 15
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            var head = root.id
            for step in 0..<versionsPerThread {
                switch thread % 3 {
                case 0, 1:
                    if let next = try? store.makeVersion(basedOnPredecessor: head, inserting: [value("t\(thread)-\(step)", "\(step)")],
                                                         updating: [value("shared", "\(thread)-\(step)")]) {
                        head = next.id
                    }
                default:
                    let heads = store.queryHistory { $0.headIdentifiers.sorted() }
                    if heads.count > 1 {
                        _ = try? store.mergeHeads(into: heads[0], resolvingWith: MostRecentChangeFavoringArbiter())
                    }
                    for id in heads { _ = try? store.valueReferences(at: id) }
                    try? store.reloadHistory()
                }
            }
        }
        let written = store.queryHistory { history in
            history.filter { $0.predecessorIds.count == 1 }.count
        }
        #expect(written == 4 * versionsPerThread, "every plain version of the two writer threads per group was kept")
        let final = try store.mergeHeads(into: root.id, resolvingWith: MostRecentChangeFavoringArbiter())
        let values = try store.texts(at: final?.id ?? root.id)
        for thread in [0, 1, 3, 4] {
            for step in 0..<versionsPerThread {
                #expect(values["t\(thread)-\(step)"] == "\(step)")
            }
        }
    }
}
