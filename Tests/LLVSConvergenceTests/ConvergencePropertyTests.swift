import Foundation
import LLVSExchangeTesting
import LLVSStoreTesting
import LLVSTesting
import LLVSTestingGenerators
import PropertyBased
import Testing

/// The seven properties of DESIGN.md section 5, each a named property test over random
/// multi-replica histories, on the memory, file and SQLite backends.
///
/// Histories per property: 2,000 on the memory backend, 300 on the file backend and 100 on
/// SQLite, whose cases cost far more in system calls (`LLVS_PROPERTY_CASES`,
/// `LLVS_FILE_PROPERTY_CASES` and `LLVS_SQLITE_PROPERTY_CASES` override them). A failure
/// prints the shrunk history, its JSON (save it under `Regressions/` once fixed) and the `.fixedSeed("…")` that replays
/// it (CONTRIBUTING.md).
@Suite struct ConvergencePropertyTests {
    static func cases(on backend: StoreReplica.Backend) -> Int {
        let environment = ProcessInfo.processInfo.environment
        switch backend {
        case .memory: return environment["LLVS_PROPERTY_CASES"].flatMap(Int.init) ?? 2_000
        case .file: return environment["LLVS_FILE_PROPERTY_CASES"].flatMap(Int.init) ?? 300
        case .sqlite: return environment["LLVS_SQLITE_PROPERTY_CASES"].flatMap(Int.init) ?? 100
        }
    }

    static func check(_ property: ConvergenceProperty, on backend: StoreReplica.Backend) async {
        await propertyCheck(count: cases(on: backend), input: FuzzGen.histories()) { history in
            let violations = try await ConvergenceSimulation.check(history, properties: [property]) { try ExchangeReplica(backend: backend) }
            for violation in violations {
                Issue.record("\(violation)\nHistory as JSON:\n\(history.jsonString)")
            }
        }
    }

    @Test(arguments: StoreReplica.Backend.allCases)
    func property1MergesMatchTheReferenceModel(backend: StoreReplica.Backend) async {
        await Self.check(.mergesMatchModel, on: backend)
    }

    @Test(arguments: StoreReplica.Backend.allCases)
    func property2ReplicasConvergeOnOneHead(backend: StoreReplica.Backend) async {
        await Self.check(.convergence, on: backend)
    }

    @Test(arguments: StoreReplica.Backend.allCases)
    func property3MergesWithAncestorsFastForward(backend: StoreReplica.Backend) async {
        await Self.check(.fastForward, on: backend)
    }

    @Test(arguments: StoreReplica.Backend.allCases)
    func property4HistoryInvariantsHold(backend: StoreReplica.Backend) async {
        await Self.check(.historyInvariants, on: backend)
    }

    @Test(arguments: StoreReplica.Backend.allCases)
    func property5ReplayedChangesRebuildEveryVersion(backend: StoreReplica.Backend) async {
        await Self.check(.replayRebuilds, on: backend)
    }

    @Test(arguments: StoreReplica.Backend.allCases)
    func property6DiffsAreConsistent(backend: StoreReplica.Backend) async {
        await Self.check(.diffsConsistent, on: backend)
    }

    @Test(arguments: StoreReplica.Backend.allCases)
    func property7ReopenedStoresAreIdentical(backend: StoreReplica.Backend) async {
        await Self.check(.reopenIdentical, on: backend)
    }
}
