import Foundation
import LLVSStoreTesting
import LLVSTesting
import LLVSTestingGenerators
import PropertyBased
import Testing

/// The convergence properties of DESIGN.md section 5 on the store, over random
/// multi-replica histories (LLVSTesting's `ConvergenceSimulation`): each on the memory
/// backend, and reopening on the file backend. The umbrella's convergence suite runs all
/// seven again, on both backends and with many more histories, in a release build.
/// `LLVS_PROPERTY_CASES` overrides the count (the thread-sanitizer run in CI lowers it).
@Suite struct ConvergencePropertyTests {
    static func check(_ property: ConvergenceProperty, backend: StoreReplica.Backend = .memory, count: Int) async {
        let count = ProcessInfo.processInfo.environment["LLVS_PROPERTY_CASES"].flatMap(Int.init).map { min($0, count) } ?? count
        await propertyCheck(count: count, input: FuzzGen.histories()) { history in
            let violations = try await ConvergenceSimulation.check(history, properties: [property]) { try StoreReplica(backend: backend) }
            for violation in violations {
                Issue.record("\(violation)\nHistory as JSON (a regression test can load it):\n\(history.jsonString)")
            }
        }
    }

    @Test func property1MergesMatchTheModel() async { await Self.check(.mergesMatchModel, count: 250) }
    @Test func property2ReplicasConverge() async { await Self.check(.convergence, count: 250) }
    @Test func property3MergesWithAncestorsFastForward() async { await Self.check(.fastForward, count: 250) }
    @Test func property4HistoryInvariantsHold() async { await Self.check(.historyInvariants, count: 250) }
    @Test func property5ReplayedChangesRebuildEveryVersion() async { await Self.check(.replayRebuilds, count: 250) }
    @Test func property6DiffsAreConsistent() async { await Self.check(.diffsConsistent, count: 250) }
    @Test(arguments: [StoreReplica.Backend.file, .sqlite])
    func property7ReopenedStoresAreIdentical(backend: StoreReplica.Backend) async {
        await Self.check(.reopenIdentical, backend: backend, count: 60)
    }
}
