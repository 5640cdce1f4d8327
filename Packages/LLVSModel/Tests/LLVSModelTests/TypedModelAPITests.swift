import Foundation
import LLVSCoordinator
import LLVSCore
import LLVSExchange
import LLVSMerge
import LLVSStore
import LLVSTesting
import Testing
@testable import LLVSModel

/// Typed save, fetch, remove, fetch-all, changes and the model stream, on `Store` and on
/// `StoreCoordinator`, on every backend.
@Suite struct TypedModelAPITests {
    @Test(arguments: Backend.allCases)
    func storeSavesFetchesRemovesAndDiffsModels(_ backend: Backend) throws {
        let store = try TestModelStore(backend).store
        let v1 = try store.save(Contact(name: "Ann", notes: "", age: 30), instanceIdentifier: "ann", basedOn: nil)
        var batch = ModelBatch()
        try batch.save(Contact(name: "Bo", notes: "n", age: 40), instanceIdentifier: "bo")
        try batch.save(Contact(name: "Ann", notes: "", age: 31), instanceIdentifier: "ann")
        try batch.save(Tag(label: "vip"), instanceIdentifier: "t")
        let v2 = try store.save(batch, basedOn: v1.id)
        let v3 = try store.removeModel(Contact.self, instanceIdentifier: "ann", basedOn: v2.id)

        #expect(try store.fetchModel(Contact.self, instanceIdentifier: "ann", at: v1.id)?.age == 30)
        #expect(try store.fetchModel(Contact.self, instanceIdentifier: "ann", at: v2.id)?.age == 31)
        #expect(try store.fetchModel(Contact.self, instanceIdentifier: "ann", at: v3.id) == nil)
        #expect(try store.fetchAllModels(Contact.self, at: v2.id).map(\.name) == ["Ann", "Bo"])
        #expect(try store.fetchModelInstances(Contact.self, at: v3.id).map(\.id) == ["bo"])
        #expect(try store.fetchAllModels(Tag.self, at: v3.id) == [Tag(label: "vip")])

        let changes = try store.modelChanges(Contact.self, from: v1.id, to: v3.id)
        #expect(changes.map(\.instanceIdentifier) == ["ann", "bo"])
        guard case .removed("ann") = changes[0], case .inserted(let bo) = changes[1] else {
            Issue.record("unexpected changes \(changes)")
            return
        }
        #expect(bo.model.name == "Bo")
        if case .updated(let ann)? = try store.modelChanges(Contact.self, from: v1.id, to: v2.id).first {
            #expect(ann.model.age == 31)
        } else {
            Issue.record("ann was updated from v1 to v2")
        }
    }

    /// Instance identifiers are caller input: any bytes (NUL, "/", "../", a lone combining
    /// mark) are one instance each, stored and listed as given.
    @Test(arguments: Backend.allCases)
    func hostileInstanceIdentifiersAreStoredAsGiven(_ backend: Backend) throws {
        let store = try TestModelStore(backend).store
        let identifiers = ["a\0b", "a", "../x", "a/b/c", "\u{301}", "é", "e\u{301}", "", String(repeating: "z", count: 2_000)]
        var batch = ModelBatch()
        for (index, identifier) in identifiers.enumerated() { try batch.save(Tag(label: "\(index)"), instanceIdentifier: identifier) }
        let version = try store.save(batch, basedOn: nil)
        for (index, identifier) in identifiers.enumerated() {
            #expect(try store.fetchModel(Tag.self, instanceIdentifier: identifier, at: version.id)?.label == "\(index)", "\(identifier.debugDescription)")
        }
        let listed = try store.fetchModelInstances(Tag.self, at: version.id)
        #expect(Set(listed.map { Array($0.id.utf8) }) == Set(identifiers.map { Array($0.utf8) }))
    }

    /// Saves skip reading stored models they know keep nothing (their own saves, clean
    /// fetches); a value another app wrote, with members this type does not know, is still
    /// read and its members kept, however often the model was saved and fetched before.
    @Test(arguments: Backend.allCases)
    func knownCleanValuesNeverHideAnotherAppsFields(_ backend: Backend) throws {
        let store = try TestModelStore(backend).store
        let id = modelValueID(typeIdentifier: "Contact", instanceIdentifier: "c")
        var head = try store.save(Contact(name: "a", notes: "", age: 1), instanceIdentifier: "c", basedOn: nil).id
        for age in 2...4 {
            _ = try store.fetchModel(Contact.self, instanceIdentifier: "c", at: head)
            head = try store.save(Contact(name: "a", notes: "", age: age), instanceIdentifier: "c", basedOn: head).id
        }
        let written = #"{"name":"a","notes":"","age":5,"color":"red"}"#
        head = try store.makeVersion(basedOnPredecessor: head, updating: [Value(id: id, data: Data(written.utf8))]).id
        _ = try store.fetchModel(Contact.self, instanceIdentifier: "c", at: head)
        head = try store.save(Contact(name: "b", notes: "", age: 6), instanceIdentifier: "c", basedOn: head).id
        head = try store.save(Contact(name: "c", notes: "", age: 7), instanceIdentifier: "c", basedOn: head).id
        let stored = try JSONValue(parsing: try #require(try store.value(id: id, at: head)).data)
        #expect(stored.objectValue?["color"] == .string("red") && stored.objectValue?["name"] == .string("c"))
    }

    @Test func typeIdentifiersWithASlashAreRefused() {
        #expect(throws: ModelError.invalidTypeIdentifier("a/b")) {
            var batch = ModelBatch()
            try batch.save(Slashed(), instanceIdentifier: "x")
        }
    }

