import LLVSCore
import Testing
@testable import LLVSHistory

/// The named history shapes: root, linear, branch, merge of merges, criss-cross, unrelated
/// roots — each with heads, ancestry, merge bases and topological order.
@Suite struct HistoryShapeTests {
    @Test func emptyHistory() throws {
        let history = History()
        #expect(history.isEmpty)
        #expect(history.headIdentifiers.isEmpty)
        #expect(history.mostRecentHead == nil)
        #expect(Array(history).isEmpty)
    }

    @Test func singleRoot() throws {
        let history = try history([("A", [])])
        #expect(history.headIdentifiers.strings == ["A"])
        #expect(history.rootIdentifiers.strings == ["A"])
        #expect(try history.generation(of: "A") == 1)
        #expect(try history.mergeBases("A", "A").strings == ["A"])
        #expect(try history.isAncestor("A", of: "A") == false)
        #expect(history.mostRecentHead?.id == "A")
    }

    @Test func linearHistory() throws {
        let history = try history([("A", []), ("B", ["A"]), ("C", ["B"])])
        #expect(history.headIdentifiers.strings == ["C"])
        #expect(try history.isAncestor("A", of: "C"))
        #expect(try !history.isAncestor("C", of: "A"))
        #expect(try history.mergeBases("B", "C").strings == ["B"])
        #expect(try history.mergeBases("C", "A").strings == ["A"])
        #expect(try history.greatestCommonAncestor(ofVersionsIdentifiedBy: ("C", "B")) == "B")
        #expect(Array(history).map(\.id).strings == ["C", "B", "A"])
        #expect(try history.generation(of: "C") == 3)
        #expect(history.version(identifiedBy: "B")?.successors.ids == ["C"])
        #expect(history.version(identifiedBy: "B")?.predecessors?.idOfFirst == "A")
        #expect(try history.successorIdentifiers(of: "C").isEmpty)
    }

    @Test func branch() throws {
        let history = try history([("A", []), ("B", ["A"]), ("C", ["A"])])
        #expect(history.headIdentifiers.strings == ["B", "C"])
        #expect(try history.mergeBases("B", "C").strings == ["A"])
        #expect(try history.successorIdentifiers(of: "A").strings == ["B", "C"])
        #expect(history.mostRecentHead?.id == "C") // the later timestamp
        #expect(try !history.isAncestor("B", of: "C"))
    }

    @Test func mostRecentHeadTieIsBrokenByIdentifier() throws {
        var history = History()
        try history.add(version("A", at: 1))
        try history.add(version("Z", ["A"], at: 5))
        try history.add(version("M", ["A"], at: 5))
        #expect(history.mostRecentHead?.id == "Z")
        let reversed = try History(versions: [version("M", ["A"], at: 5), version("Z", ["A"], at: 5), version("A", at: 1)])
        #expect(reversed.mostRecentHead?.id == "Z")
    }

    @Test func mergeOfMerges() throws {
        // A ─ B ─ D ─ F
        //  ╲ C ╱   ╱
        //    ╲ E ─╯
        let history = try history([
            ("A", []), ("B", ["A"]), ("C", ["A"]), ("D", ["B", "C"]), ("E", ["C"]), ("F", ["D", "E"]),
        ])
        #expect(history.headIdentifiers.strings == ["F"])
        #expect(try history.mergeBases("D", "E").strings == ["C"])
        #expect(try history.isAncestor("A", of: "F"))
        #expect(try history.isAncestor("E", of: "F"))
        #expect(try history.generation(of: "F") == 4)
        let order = Array(history).map(\.id).strings
        #expect(order.first == "F")
        #expect(order.last == "A")
        #expect(order.firstIndex(of: "D")! < order.firstIndex(of: "B")!)
        #expect(order.firstIndex(of: "E")! < order.firstIndex(of: "C")!)
    }

    @Test func crissCrossHasTwoMergeBases() throws {
        // B and C both descend from A; D merges (B, C) and E merges (C, B): D and E then have
        // two best common ancestors, B and C, neither an ancestor of the other.
        let history = try history([
            ("A", []), ("B", ["A"]), ("C", ["A"]), ("D", ["B", "C"]), ("E", ["C", "B"]),
            ("F", ["D"]), ("G", ["E"]),
        ])
        #expect(try history.mergeBases("F", "G").strings == ["B", "C"])
        #expect(try history.mergeBases("D", "E").strings == ["B", "C"])
        // Same generation: the later timestamp (C) is the deterministic single pick.
        #expect(try history.greatestCommonAncestor(ofVersionsIdentifiedBy: ("F", "G")) == "C")
        #expect(try history.greatestCommonAncestor(ofVersionsIdentifiedBy: ("G", "F")) == "C")
    }

    @Test func unrelatedRoots() throws {
        let history = try history([("R1", []), ("X", ["R1"]), ("R2", []), ("Y", ["R2"]), ("Z", ["X", "Y"])])
        #expect(history.rootIdentifiers.strings == ["R1", "R2"])
        #expect(try history.mergeBases("X", "Y").isEmpty)
        #expect(try history.greatestCommonAncestor(ofVersionsIdentifiedBy: ("X", "Y")) == nil)
        #expect(try !history.isAncestor("R1", of: "Y"))
        #expect(try history.mergeBases("Z", "Y").strings == ["Y"])
        #expect(try history.isAncestor("R2", of: "Z"))
        #expect(history.headIdentifiers.strings == ["Z"])
    }

    @Test func topologicalOrderIsNewestFirstAmongReadyVersions() throws {
        // Two independent chains interleave by timestamp.
        var history = History()
        try history.add(version("a1", at: 1))
        try history.add(version("b1", at: 2))
        try history.add(version("a2", ["a1"], at: 3))
        try history.add(version("b2", ["b1"], at: 4))
        #expect(Array(history).map(\.id).strings == ["b2", "a2", "b1", "a1"])
        // A successor with an older timestamp still comes before its predecessor.
        try history.add(version("c", ["b2"], at: 0))
        #expect(Array(history).map(\.id).strings == ["a2", "a1", "c", "b2", "b1"])
    }

    @Test func iterationIsLazy() throws {
        let history = try deepForkedHistory(depth: 50_000, branchLength: 2)
        var iterator = history.makeIterator()
        let firstThree = (0..<3).compactMap { _ in iterator.next()?.id }
        #expect(firstThree.strings == ["b2", "a2", "b1"])
    }
}
