import LLVSCore
import Testing
@testable import LLVSHistory

/// Bad input gets a typed error naming the versions, and leaves the history untouched.
@Suite struct HistoryErrorTests {
    static func base() throws -> History {
        try history([("A", []), ("B", ["A"])])
    }

    static func expectUnchanged(_ history: History) throws {
        #expect(history.count == 2)
        #expect(history.headIdentifiers.strings == ["B"])
        #expect(Array(history).map(\.id).strings == ["B", "A"])
        // No identifier of a rejected batch is left in the index, and the index still
        // finds the versions that are there: the history accepts the next valid version.
        for id in ["C", "D", "X", "Y", "S"] { #expect(!history.contains(Version.ID(id))) }
        #expect(history.version(identifiedBy: "B")?.predecessors?.idOfFirst == "A")
        var next = history
        try next.add(version("C", ["B"]))
        #expect(next.count == 3 && next.headIdentifiers.strings == ["C"])
    }

    @Test func duplicateVersionIsRejected() throws {
        var history = try Self.base()
        #expect(throws: History.Error.duplicateVersion("B")) { try history.add(version("B", ["A"])) }
        try Self.expectUnchanged(history)
    }

    @Test func duplicateWithinABatchIsRejected() throws {
        var history = try Self.base()
        #expect(throws: History.Error.duplicateVersion("C")) {
            try history.add(contentsOf: [version("C", ["B"]), version("C", ["A"])])
        }
        try Self.expectUnchanged(history)
    }

    @Test func missingPredecessorIsRejected() throws {
        var history = try Self.base()
        #expect(throws: History.Error.missingPredecessor("Q", of: "C")) { try history.add(version("C", ["B", "Q"])) }
        try Self.expectUnchanged(history)
    }

    @Test func batchWithAMissingPredecessorAddsNothing() throws {
        var history = try Self.base()
        #expect(throws: History.Error.missingPredecessor("nowhere", of: "D")) {
            try history.add(contentsOf: [version("C", ["B"]), version("D", ["nowhere"])])
        }
        try Self.expectUnchanged(history)
        #expect(!history.contains("C"))
    }

    @Test func identicalPredecessorsAreRejected() throws {
        var history = try Self.base()
        #expect(throws: History.Error.identicalPredecessors("C")) { try history.add(version("C", ["B", "B"])) }
        try Self.expectUnchanged(history)
    }

    @Test func nonFiniteTimestampIsRejected() throws {
        var history = try Self.base()
        #expect(throws: History.Error.nonFiniteTimestamp("C")) { try history.add(version("C", ["B"], at: .nan)) }
        #expect(throws: History.Error.nonFiniteTimestamp("C")) { try history.add(version("C", ["B"], at: .infinity)) }
        try Self.expectUnchanged(history)
    }

    @Test func cycleInABatchIsRejected() throws {
        var history = try Self.base()
        #expect(throws: History.Error.cycle(through: ["X", "Y"])) {
            try history.add(contentsOf: [version("X", ["Y"]), version("Y", ["X"]), version("C", ["B"])])
        }
        #expect(throws: History.Error.cycle(through: ["S"])) {
            try history.add(contentsOf: [version("S", ["S"])])
        }
        try Self.expectUnchanged(history)
    }

    @Test func unknownVersionsAreNamed() throws {
        let history = try Self.base()
        #expect(throws: History.Error.unknownVersion("Q")) { try history.isAncestor("Q", of: "A") }
        #expect(throws: History.Error.unknownVersion("Q")) { try history.mergeBases("A", "Q") }
        #expect(throws: History.Error.unknownVersion("Q")) { try history.greatestCommonAncestor(ofVersionsIdentifiedBy: ("Q", "A")) }
        #expect(throws: History.Error.unknownVersion("Q")) { try history.generation(of: "Q") }
        #expect(throws: History.Error.unknownVersion("Q")) { try history.successorIdentifiers(of: "Q") }
        #expect(history.version(identifiedBy: "Q") == nil)
    }

    @Test func errorsDescribeTheProblem() {
        #expect(History.Error.missingPredecessor("P", of: "V").description
            == "Version V names predecessor P, which is not in the history.")
        #expect(History.Error.cycle(through: ["X", "Y"]).description.contains("X, Y"))
    }
}
