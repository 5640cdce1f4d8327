import Foundation
import LLVS
import LLVSTesting
import Testing

// The samples of README.md's "Coming from LLVS or KeyValueCRDT", as printed there.

/// README sample 1: a custom arbiter that settles one key itself and passes the standard
/// cases off to built-in arbiters, calling them with the `Store` it was given.
final class TitleKeepingArbiter: MergeArbiter {
    func changes(toResolve merge: Merge, in store: Store) throws -> [Value.Change] {
        var titles = merge, others = merge
        titles.forksByValueIdentifier = merge.forksByValueIdentifier.filter { $0.key == "title" }
        others.forksByValueIdentifier = merge.forksByValueIdentifier.filter { $0.key != "title" }
        return try BranchFavoringArbiter(favoring: .first).changes(toResolve: titles, in: store)
            + MostRecentChangeFavoringArbiter().changes(toResolve: others, in: store)
    }
}

/// README sample 2: the Quick Start inside a class, with the capture list Swift 6 asks for.
final class MessageApp: Sendable {
    let storeCoordinator: StoreCoordinator

    init(storeCoordinator: StoreCoordinator) {
        self.storeCoordinator = storeCoordinator
    }

    func sync() {
        storeCoordinator.exchange { [storeCoordinator] _ in
            storeCoordinator.merge()
        }
    }
}

/// README sample 3: reading a key-value database's versions through the nested types.
func describe(_ versions: [KeyValueDatabase.Version]) -> [String] {
    versions.map { version in
        switch version.value {
        case .text(let text): return text
        case .json(let json): return "JSON \(json)"
        case .blob(let data): return "\(data.count) bytes"
        case .null: return "deleted"
        }
    }
}

@Suite struct ComingFromTheReferencesTests {
    @Test func aCustomArbiterPassesStandardCasesToBuiltInOnes() throws {
        let directory = try TemporaryDirectory()
        let store = try Store(rootDirectoryURL: directory.url)
        let base = try store.makeVersion(basedOnPredecessor: nil, inserting: [Value(idString: "title", data: Data("0".utf8)),
                                                                              Value(idString: "body", data: Data("0".utf8))])
        let first = try store.makeVersion(basedOnPredecessor: base.id, updating: [Value(idString: "title", data: Data("first".utf8)),
                                                                                  Value(idString: "body", data: Data("first".utf8))])
        let second = try store.makeVersion(basedOnPredecessor: base.id, updating: [Value(idString: "title", data: Data("second".utf8)),
                                                                                   Value(idString: "body", data: Data("second".utf8))])
        let merged = try store.merge(version: first.id, with: second.id, resolvingWith: TitleKeepingArbiter())
        let text = { (id: String) in try store.value(idString: id, at: merged.id).map { String(decoding: $0.data, as: UTF8.self) } }
        #expect(try text("title") == "first", "the arbiter's own rule")
        #expect(try text("body") == "second", "the built-in most-recent-change rule")
    }

    @Test func theQuickStartInAClassSyncsTwoApps() async throws {
        let directory = try TemporaryDirectory()
        let shared = directory.url.appendingPathComponent("shared")
        func app(_ name: String) throws -> MessageApp {
            let coordinator = try StoreCoordinator(withStoreDirectoryAt: directory.url.appendingPathComponent("\(name)/store"),
                                                   cacheDirectoryAt: directory.url.appendingPathComponent("\(name)/cache"))
            coordinator.exchange = FileSystemExchange(rootDirectoryURL: shared, store: coordinator.store)
            return MessageApp(storeCoordinator: coordinator)
        }
        let first = try app("first"), second = try app("second")
        try first.storeCoordinator.save(updating: [Value(idString: "MESSAGE", data: Data("hello".utf8))])
        first.sync()
        second.sync()
        // The samples' exchanges run one at a time per coordinator; wait for both apps.
        for _ in 0..<200 {
            try await second.storeCoordinator.sync()
            if try second.storeCoordinator.value(id: "MESSAGE") != nil { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try second.storeCoordinator.value(id: "MESSAGE").map { String(decoding: $0.data, as: UTF8.self) } == "hello")
    }

    @Test func nestedTypesDeletesAndTheDatabaseDirectory() throws {
        let directory = try TemporaryDirectory()
        let documentURL = directory.url.appendingPathComponent("Notes.kvdb")
        // README sample 4: a database is a directory; close() leaves its SQLite file complete.
        let database = try KeyValueDatabase(fileURL: documentURL, authorDescription: "Alice's iPhone")
        try database.writeText("Hello", to: "greeting")
        try database.writeJSON(#"{"pages": 3}"#, to: "meta")
        try database.writeBlob(Data([1, 2, 3]), to: "cover")
        try database.delete(key: "cover")
        #expect(describe(try database.read(key: "greeting")) == ["Hello"])
        #expect(describe(try database.read(key: "meta")) == [#"JSON {"pages": 3}"#])
        #expect(describe(try database.read(key: "cover")) == ["deleted"])
        try database.close()
        #expect(FileManager.default.fileExists(atPath: documentURL.appendingPathComponent("llvs-store.sqlite").path))
    }

    @Test func publishersBecomeAsyncSequences() async throws {
        let database = try KeyValueDatabase(fileURL: nil, authorDescription: "Alice")
        try database.writeText("Hello", to: "greeting")
        // README sample 5: readPublisher(scope:key:) becomes readValues(scope:key:).
        var seen: [[String]] = []
        for try await values in database.readValues(key: "greeting") {
            seen.append(describe(values[ScopedKey(key: "greeting")] ?? []))
            if seen.count == 2 { break }
            try database.writeText("Hi", to: "greeting")
        }
        #expect(seen == [["Hello"], ["Hi"]], "the current value first, then each change")
    }
}
