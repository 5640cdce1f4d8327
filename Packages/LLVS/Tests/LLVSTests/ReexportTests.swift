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

/// The store layer through `import LLVS` alone.
@Suite struct StoreReexportTests {
    @Test func storeZonesMapAndArbitersAreAvailable() throws {
        let store = try Store(rootDirectoryURL: URL(fileURLWithPath: "/unused"), storage: MemoryStorage())
        let version = try store.makeVersion(basedOnPredecessor: nil, inserting: [Value(idString: "A", data: Data("1".utf8))])
        #expect(try store.value(idString: "A", at: version.id)?.data == Data("1".utf8))
        let arbiters: [any MergeArbiter] = [MostRecentBranchFavoringArbiter(), MostRecentChangeFavoringArbiter()]
        #expect(arbiters.count == 2)
        #expect(FileStorage.markerFileName == "llvs-store.json")
        #expect(Digest.of("A").hex.count == 64)
    }
}
