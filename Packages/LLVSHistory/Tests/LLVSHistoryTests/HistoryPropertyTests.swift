import LLVSCore
import LLVSTesting
import LLVSTestingGenerators
import PropertyBased
import Testing
@testable import LLVSHistory

/// Properties of the history graph (convergence property 4, ARCHITECTURE.md) over random
/// DAGs (random parents among earlier versions, random merges, unrelated roots) from the
/// testing-support package's ``RandomDAG``, checked against its ``AncestryOracle``.
///
/// Each property runs ``cases`` random DAGs (at least 1,000, as CI requires) and checks
/// every pair of versions in each. Mismatches are collected per DAG and reported in one
/// expectation, so a failure lists every wrong answer for the shrunk DAG. A failure also
/// prints a `.fixedSeed("…")` trait: add it to the test to replay it (CONTRIBUTING.md,
/// "Replaying a property-test failure").
@Suite struct HistoryPropertyTests {
    static let cases = 1_000

    @Test func headsAreExactlyTheVersionsWithoutSuccessors() async {
        await propertyCheck(count: Self.cases, input: RandomDAG.generator) { dag in
            let history = try dag.sequentialHistory()
            let oracle = AncestryOracle(dag)
            let expected = Set((0..<dag.count).filter { oracle.successors[$0].isEmpty }.map { dag.ids[$0] })
            #expect(history.headIdentifiers == expected)
            var mismatches: [String] = []
            for i in 0..<dag.count where try history.successorIdentifiers(of: dag.ids[i]) != Set(oracle.successors[i].map { dag.ids[$0] }) {
                mismatches.append("successors of v\(i)")
            }
            #expect(mismatches.isEmpty, "\(mismatches)")
            let newest = expected.compactMap(history.version(identifiedBy:)).max { RecencyKey($0) < RecencyKey($1) }
            #expect(history.mostRecentHead?.id == newest?.id)
        }
    }

    @Test func mergeBasesAreExactlyTheBestCommonAncestors() async {
        await propertyCheck(count: Self.cases, input: RandomDAG.generator) { dag in
            let history = try dag.sequentialHistory()
            let oracle = AncestryOracle(dag)
            var mismatches: [String] = []
            for a in 0..<dag.count {
                for b in 0..<dag.count {
                    let bases = try history.mergeBases(dag.ids[a], dag.ids[b])
                    let expected = oracle.bestCommonAncestors(a, b).map { dag.ids[$0] }.sorted()
                    if bases != expected {
                        mismatches.append("merge bases of v\(a) and v\(b): \(bases.map(\.rawValue)), expected \(expected.map(\.rawValue))")
                    }
                    let single = try history.greatestCommonAncestor(ofVersionsIdentifiedBy: (dag.ids[a], dag.ids[b]))
                    if !(single.map { bases.contains($0) } ?? bases.isEmpty) {
                        mismatches.append("greatest common ancestor of v\(a) and v\(b) is \(String(describing: single))")
                    }
                }
            }
            #expect(mismatches.isEmpty, "\(mismatches)")
        }
    }

