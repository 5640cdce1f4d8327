import Foundation
import LLVSEncryption
import LLVSExchangeTesting
import LLVSStoreTesting
import LLVSTesting
import LLVSTestingGenerators
import PropertyBased
import Testing

/// The convergence properties (ARCHITECTURE.md, "Convergence properties") with every
/// exchange of the random histories sealed: each replica's exchanges (to each other and to
/// the channel all share, with concurrent senders, out-of-order offers and conflicting
/// copies) go through an `EncryptedExchange` under one store key per history. 40 histories
/// through memory exchanges and 10 through shared directories on the file backend;
/// `LLVS_PROPERTY_CASES` lowers the counts.
@Suite struct EncryptedConvergenceTests {
    static func check(backend: StoreReplica.Backend, count: Int) async {
        let count = ProcessInfo.processInfo.environment["LLVS_PROPERTY_CASES"].flatMap(Int.init).map { min($0, count) } ?? count
        await propertyCheck(count: count, input: FuzzGen.histories()) { history in
            let keys = EncryptionKeys(storeKey: StoreEncryptionKey())
            let makeReplica = ExchangeReplica.factory(backend: backend) { EncryptedExchange(sealing: $0, keys: keys) }
            let violations = try await ConvergenceSimulation.check(history, properties: Set(ConvergenceProperty.allCases), makeReplica: makeReplica)
            for violation in violations {
                Issue.record("\(violation)\nHistory as JSON (a regression test can load it):\n\(history.jsonString)")
            }
        }
    }

    @Test func replicasConvergeThroughEncryptedMemoryExchanges() async { await Self.check(backend: .memory, count: 40) }
    @Test func replicasConvergeThroughEncryptedDirectories() async { await Self.check(backend: .file, count: 10) }
}
