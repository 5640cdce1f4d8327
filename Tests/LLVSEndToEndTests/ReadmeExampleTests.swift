import Foundation
import Testing
import LLVS

/// The code samples of README.md and the package READMEs, compiled and checked.
@Suite struct ReadmeExampleTests {
    @Test func usingLLVSInYourPackage() throws {
        let messageId = Value.ID("MESSAGE")
        let value = Value(id: messageId, data: Data("Hello".utf8))

        var history = History()
        try history.add(Version(id: "initial"))
        try history.add(Version(id: "phone", predecessors: .init(idOfFirst: "initial")))
        try history.add(Version(id: "laptop", predecessors: .init(idOfFirst: "initial")))
        #expect(history.headIdentifiers == ["laptop", "phone"])
        #expect(try history.mergeBases("phone", "laptop") == ["initial"])
        #expect(value.id == messageId)
    }

    @Test func coreExample() throws {
        let value = Value(idString: "ABCDEF", data: Data("Hello".utf8))
        let change = Value.Change.insert(value)
        let json = try CanonicalJSON.encode(change)
        #expect(String(decoding: json, as: UTF8.self) == #"{"insert":{"data":"SGVsbG8=","id":"ABCDEF"}}"#)

        var version = Version(predecessors: .init(idOfFirst: "V1"))
        version.metadata[.branch] = try .init(Branch("draft"))
        #expect(version.branch == "draft")
        #expect(Value.ID("caf\u{E9}") != Value.ID("cafe\u{301}"))
    }

    @Test func historyExample() throws {
        var history = History()
        try history.add(Version(id: "A"))
        try history.add(Version(id: "B", predecessors: .init(idOfFirst: "A")))
        try history.add(Version(id: "C", predecessors: .init(idOfFirst: "A")))
        try history.add(Version(id: "D", predecessors: .init(idOfFirst: "B", idOfSecond: "C")))
        try history.add(Version(id: "E", predecessors: .init(idOfFirst: "C", idOfSecond: "B")))

        #expect(history.headIdentifiers == ["D", "E"])
        #expect(try history.mergeBases("D", "E") == ["B", "C"])
        #expect(try history.isAncestor("A", of: "E"))
        let order = history.map(\.id)
        #expect(order.count == 5)
        #expect(order.last == "A")
    }
}
