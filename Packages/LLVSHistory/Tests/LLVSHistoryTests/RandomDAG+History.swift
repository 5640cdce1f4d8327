import LLVSCore
import LLVSTesting
import LLVSTestingGenerators
@testable import LLVSHistory

extension RandomDAG {
    /// Versions added one at a time in creation order.
    func sequentialHistory() throws -> History {
        var history = History()
        for index in 0..<count { try history.add(version(index)) }
        return history
    }

    /// Versions bulk-loaded in the random insertion order.
    func shuffledHistory() throws -> History {
        let order = (0..<count).sorted { (insertionKeys[$0], $0) < (insertionKeys[$1], $1) }
        return try History(versions: order.map(version))
    }
}

extension AncestryOracle {
    /// The oracle of a random DAG.
    init(_ dag: RandomDAG) {
        self.init(predecessors: dag.predecessors)
    }
}