    @Test(arguments: Backend.allCases)
    func coordinatorSavesOnItsCurrentVersionAndStreamsModels(_ backend: Backend) async throws {
        let directory = try TemporaryDirectory(prefix: "llvs-model")
        let coordinator = try StoreCoordinator(withStoreDirectoryAt: directory.url.appendingPathComponent("store"),
                                               cacheDirectoryAt: directory.url.appendingPathComponent("cache"), storage: backend.makeStorage())
        var snapshots = coordinator.models(Item.self).makeAsyncIterator()
        #expect(try await snapshots.next()?.instances.isEmpty == true)

        try coordinator.save(Item(id: "a", title: "A"))
        #expect(try await snapshots.next()?.models == [Item(id: "a", title: "A")])
        try coordinator.save(Item(id: "b", title: "B"))
        #expect(try await snapshots.next()?.instances.map(\.id) == ["a", "b"])
        try coordinator.removeModel(Item.self, instanceIdentifier: "a")
        let last = try await snapshots.next()
        #expect(last?.models == [Item(id: "b", title: "B")])
        #expect(last?.version == coordinator.currentVersion)

        #expect(try coordinator.fetchModel(Item.self, instanceIdentifier: "b")?.title == "B")
        #expect(try coordinator.fetchAllModels(Item.self).count == 1)
        #expect(try coordinator.removeModel(Item.self, instanceIdentifier: "gone") == nil, "removing an absent model saves nothing")
        let branch = Branch("draft")
        try coordinator.save(Item(id: "c", title: "C"), in: branch)
        #expect(try coordinator.fetchModel(Item.self, instanceIdentifier: "c") == nil)
        #expect(try coordinator.fetchModel(Item.self, instanceIdentifier: "c", on: branch)?.title == "C")
    }

    /// Two replicas sync through a shared directory and merge with the model arbiter: both
    /// end on one version holding both replicas' edits.
    @Test func replicasConvergeThroughAnExchange() async throws {
        let directory = try TemporaryDirectory(prefix: "llvs-model")
        func replica(_ name: String) throws -> StoreCoordinator {
            let coordinator = try StoreCoordinator(withStoreDirectoryAt: directory.url.appendingPathComponent("\(name)/store"),
                                                   cacheDirectoryAt: directory.url.appendingPathComponent("\(name)/cache"))
            let arbiter = MergeableArbiter()
            arbiter.register(Board.self)
            coordinator.mergeArbiter = arbiter
            coordinator.exchange = FileSystemExchange(rootDirectoryURL: directory.url.appendingPathComponent("shared"), store: coordinator.store)
            return coordinator
        }
        let laptop = try replica("laptop"), phone = try replica("phone")
        try laptop.save(Board(name: "Trip", views: 1), instanceIdentifier: "trip")
        _ = try await laptop.sync()
        _ = try await phone.sync()
        var onLaptop = try #require(try laptop.fetchModel(Board.self, instanceIdentifier: "trip"))
        var onPhone = try #require(try phone.fetchModel(Board.self, instanceIdentifier: "trip"))
        onLaptop.views += 1
        onLaptop.labels.insert("beach")
        onPhone.views += 5
        onPhone.labels.insert("sun")
        try laptop.save(onLaptop, instanceIdentifier: "trip")
        try phone.save(onPhone, instanceIdentifier: "trip")
        for _ in 0..<2 {
            _ = try await laptop.sync()
            _ = try await phone.sync()
        }
        #expect(laptop.currentVersion == phone.currentVersion)
        let merged = try #require(try phone.fetchModel(Board.self, instanceIdentifier: "trip"))
        #expect(merged.views == 7 && merged.labels == ["beach", "sun"])
    }

    @MergeableModel(typeIdentifier: "Slash")
    struct Slashed {
        static var modelTypeIdentifier: String { "a/b" }
        var x = 0
    }
}
