import Foundation
import LLVSExchangeTesting
import LLVSStoreTesting
import LLVSTesting
import LLVSTestingGenerators
import PropertyBased
import Testing

/// The convergence properties (ARCHITECTURE.md, "Convergence properties") with every
/// exchange of the random histories going through the real exchange path
/// (``ExchangeReplica``): each history is played once and all eight properties are checked
/// on it, 200 histories through memory exchanges and 40 through shared directories on the
/// file backend. The umbrella's convergence suite runs them with many more histories.
/// `LLVS_PROPERTY_CASES` lowers the counts.
@Suite struct ExchangeConvergencePropertyTests {
    static func check(backend: StoreReplica.Backend, count: Int) async {
        let count = ProcessInfo.processInfo.environment["LLVS_PROPERTY_CASES"].flatMap(Int.init).map { min($0, count) } ?? count
        await propertyCheck(count: count, input: FuzzGen.histories()) { history in
            let violations = try await ConvergenceSimulation.check(history, properties: Set(ConvergenceProperty.allCases),
                                                                   makeReplica: ExchangeReplica.factory(backend: backend))
            for violation in violations {
                Issue.record("\(violation)\nHistory as JSON (a regression test can load it):\n\(history.jsonString)")
            }
        }
    }

    @Test func replicasConvergeThroughMemoryExchanges() async { await Self.check(backend: .memory, count: 200) }
    @Test func replicasConvergeThroughSharedDirectories() async { await Self.check(backend: .file, count: 40) }
}
