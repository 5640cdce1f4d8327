import Foundation
import LLVSStoreTesting
import LLVSTesting
import LLVSTestingGenerators
import PropertyBased
import Testing

/// The convergence properties (ARCHITECTURE.md, "Convergence properties") on the store,
/// over random multi-replica histories (LLVSTesting's `ConvergenceSimulation`). Each
/// history is played once and all eight properties are checked on it: 250 histories on the
/// memory backend, 60 each on the file and SQLite backends (where property 7 reopens the
/// store from disk). The umbrella's convergence suite runs them again, with exchanges and
/// many more histories. `LLVS_PROPERTY_CASES` lowers the counts.
@Suite struct ConvergencePropertyTests {
    static func cases(on backend: StoreReplica.Backend) -> Int {
        let count = backend == .memory ? 250 : 60
        return ProcessInfo.processInfo.environment["LLVS_PROPERTY_CASES"].flatMap(Int.init).map { min($0, count) } ?? count
    }

    @Test(arguments: StoreReplica.Backend.allCases)
    func everyPropertyHoldsOnRandomHistories(backend: StoreReplica.Backend) async {
        await propertyCheck(count: Self.cases(on: backend), input: FuzzGen.histories()) { history in
            let violations = try await ConvergenceSimulation.check(history, properties: Set(ConvergenceProperty.allCases)) {
                try StoreReplica(backend: backend)
            }
            for violation in violations {
                Issue.record("\(violation)\nHistory as JSON (a regression test can load it):\n\(history.jsonString)")
            }
        }
    }
}
