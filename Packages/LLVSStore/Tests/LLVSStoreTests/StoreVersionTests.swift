import Foundation
import LLVSTesting
import Testing
@testable import LLVSStore

/// Making versions and reading values, on every backend.
@Suite struct StoreVersionTests {
    @Test(arguments: Backend.allCases)
    func valuesPersistUntilChanged(_ backend: Backend) throws {
        let storeHome = try TestStore(backend)
        defer { withExtendedLifetime(storeHome) {} }
        let store = storeHome.store
        let v1 = try store.makeVersion(basedOnPredecessor: nil, inserting: [value("a", "1"), value("b", "2")])
        let v2 = try store.makeVersion(basedOnPredecessor: v1.id, inserting: [value("c", "3")], updating: [value("a", "1'")], removing: ["b"])
        let v3 = try store.makeVersion(basedOnPredecessor: v2.id, storing: [.update(value("d", "4"))])
        #expect(try store.texts(at: v1.id) == ["a": "1", "b": "2"])
        #expect(try store.texts(at: v2.id) == ["a": "1'", "c": "3"])
        #expect(try store.texts(at: v3.id) == ["a": "1'", "c": "3", "d": "4"], "update inserts an absent value")
        #expect(try store.value(id: "a", at: v3.id)?.storedVersionId == v2.id)
        #expect(try store.value(id: "a", at: v3.id)?.reference == Value.Reference(valueId: "a", storedVersionId: v2.id))
        #expect(try store.valueCount(at: v3.id) == 3)
        #expect(v2.valueDataSize == 3)
        #expect(try store.value(storedAt: Value.Reference(valueId: "b", storedVersionId: v1.id))?.data == Data("2".utf8))
        #expect(try store.value(storedAt: Value.Reference(valueId: "b", storedVersionId: v2.id)) == nil)
        var enumerated: [Value.ID] = []
        try store.enumerate(version: v3.id) { enumerated.append($0.valueId) }
        #expect(Set(enumerated) == ["a", "c", "d"])
    }

    @Test(arguments: Backend.allCases)
    func historyQueries(_ backend: Backend) throws {
        let storeHome = try TestStore(backend)
        defer { withExtendedLifetime(storeHome) {} }
        let store = storeHome.store
        #expect(store.mostRecentHead == nil)
        let root = try store.makeVersion(basedOnPredecessor: nil, inserting: [value("a", "1")])
        let main = try store.makeVersion(basedOnPredecessor: root.id, updating: [value("a", "2")])
        let draft = try store.makeVersion(basedOnPredecessor: root.id, updating: [value("a", "3")],
                                          metadata: [.branch: try .init(Branch("draft"))])
        var heads: Set<Version.ID>?
        store.queryHistory { history in heads = history.headIdentifiers }
        #expect(heads == [main.id, draft.id])
        #expect(store.hasMultipleHeads)
        #expect(store.mostRecentHead?.id == draft.id)
        #expect(store.heads(withBranch: "draft") == [draft.id])
        #expect(store.heads(withBranch: "other").isEmpty)
        #expect(store.version(identifiedBy: root.id)?.successors.ids == [main.id, draft.id])
        #expect(store.version(identifiedBy: draft.id)?.branch == "draft")
        #expect(try store.versionIds(for: "a") == [draft.id, main.id, root.id])
    }

