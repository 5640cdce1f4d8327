import Foundation
import LLVSModelTesting
import LLVSStoreTesting
import LLVSTesting
import Testing

/// The model mode of the convergence harness, on every backend: random model edits on every
/// strategy, several replicas, merges in both orders, hand-made criss-cross merges, and
/// exchanges; every replica must end on one head with identical models. The planted
/// order-dependent rule (the reference's) must be caught.
@Suite struct ModelFuzzTests {
    static func count(_ backend: Backend) -> Int {
        let base = ProcessInfo.processInfo.environment["LLVS_PROPERTY_CASES"].flatMap(Int.init) ?? 1_000
        return backend == .memory ? max(1, base / 5) : max(1, base / 25)
    }

    static func history(seed: UInt64) -> ModelFuzzHistory {
        var generator = SplitMix64(seed: seed)
        return .random(using: &generator)
    }

    @Test(arguments: Backend.allCases)
    func randomModelHistoriesConverge(_ backend: Backend) {
        for seed in 0..<UInt64(Self.count(backend)) {
            let history = Self.history(seed: seed)
            let violations = ModelConvergenceSimulation.check(history, backend: backend)
            guard violations.isEmpty else {
                Issue.record("model history seed \(seed) on \(backend) (llvs-fuzz --models --case-seed \(seed) --backend \(backend)): \(violations)\n\(history)")
                return
            }
        }
    }

    @Test func thePlantedOrderDependentRuleIsFound() {
        var found: (UInt64, ModelViolation)?
        for seed in 0..<UInt64(200) {
            let violations = ModelConvergenceSimulation.check(Self.history(seed: seed), backend: .memory, planting: .firstArgumentWins)
            if let violation = violations.first(where: { $0.property == .orderIndependence }) {
                found = (seed, violation)
                break
            }
        }
        #expect(found != nil, "200 histories never caught the first-argument rule")
        if let (seed, _) = found {
            var shrinker = ModelHistoryShrinker { history in
                ModelConvergenceSimulation.check(history, backend: .memory, planting: .firstArgumentWins).contains { $0.property == .orderIndependence }
            }
            let original = Self.history(seed: seed)
            let minimal = shrinker.shrink(original)
            #expect(minimal.operations.count < original.operations.count, "shrunk to \(minimal)")
            #expect(ModelConvergenceSimulation.check(minimal, backend: .memory).isEmpty, "the same history passes with the real rule")
        }
    }
}
