import LLVSCore
import Testing
@testable import LLVSHistory

/// Exact drawings of `graphLines` for the named history shapes. Each expected drawing lists
/// the graph column, then the version after `:` (connector lines have none). Timestamps are
/// the positions in the `history([...])` list, so later entries are newer.
@Suite struct HistoryGraphTests {
    /// The lines as `graph:version` strings, a connector line as its graph alone.
    private func drawing(_ history: History, limit: Int? = nil) -> [String] {
        history.graphLines(limit: limit).map { line in line.versionId.map { "\(line.graph):\($0)" } ?? line.graph }
    }

    @Test func emptyHistoryDrawsNothing() {
        #expect(History().graphLines().isEmpty)
    }

    @Test func linearHistory() throws {
        let history = try history([("A", []), ("B", ["A"]), ("C", ["B"])])
        #expect(drawing(history) == ["*:C", "*:B", "*:A"])
    }

    @Test func twoHeadsOnOneBase() throws {
        let history = try history([("A", []), ("B", ["A"]), ("C", ["A"])])
        #expect(drawing(history) == ["*:C", "| *:B", "|/", "*:A"])
    }

    @Test func branchAndMerge() throws {
        let history = try history([("A", []), ("B", ["A"]), ("C", ["A"]), ("M", ["B", "C"])])
        #expect(drawing(history) == ["*:M", #"|\"#, "| *:C", "* |:B", "|/", "*:A"])
    }

    @Test func mergeWithALaneToItsRightPushesThatLaneRight() throws {
        let history = try History(versions: [
            version("A", at: 0), version("B", ["A"], at: 1), version("C", ["A"], at: 2),
            version("M", ["B", "C"], at: 7), version("K", ["A"], at: 8), version("H", ["M"], at: 9),
        ])
        #expect(drawing(history) == ["*:H", "| *:K", "* |:M", #"|\ \"#, "| * |:C", "* | |:B", "|/ /", "|/", "*:A"])
    }

    @Test func crissCross() throws {
        let history = try history([("A", []), ("B", ["A"]), ("C", ["A"]), ("D", ["B", "C"]), ("E", ["C", "B"])])
        #expect(drawing(history) == [
            "*:E", #"|\"#, "| | *:D", #"| | |\"#, "|_|_|/", "* | |:C", "| |/", "| *:B", "|/", "*:A",
        ])
    }

    @Test func threeHeadsOnOneBaseCollapseLeftmostFirst() throws {
        let history = try history([("A", []), ("B", ["A"]), ("C", ["A"]), ("D", ["A"])])
        #expect(drawing(history) == ["*:D", "| *:C", "| | *:B", "|/ /", "|/", "*:A"])
    }

    @Test func aLaneJoiningAcrossAnotherDrawsAHorizontalEdge() throws {
        let history = try History(versions: [
            version("X", at: 0), version("A", at: 5), version("P2", ["A"], at: 8), version("Q", ["X"], at: 9), version("P1", ["A"], at: 10),
        ])
        #expect(drawing(history) == ["*:P1", "| *:Q", "| | *:P2", "|_|/", "* |:A", " /", "*:X"])
    }

    @Test func mergeOfUnrelatedRoots() throws {
        let history = try History(versions: [version("R2", at: 0), version("R1", at: 1), version("M", ["R1", "R2"], at: 2)])
        #expect(drawing(history) == ["*:M", #"|\"#, "* |:R1", " /", "*:R2"])
    }

    @Test func limitStopsAfterThatManyVersionLines() throws {
        let heads = try history([("A", []), ("B", ["A"]), ("C", ["A"]), ("D", ["A"])])
        #expect(drawing(heads, limit: 3) == ["*:D", "| *:C", "| | *:B"])
        #expect(drawing(heads, limit: 4) == drawing(heads))
        #expect(drawing(heads, limit: 100) == drawing(heads))
        #expect(drawing(heads, limit: 0).isEmpty)
        #expect(drawing(heads, limit: -1).isEmpty)
        let merge = try history([("A", []), ("B", ["A"]), ("C", ["A"]), ("M", ["B", "C"])])
        #expect(drawing(merge, limit: 1) == ["*:M"], "the merge's connector after the last version line is left out")
        #expect(drawing(merge, limit: 2) == ["*:M", #"|\"#, "| *:C"])
    }
}
