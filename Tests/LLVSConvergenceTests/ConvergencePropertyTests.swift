import Foundation
import LLVSExchangeTesting
import LLVSStoreTesting
import LLVSTesting
import LLVSTestingGenerators
import PropertyBased
import Testing

/// The eight convergence properties (ARCHITECTURE.md, "Convergence properties") over
/// random multi-replica histories, on the memory, file and SQLite backends. Each history is
/// played once and every property is checked on it; a violation names its property.
///
/// Histories per backend, each checked for all eight properties: 2,000 on the memory
/// backend, 300 on the file backend and 100 on SQLite, whose cases cost far more in system
/// calls (`LLVS_PROPERTY_CASES`, `LLVS_FILE_PROPERTY_CASES` and `LLVS_SQLITE_PROPERTY_CASES`
/// override them). A failure prints the shrunk history, its JSON (save it under
/// `Regressions/` once fixed) and the `.fixedSeed("…")` that replays it (CONTRIBUTING.md).
@Suite struct ConvergencePropertyTests {
    static func cases(on backend: StoreReplica.Backend) -> Int {
        let environment = ProcessInfo.processInfo.environment
        switch backend {
        case .memory: return environment["LLVS_PROPERTY_CASES"].flatMap(Int.init) ?? 2_000
        case .file: return environment["LLVS_FILE_PROPERTY_CASES"].flatMap(Int.init) ?? 300
        case .sqlite: return environment["LLVS_SQLITE_PROPERTY_CASES"].flatMap(Int.init) ?? 100
        }
    }

    @Test(arguments: StoreReplica.Backend.allCases)
    func everyPropertyHoldsOnRandomHistories(backend: StoreReplica.Backend) async {
        await propertyCheck(count: Self.cases(on: backend), input: FuzzGen.histories()) { history in
            // swift-property-based does not report an error a property body throws, so a
            // replica that throws is recorded here.
            do {
                let violations = try await ConvergenceSimulation.check(history, properties: Set(ConvergenceProperty.allCases),
                                                                       makeReplica: ExchangeReplica.factory(backend: backend))
                for violation in violations {
                    Issue.record("\(violation)\nHistory as JSON:\n\(history.jsonString)")
                }
            } catch {
                Issue.record("a replica threw \(error)\nHistory as JSON:\n\(history.jsonString)")
            }
        }
    }
}
