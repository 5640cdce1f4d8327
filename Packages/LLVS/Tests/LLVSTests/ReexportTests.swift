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

    @Test func theHTTPExchangeIsAvailable() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("llvs-umbrella-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try Store(rootDirectoryURL: directory)
        let exchange = try HTTPExchange(storeURL: URL(string: "http://127.0.0.1:7420/v1/stores/notes")!, store: store,
                                        accessToken: "a-token-of-16-chars", retryPolicy: HTTPRetryPolicy(maximumAttempts: 3))
        let asExchange: any SnapshotExchange = exchange
        #expect(asExchange.store === store)
        #expect(throws: HTTPExchangeError.self) { try HTTPExchange(storeURL: directory, store: store) }
    }

    @Test func theKeyValueDatabaseIsAvailableWithoutClashingNames() throws {
        // The store's Version and Value and the key-value layer's nested ones live side by side.
        let database = try KeyValueDatabase(fileURL: nil, author: Author(id: UUID(), name: "Umbrella"))
        try database.writeText("Hello", to: "greeting")
        let versions: [KeyValueDatabase.Version] = try database.read(key: "greeting")
        #expect(try versions.text == "Hello")
        #expect(versions.resolved(with: .lastWriterWins) == KeyValueDatabase.Value.text("Hello"))
        let storeVersion: Version? = database.store.mostRecentHead
        #expect(storeVersion?.id == database.currentVersionId)
        let value: Value? = try database.currentVersionId.flatMap { try database.store.value(idString: "kv//greeting", at: $0) }
        #expect(value != nil)
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
    @Test func storeZonesAndArbitersAreAvailable() throws {
        let store = try Store(rootDirectoryURL: URL(fileURLWithPath: "/unused"), storage: MemoryStorage())
        let version = try store.makeVersion(basedOnPredecessor: nil, inserting: [Value(idString: "A", data: Data("1".utf8))])
        #expect(try store.value(idString: "A", at: version.id)?.data == Data("1".utf8))
        let arbiters: [any MergeArbiter] = [MostRecentBranchFavoringArbiter(), MostRecentChangeFavoringArbiter()]
        #expect(arbiters.count == 2)
        #expect(FileStorage.markerFileName == "llvs-store.json")
    }
}

/// Exchanges and the coordinator through `import LLVS` alone, spelled as in the reference
/// README's Quick Start (with a shared directory in place of CloudKit).
@Suite struct ExchangeReexportTests {
    @Test func theQuickStartCompilesAndSyncs() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("llvs-reexport-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let storeCoordinator = try StoreCoordinator(withStoreDirectoryAt: root.appendingPathComponent("store"),
                                                    cacheDirectoryAt: root.appendingPathComponent("cache"))
        let exchange = FileSystemExchange(rootDirectoryURL: root.appendingPathComponent("shared"), store: storeCoordinator.store)
        storeCoordinator.exchange = exchange
        let messageId = Value.ID("MESSAGE")
        try storeCoordinator.save(updating: [Value(id: messageId, data: "Hello".data(using: .utf8)!)])
        try await storeCoordinator.exchange()
        storeCoordinator.merge()
        #expect(try storeCoordinator.value(id: messageId).map { String(decoding: $0.data, as: UTF8.self) } == "Hello")
        #expect(SnapshotPolicy.auto.minimumNewVersions == 20)
        #expect(try await exchange.retrieveAllVersionIdentifiers().count == 2, "the shared empty root and the save")
    }

    @Test func theModelLayerAndItsMacrosAreAvailable() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("llvs-umbrella-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try Store(rootDirectoryURL: directory)
        let version = try store.save(UmbrellaModel(title: "Hello"), instanceIdentifier: "one", basedOn: nil)
        #expect(try store.fetchModel(UmbrellaModel.self, instanceIdentifier: "one", at: version.id)?.title == "Hello")
        let arbiter = MergeableArbiter()
        arbiter.register(UmbrellaModel.self)
        #expect(arbiter.registeredTypeIdentifiers == ["UmbrellaModel"])
        #expect(UmbrellaModel.mergeSchema.strategy(forKey: "count")?.name == "counter")
    }
}

@MergeableModel
struct UmbrellaModel {
    var title = ""
    @Merged(using: .counter) var count = 0
}
