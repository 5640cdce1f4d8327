import Foundation
import Testing
import LLVS

/// `import LLVS` alone must give every package's public API, spelled as in the reference
/// READMEs.
@Suite struct ReexportTests {
    @Test func coreVocabularyIsAvailable() {
        let messageId = Value.ID("MESSAGE")
        let value = Value(id: messageId, data: Data("Hello".utf8))
        let change = Value.Change.update(value)
        #expect(change.valueId == messageId)
        #expect(Value.Fork.twiceUpdated.isConflicting)
        let versionId: Version.Identifier = Version.ID("V1")
        #expect(versionId.rawValue == "V1")
        #expect(Branch("main").rawValue == "main")
    }

    @Test func historyIsAvailable() throws {
        var history = History()
        let root = Version(id: "root")
        try history.add(root)
        try history.add(Version(id: "next", predecessors: .init(idOfFirst: root.id)))
        var heads: Set<Version.Identifier>?
        heads = history.headIdentifiers
        #expect(heads == ["next"])
        #expect(try history.mergeBases("next", "root") == ["root"])
    }
}