    @Test func mergeBasesOfSetsAreTheBestCommonAncestors() async {
        let input = zip(RandomDAG.generator, Gen.int(in: 0...1_000).array(of: 1...4), Gen.int(in: 0...1_000).array(of: 1...4))
        await propertyCheck(count: Self.cases, input: input) { dag, firstSeeds, secondSeeds in
            let history = try dag.sequentialHistory()
            let oracle = AncestryOracle(dag)
            let first = firstSeeds.map { $0 % dag.count }, second = secondSeeds.map { $0 % dag.count }
            let bases = try history.mergeBases(of: first.map { dag.ids[$0] }, and: second.map { dag.ids[$0] })
            #expect(bases == oracle.bestCommonAncestors(of: first, and: second).map { dag.ids[$0] }.sorted(),
                    "bases of \(first) and \(second)")
        }
    }

    @Test func reachableVersionsAreTheSetDifferenceInTopologicalOrder() async {
        let input = zip(RandomDAG.generator, Gen.int(in: 0...1_000).array(of: 1...4), Gen.int(in: 0...1_000).array(of: 0...4))
        await propertyCheck(count: Self.cases, input: input) { dag, includedSeeds, excludedSeeds in
            let history = try dag.sequentialHistory()
            let oracle = AncestryOracle(dag)
            let included = includedSeeds.map { $0 % dag.count }, excluded = excludedSeeds.map { $0 % dag.count }
            let found = try history.versions(reachableFrom: included.map { dag.ids[$0] }, excludingAncestorsOf: excluded.map { dag.ids[$0] })
            let reachable = included.reduce(UInt64(0)) { $0 | oracle.inclusiveAncestors[$1] }
            let unwanted = excluded.reduce(UInt64(0)) { $0 | oracle.inclusiveAncestors[$1] }
            let expected = Set((0..<dag.count).filter { reachable & ~unwanted & (1 << UInt64($0)) != 0 }.map { dag.ids[$0] })
            #expect(Set(found) == expected, "reachable from \(included) excluding \(excluded)")
            #expect(found.count == expected.count, "no version listed twice")
            let position = Dictionary(uniqueKeysWithValues: found.enumerated().map { ($1, $0) })
            for (index, id) in found.enumerated() {
                for predecessor in history.version(identifiedBy: id)?.predecessorIds ?? [] {
                    if let other = position[predecessor] { #expect(other < index, "\(predecessor) listed after its successor \(id)") }
                }
            }
        }
    }

    @Test func maximalVersionsAreTheMembersWithoutDescendantsAmongThem() async {
        let input = zip(RandomDAG.generator, Gen.int(in: 0...1_000).array(of: 0...8))
        await propertyCheck(count: Self.cases, input: input) { dag, seeds in
            let history = try dag.sequentialHistory()
            let oracle = AncestryOracle(dag)
            let members = Set(seeds.map { $0 % dag.count })
            let expected = members.filter { a in !members.contains { b in oracle.isProperAncestor(a, of: b) } }.map { dag.ids[$0] }.sorted()
            #expect(try history.maximalVersions(of: members.map { dag.ids[$0] }) == expected, "maximal among \(members.sorted())")
        }
    }

    @Test func ancestryMatchesTheOracle() async {
        await propertyCheck(count: Self.cases, input: RandomDAG.generator) { dag in
            let history = try dag.sequentialHistory()
            let oracle = AncestryOracle(dag)
            var mismatches: [String] = []
            for a in 0..<dag.count {
                for b in 0..<dag.count {
                    let answer = try history.isAncestor(dag.ids[a], of: dag.ids[b])
                    if answer != oracle.isProperAncestor(a, of: b) {
                        mismatches.append("isAncestor(v\(a), of: v\(b)) answered \(answer)")
                    }
                    if answer, try history.generation(of: dag.ids[a]) >= history.generation(of: dag.ids[b]) {
                        mismatches.append("generation of v\(a) is not below that of its descendant v\(b)")
                    }
                }
            }
            #expect(mismatches.isEmpty, "\(mismatches)")
        }
    }

    @Test func topologicalOrderRespectsEveryEdge() async {
        await propertyCheck(count: Self.cases, input: RandomDAG.generator) { dag in
            let order = Array(try dag.sequentialHistory()).map(\.id)
            #expect(order.count == dag.count)
            #expect(Set(order).count == dag.count)
            let position = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })
            var mismatches: [String] = []
            for i in 0..<dag.count {
                for p in dag.predecessors[i] where position[dag.ids[i]]! > position[dag.ids[p]]! {
                    mismatches.append("v\(i) comes after its predecessor v\(p)")
                }
            }
            #expect(mismatches.isEmpty, "\(mismatches)")
        }
    }

    @Test func resultsDoNotDependOnInsertionOrder() async {
        await propertyCheck(count: Self.cases, input: RandomDAG.generator) { dag in
            let sequential = try dag.sequentialHistory()
            let shuffled = try dag.shuffledHistory()
            #expect(shuffled.headIdentifiers == sequential.headIdentifiers)
            #expect(shuffled.rootIdentifiers == sequential.rootIdentifiers)
            #expect(shuffled.mostRecentHead?.id == sequential.mostRecentHead?.id)
            #expect(Array(shuffled).map(\.id) == Array(sequential).map(\.id))
            var mismatches: [String] = []
            for a in 0..<dag.count {
                let idA = dag.ids[a]
                if try shuffled.generation(of: idA) != sequential.generation(of: idA) {
                    mismatches.append("generation of v\(a)")
                }
                for b in a..<dag.count {
                    let idB = dag.ids[b]
                    if try shuffled.mergeBases(idA, idB) != sequential.mergeBases(idA, idB) {
                        mismatches.append("merge bases of v\(a) and v\(b)")
                    }
                    if try shuffled.greatestCommonAncestor(ofVersionsIdentifiedBy: (idA, idB))
                        != sequential.greatestCommonAncestor(ofVersionsIdentifiedBy: (idA, idB)) {
                        mismatches.append("greatest common ancestor of v\(a) and v\(b)")
                    }
                }
            }
            #expect(mismatches.isEmpty, "\(mismatches)")
        }
    }
}
