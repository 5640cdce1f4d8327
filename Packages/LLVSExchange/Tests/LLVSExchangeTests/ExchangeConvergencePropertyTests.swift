import Foundation
import LLVSExchangeTesting
import LLVSStoreTesting
import LLVSTesting
import LLVSTestingGenerators
import PropertyBased
import Testing

/// The convergence properties of DESIGN.md section 5 with every exchange of the random
/// histories going through the real exchange path (``ExchangeReplica``). The umbrella's
/// convergence suite runs them with many more histories in a release build.
@Suite struct ExchangeConvergencePropertyTests {
    static func check(_ property: ConvergenceProperty, backend: StoreReplica.Backend, count: Int) async {
        let count = ProcessInfo.processInfo.environment["LLVS_PROPERTY_CASES"].flatMap(Int.init).map { min($0, count) } ?? count
        await propertyCheck(count: count, input: FuzzGen.histories()) { history in
            let violations = try await ConvergenceSimulation.check(history, properties: [property]) { try ExchangeReplica(backend: backend) }
            for violation in violations {
                Issue.record("\(violation)\nHistory as JSON (a regression test can load it):\n\(history.jsonString)")
            }
        }
    }

    @Test func exchangedVersionsRebuildIdenticalValues() async { await Self.check(.replayRebuilds, backend: .memory, count: 200) }
    @Test func replicasConvergeThroughMemoryExchanges() async { await Self.check(.convergence, backend: .memory, count: 200) }
    @Test func replicasConvergeThroughSharedDirectories() async { await Self.check(.convergence, backend: .file, count: 40) }
}
