import LLVSCore
import PropertyBased
import Testing
@testable import LLVSHistory

/// The cost claims, checked by counting work rather than timing it (times are measured by
/// `llvs-bench`): a merge-base walk visits the same number of versions whatever the depth
/// of the history below the fork, and bulk loading accepts any order.
@Suite struct HistoryScalingTests {
    @Test func mergeBaseWalkDoesNotGrowWithDepth() throws {
        var visited: [Int] = []
        for depth in [1_000, 100_000] {
            let history = try deepForkedHistory(depth: depth, branchLength: 5)
            let search = history.mergeBaseSearch(try history.index(of: "a5"), try history.index(of: "b5"))
            #expect(search.bases.map { history.nodes[Int($0)].version.id } == [Version.ID("s\(depth)")])
            visited.append(search.visitedCount)
        }
        #expect(visited[0] == visited[1])
        #expect(visited[0] <= 2 * 5 + 2)
    }

    @Test func ancestryQueriesAreCorrectInADeepHistory() throws {
        let history = try deepForkedHistory(depth: 100_000, branchLength: 5)
        #expect(try history.isAncestor("s1", of: "a5"))
        #expect(try history.isAncestor("s99999", of: "b1"))
        #expect(try !history.isAncestor("a1", of: "b5"))
        #expect(try history.generation(of: "a5") == 100_005)
        #expect(history.headIdentifiers.strings == ["a5", "b5"])
    }

    @Test func addingOneVersionAtATimeGrowsStorageGeometrically() throws {
        // Reserving the exact new size on every add made each add copy the whole history
        // (100,000 single adds took 9.6 s instead of 0.23 s). With amortized growth the
        // capacity runs ahead of the count.
        var history = History()
        for i in 1...1_000 {
            try history.add(version("v\(i)", i == 1 ? [] : ["v\(i - 1)"], at: Double(i)))
        }
        #expect(history.nodes.capacity > history.nodes.count)
    }

    @Test func bulkLoadInAnyOrderMatchesSequentialAdds() throws {
        var rng = Xoshiro(seed: (42, 7, 1, 3))
        var versions: [Version] = []
        for i in 0..<20_000 {
            var predecessors: [String] = []
            if i > 0 { predecessors.append("v\(Int.random(in: max(0, i - 50)..<i, using: &rng))") }
            if i > 1, Int.random(in: 0..<4, using: &rng) == 0 {
                let other = "v\(Int.random(in: 0..<i, using: &rng))"
                if other != predecessors[0] { predecessors.append(other) }
            }
            versions.append(version("v\(i)", predecessors, at: Double(Int.random(in: 0..<1000, using: &rng))))
        }
        var sequential = History()
        for v in versions { try sequential.add(v) }
        let shuffled = try History(versions: versions.shuffled(using: &rng))

        #expect(shuffled.headIdentifiers == sequential.headIdentifiers)
        for v in versions {
            #expect(try shuffled.generation(of: v.id) == sequential.generation(of: v.id))
        }
        #expect(Array(shuffled).map(\.id) == Array(sequential).map(\.id))
        #expect(try shuffled.mergeBases("v19999", "v10000") == sequential.mergeBases("v19999", "v10000"))
    }
}
