import LLVSCore
import LLVSTesting
import LLVSTestingGenerators
import PropertyBased
import Testing
@testable import LLVSHistory

/// The graph drawing over random DAGs (``RandomDAG``: random parents, merges, unrelated
/// roots, frequent timestamp ties), ``cases`` each.
@Suite struct HistoryGraphPropertyTests {
    static let cases = 1_000

    @Test func everyVersionIsDrawnOnceAfterItsSuccessorsWithWellFormedLines() async {
        await propertyCheck(count: Self.cases, input: RandomDAG.generator) { dag in
            let history = try dag.sequentialHistory()
            let lines = history.graphLines()
            let drawn = lines.compactMap(\.versionId)
            #expect(drawn.count == dag.count)
            #expect(Set(drawn) == Set(dag.ids), "every version on exactly one line")
            #expect(drawn == Array(history).map(\.id), "newest first, as iteration orders the history")
            let position = Dictionary(drawn.enumerated().map { ($1, $0) }, uniquingKeysWith: min)
            var problems: [String] = []
            for i in 0..<dag.count {
                for p in dag.predecessors[i] {
                    guard let successor = position[dag.ids[i]], let predecessor = position[dag.ids[p]], successor < predecessor else {
                        problems.append("v\(p) is not drawn after its successor v\(i)")
                        continue
                    }
                }
            }
            for (index, line) in lines.enumerated() {
                let characters = Array(line.graph)
                if line.graph.isEmpty || characters.last == " " { problems.append("line \(index) is empty or ends in a space: '\(line.graph)'") }
                if line.versionId != nil {
                    if characters.filter({ $0 == "*" }).count != 1 { problems.append("line \(index) has not exactly one '*': \(line.graph)") }
                    for (offset, character) in characters.enumerated() {
                        let allowed: Set<Character> = offset.isMultiple(of: 2) ? ["*", "|", " "] : [" "]
                        if !allowed.contains(character) { problems.append("line \(index) has '\(character)' at \(offset): \(line.graph)") }
                    }
                } else if !line.graph.allSatisfy({ "|/\\_ ".contains($0) }) {
                    problems.append("connector line \(index) has other characters: \(line.graph)")
                }
            }
            #expect(problems.isEmpty, "\(problems)\n\(lines.map(\.graph).joined(separator: "\n"))")
        }
    }

    @Test func everyLaneIsClosedAfterTheLastVersion() async {
        await propertyCheck(count: Self.cases, input: RandomDAG.generator) { dag in try Self.checkLanes(of: dag) }
    }

    /// The failure a clean-clone CI run found with seed
    /// `lWRbzO7Wua6BqN4/ranZHrhVx1onUpHIMuzUsIuixeY=`, shrunk: three merges of the same two
    /// roots hold six lanes for five versions, against the old bound of a lane per version,
    /// which the layout never promised (a version's lanes collapse when it is drawn).
    @Test func severalMergesOfTheSameParentsKeepALanePerEdge() throws {
        for keys in [[0, 1, 2, 3, 4], [4, 3, 2, 1, 0]] {
            let kinds = [0, 0, 7, 7, 7], firsts = [0, 0, 1, 0, 0], seconds = [0, 0, 0, 1, 1]
            let dag = RandomDAG(steps: (0..<5).map { (kinds[$0], firsts[$0], seconds[$0], 0, keys[$0]) })
            #expect(dag.description == "v0:root@0 v1:root@0 v2:v1+v0@0 v3:v0+v1@0 v4:v0+v1@0")
            try Self.checkLanes(of: dag)
        }
    }

    /// After each version is placed, the lanes are exactly the edges from the versions
    /// placed to those not placed yet: one lane per such edge (several merges of one
    /// version each keep a lane until it is drawn, and then collapse into one), none left
    /// over. At the end no lane is open, and the lines are `graphLines()`'s.
    static func checkLanes(of dag: RandomDAG) throws {
        let history = try dag.shuffledHistory()
        var layout = HistoryGraphLayout()
        var lines: [HistoryGraphLine] = []
        var placed: Set<Version.ID> = []
        var awaited: [Version.ID: Int] = [:]
        for version in history {
            let step = layout.place(version)
            lines += step.leading + [step.versionLine] + (step.trailing.map { [$0] } ?? [])
            placed.insert(version.id)
            awaited[version.id] = nil
            for predecessor in version.predecessorIds { awaited[predecessor, default: 0] += 1 }
            let lanes = Dictionary(layout.lanes.map { ($0, 1) }, uniquingKeysWith: +)
            #expect(lanes == awaited, "a lane per edge into a version not drawn yet, after \(version.id)")
            #expect(layout.lanes.allSatisfy { !placed.contains($0) }, "no lane waits for a version already drawn")
        }
        #expect(layout.lanes.isEmpty, "lanes left open: \(layout.lanes)")
        #expect(lines == history.graphLines())
    }

    @Test func aLimitCutsTheDrawingAfterThatManyVersionLines() async {
        await propertyCheck(count: Self.cases, input: zip(RandomDAG.generator, Gen.int(in: 0...45))) { dag, limit in
            let history = try dag.sequentialHistory()
            let full = history.graphLines()
            let cut = history.graphLines(limit: limit)
            #expect(cut.compactMap(\.versionId).count == min(limit, dag.count))
            #expect(Array(full.prefix(cut.count)) == cut, "a prefix of the whole drawing")
            if limit > 0 { #expect(cut.last?.versionId != nil, "ends with a version line") }
        }
    }
}
