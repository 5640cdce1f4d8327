import Foundation
import LLVSExchangeTesting
import LLVSStoreTesting
import LLVSTesting
import Testing

/// The harness can fail: for each property, a replica with a fault aimed at it is caught
/// within the first 300 random histories (the property tests show the fault-free store
/// passes). Two of the faults put back convergence bugs the store once had: merge records
/// in call order (one id, two records: property 8) and merges carrying the replica's
/// metadata (replicas that never settle: property 2).
@Suite struct HarnessSensitivityTests {
    static func firstCaught(_ fault: FaultyReplica.Fault, property: ConvergenceProperty) async -> (seed: UInt64, PropertyViolation)? {
        for seed in UInt64(0)..<300 {
            var generator = SplitMix64(seed: seed)
            let history = FuzzHistory.random(using: &generator)
            let makeReplica = ExchangeReplica.factory(backend: .memory)
            let violation = await ConvergenceSimulation.firstFailure(of: history, properties: [property]) {
                FaultyReplica(try makeReplica(), fault: fault)
            }
            if let violation { return (seed, violation) }
        }
        return nil
    }

    @Test(arguments: FaultyReplica.Fault.allCases)
    func eachPropertyCatchesTheFaultAimedAtIt(fault: FaultyReplica.Fault) async {
        let caught = await Self.firstCaught(fault, property: fault.property)
        #expect(caught != nil, "\(fault) went unnoticed by \(fault.property)")
        if let (seed, violation) = caught {
            #expect(violation.property == fault.property)
            print("\(fault): caught by history seed \(seed): \(violation)")
        }
    }
}