    @Test(arguments: Backend.allCases)
    func rejectedVersionsWriteNothing(_ backend: Backend) throws {
        let test = try TestStore(backend)
        let store = test.store
        let root = try store.makeVersion(basedOnPredecessor: nil, inserting: [value("a", "1")])
        let before = Self.fileCount(test.directory.url)
        #expect(throws: StoreError.conflictingChanges(valueId: "b")) {
            try store.makeVersion(basedOnPredecessor: root.id, inserting: [value("b", "x")], removing: ["b"])
        }
        #expect(throws: StoreError.unknownPredecessor("missing", of: Version.ID("later"))) {
            try store.addVersion(Version(id: "later", predecessors: .init(idOfFirst: "missing")), storing: [])
        }
        #expect(throws: StoreError.history(.identicalPredecessors("twice"))) {
            try store.addVersion(Version(id: "twice", predecessors: .init(idOfFirst: root.id, idOfSecond: root.id)), storing: [])
        }
        let unrelated = Value.Reference(valueId: "a", storedVersionId: "elsewhere")
        #expect(throws: StoreError.invalidPreservedReference(unrelated)) {
            try store.makeVersion(basedOnPredecessor: root.id, storing: [.preserve(unrelated)])
        }
        #expect(store.queryHistory { $0.count } == 1)
        #expect(Self.fileCount(test.directory.url) == before)
        #expect(throws: StoreError.unknownVersion("nope")) { try store.value(id: "a", at: "nope") }
        #expect(throws: StoreError.unknownVersion("nope")) { try store.valueChanges(madeInVersionIdentifiedBy: "nope") }
    }

    /// A stored version is never replaced: the same record again is a no-op, another record
    /// under its identifier (other predecessors, timestamp or metadata) a typed error that
    /// leaves the stored one as it was. Before, any second copy was silently ignored.
    @Test(arguments: Backend.allCases)
    func anotherRecordUnderAStoredIdentifierIsRefused(_ backend: Backend) throws {
        let storeHome = try TestStore(backend)
        defer { withExtendedLifetime(storeHome) {} }
        let store = storeHome.store
        try store.addVersion(Version(id: "root", timestamp: 1), storing: [.insert(value("k", "0"))])
        try store.addVersion(Version(id: "other", timestamp: 2), storing: [])
        let version = Version(id: "v", predecessors: .init(idOfFirst: "root"), timestamp: 3, metadata: ["app": try .init("one")])
        #expect(try store.addVersion(version, storing: [.update(value("k", "1"))]))
        #expect(try !store.addVersion(version, storing: [.update(value("k", "1"))]))
        var laterTimestamp = version, otherPredecessor = version, otherMetadata = version
        laterTimestamp.timestamp = 4
        otherPredecessor.predecessors = .init(idOfFirst: "other")
        otherMetadata.metadata = ["app": try .init("two")]
        for conflicting in [laterTimestamp, otherPredecessor, otherMetadata] {
            #expect(throws: StoreError.conflictingVersion("v")) { try store.addVersion(conflicting, storing: [.update(value("k", "1"))]) }
        }
        #expect(store.version(identifiedBy: "v")?.timestamp == 3)
        #expect(try store.texts(at: "v") == ["k": "1"])
    }

    @Test func preservingAnOlderValueOfTheAncestryReverts() throws {
        let storeHome = try TestStore()
        defer { withExtendedLifetime(storeHome) {} }
        let store = storeHome.store
        let v1 = try store.makeVersion(basedOnPredecessor: nil, inserting: [value("a", "old")])
        let v2 = try store.makeVersion(basedOnPredecessor: v1.id, updating: [value("a", "new")])
        let v3 = try store.makeVersion(basedOnPredecessor: v2.id, storing: [.preserve(.init(valueId: "a", storedVersionId: v1.id))])
        #expect(try store.text("a", at: v3.id) == "old")
    }

    @Test(arguments: Backend.allCases)
    func reopeningGivesTheSameHistoryAndValues(_ backend: Backend) throws {
        let test = try TestStore(backend)
        var versions: [Version] = [try test.store.makeVersion(basedOnPredecessor: nil, inserting: [value("k0", "0")])]
        for i in 1..<30 {
            let base = versions[i / 2]
            versions.append(try test.store.makeVersion(basedOnPredecessor: base.id, inserting: [value("k\(i)", "\(i)")], removing: [Value.ID("k\(i / 3)")]))
        }
        let reopened = try test.reopened()
        #expect(reopened.queryHistory { $0.headIdentifiers } == test.store.queryHistory { $0.headIdentifiers })
        for version in versions {
            #expect(try reopened.texts(at: version.id) == test.store.texts(at: version.id))
            #expect(reopened.version(identifiedBy: version.id)?.timestamp == version.timestamp)
        }
    }

    @Test func anotherStoreObjectSeesNewVersionsAfterReloading() throws {
        let test = try TestStore()
        let other = try test.reopened()
        let v1 = try test.store.makeVersion(basedOnPredecessor: nil, inserting: [value("a", "1")])
        #expect(other.version(identifiedBy: v1.id) == nil)
        try other.reloadHistory()
        #expect(try other.text("a", at: v1.id) == "1")
        // Writing on top of a version only the other store object wrote reloads by itself.
        let v2 = try test.store.makeVersion(basedOnPredecessor: v1.id, updating: [value("a", "2")])
        let v3 = try other.makeVersion(basedOnPredecessor: v2.id, updating: [value("a", "3")])
        try test.store.reloadHistory()
        #expect(try test.store.text("a", at: v3.id) == "3")
    }

    @Test func addingAVersionTwiceIsANoOp() throws {
        let storeHome = try TestStore()
        defer { withExtendedLifetime(storeHome) {} }
        let store = storeHome.store
        let version = Version(id: "V1", timestamp: 5)
        #expect(try store.addVersion(version, storing: [.insert(value("a", "1"))]))
        #expect(try !store.addVersion(version, storing: [.insert(value("a", "other"))]))
        #expect(try store.text("a", at: "V1") == "1")
        #expect(store.queryHistory { $0.count } == 1)
    }

    static func fileCount(_ url: URL) -> Int {
        (FileManager.default.enumerator(atPath: url.path)?.allObjects.count) ?? 0
    }
}
