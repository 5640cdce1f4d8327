import LLVSCore
import Testing
@testable import LLVSHistory

/// `versionIdentifiers(addedAt:)`: positions in the order versions were added, stable as
/// versions are appended, clamped at both ends (a peer's cursor relies on this).
@Suite struct HistoryAdditionOrderTests {
    @Test func positionsNameTheVersionsInAdditionOrderAndStayStable() throws {
        var history = try history([("A", []), ("B", ["A"]), ("C", ["A"])])
        #expect(history.versionIdentifiers(addedAt: 0..<3) == ["A", "B", "C"])
        #expect(history.versionIdentifiers(addedAt: 1..<2) == ["B"])
        try history.add(Version(id: "D", predecessors: .init(idOfFirst: "B", idOfSecond: "C")))
        #expect(history.versionIdentifiers(addedAt: 3..<10) == ["D"], "clamped past the end")
        #expect(history.versionIdentifiers(addedAt: 0..<2) == ["A", "B"], "earlier positions keep their versions")
        #expect(history.versionIdentifiers(addedAt: 4..<9).isEmpty)
        #expect(history.versionIdentifiers(addedAt: 9..<12).isEmpty)
        #expect(history.versionIdentifiers(addedAt: -2..<1) == ["A"], "clamped before the start")
    }
}
