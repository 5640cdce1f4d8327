import Foundation
import LLVSCore
import LLVSMerge
import LLVSStore
import LLVSStoreTesting
import LLVSTesting
import Testing
@testable import LLVSModel

typealias Backend = StoreReplica.Backend

/// A store on one backend in a temporary directory.
struct TestModelStore {
    let directory: TemporaryDirectory
    let store: Store

    init(_ backend: Backend) throws {
        directory = try TemporaryDirectory(prefix: "llvs-model")
        store = try Store(rootDirectoryURL: directory.url, storage: backend.makeStorage())
    }
}

func boardArbiter() -> MergeableArbiter {
    let arbiter = MergeableArbiter()
    arbiter.register(Board.self)
    arbiter.register(Person.self)
    arbiter.register(Draft.self)
    arbiter.register(Fragile.self)
    arbiter.register(Tally.self)
    arbiter.register(Ledger.self)
    arbiter.register(Contact.self)
    return arbiter
}

/// Model merges through the store, on every backend.
@Suite struct ModelMergeTests {
    static let base = Board(name: "Plans", notes: "Buy milk.\nCall Bob.\n", views: 10, labels: ["home", "todo"],
                            items: [Item(id: "a", title: "A"), Item(id: "b", title: "B"), Item(id: "c", title: "C")],
                            scores: ["ann": 1, "bo": 2], highWater: 5, lowWater: 5, room: MultiValue("kitchen"), nickname: "pl")

    /// Both sides change every property; the merge keeps both sides' changes where the
    /// strategy can, whichever way round it is made.
    @Test(arguments: Backend.allCases)
    func everyStrategyMergesTheSameInEitherOrder(_ backend: Backend) throws {
        let test = try TestModelStore(backend)
        let store = test.store
        let v0 = try store.save(Self.base, instanceIdentifier: "b1", basedOn: nil)
        var first = Self.base
        first.name = "Plans (Ann)"
        first.notes = "Buy oat milk.\nCall Bob.\n"
        first.views += 1
        first.labels.insert("urgent")
        first.labels.remove("todo")
        first.items[0].title = "A!"
        first.items.append(Item(id: "d", title: "D"))
        first.scores["ann"] = 5
        first.highWater = 7
        first.lowWater = 4
        first.room.value = "garden"
        first.nickname = "plans"
        var second = Self.base
        second.name = "Plans (Bo)"
        second.notes = "Buy milk.\nCall Bob today.\n"
        second.views += 2
        second.labels.insert("work")
        second.items[1].done = true
        second.items.swapAt(1, 2)
        second.items.removeAll { $0.id == "a" && false }
        second.scores["cy"] = 3
        second.highWater = 6
        second.lowWater = 3
        second.room.value = "library"
        second.nickname = "p"
        let a = try store.save(first, instanceIdentifier: "b1", basedOn: v0.id)
        let b = try store.save(second, instanceIdentifier: "b1", basedOn: v0.id)
        let newer = (b.timestamp, b.id) > (a.timestamp, a.id) ? second : first

        let arbiter = boardArbiter()
        let forward = try store.merge(version: a.id, with: b.id, resolvingWith: arbiter)
        let forwardReport = try #require(arbiter.lastReport)
        let backward = try store.merge(version: b.id, with: a.id, resolvingWith: arbiter)
        #expect(forward.id == backward.id, "one merge, whichever way round")
        let merged = try #require(try store.fetchModel(Board.self, instanceIdentifier: "b1", at: forward.id))
        #expect(merged.name == newer.name)
        #expect(merged.notes == "Buy oat milk.\nCall Bob today.\n")
        #expect(merged.views == 13)
        #expect(merged.labels == ["home", "urgent", "work"])
        // b moved on the second side and d appended on the first, both after c: the older
        // side's placement first, then the newer's.
        #expect(merged.items.map(\.id) == (newer == second ? ["a", "c", "d", "b"] : ["a", "c", "b", "d"]))
        #expect(Set(merged.items.map(\.title)) == ["A!", "C", "B", "D"])
        #expect(merged.items.first { $0.id == "b" }?.done == true)
        #expect(merged.scores == ["ann": 5, "bo": 2, "cy": 3])
        #expect(merged.highWater == 7 && merged.lowWater == 3)
        #expect(merged.room.isConflicted && Set(merged.room.values) == ["garden", "library"])
        #expect(merged.nickname == "plans")

        // The report: per property, who changed it, the strategy, and whether it conflicted.
        let model = try #require(forwardReport.model(modelValueID(typeIdentifier: "Board", instanceIdentifier: "b1")))
        #expect(model.outcome == .merged && model.fork == .twiceUpdated)
        #expect(model.property("name")?.isConflict == true)
        #expect(model.property("name")?.resolution == (newer == first ? .tookFirst : .tookSecond))
        #expect(model.property("views") == .init(path: "views", strategy: "counter", changedOn: .both, isConflict: false, resolution: .merged))
        #expect(model.property("notes")?.strategy == "text" && model.property("notes")?.isConflict == false)
        #expect(model.property("room")?.resolution == .keptBoth)
        // An element changed on one side is reported whole; properties where both changed it.
        #expect(model.property(#"items["a"]"#)?.changedOn == .first)
        #expect(model.property(#"items["b"]"#)?.changedOn == .second)
        #expect(model.property(#"scores["cy"]"#)?.changedOn == .second)
        #expect(model.property("nickname")?.strategy == "custom:LongestName")
        #expect(forwardReport.hasConflicts)
    }

    /// Edits of different elements of a list of identifiable elements both survive (the
    /// forked users' report: such edits showed up as deletions).
    @Test(arguments: Backend.allCases)
    func editsOfDifferentListElementsBothSurvive(_ backend: Backend) throws {
        let store = try TestModelStore(backend).store
        let v0 = try store.save(Self.base, instanceIdentifier: "b", basedOn: nil)
        var first = Self.base, second = Self.base
        first.items[0].done = true
        second.items[2].title = "C!"
        second.items.insert(Item(id: "z", title: "Z"), at: 0)
        let a = try store.save(first, instanceIdentifier: "b", basedOn: v0.id)
        let b = try store.save(second, instanceIdentifier: "b", basedOn: v0.id)
        let merged = try store.merge(version: a.id, with: b.id, resolvingWith: boardArbiter())
        let items = try #require(try store.fetchModel(Board.self, instanceIdentifier: "b", at: merged.id)).items
        #expect(items == [Item(id: "z", title: "Z"), Item(id: "a", title: "A", done: true), Item(id: "b", title: "B"), Item(id: "c", title: "C!")])
    }

    /// A removal against a concurrent update: `updateWins` keeps the update, `removalWins`
    /// the removal; two inserts with no base: `mergeProperties` merges, `newerWins` keeps one.
    @Test(arguments: Backend.allCases)
    func removalAndInsertionRulesAreTheTypes(_ backend: Backend) throws {
        let store = try TestModelStore(backend).store
        var batch = ModelBatch()
        try batch.save(Person(name: "Ann"), instanceIdentifier: "p")
        try batch.save(Draft(text: "d"), instanceIdentifier: "d")
        let v0 = try store.save(batch, basedOn: nil)
        var removals = ModelBatch()
        try removals.remove(Person.self, instanceIdentifier: "p")
        try removals.remove(Draft.self, instanceIdentifier: "d")
        let a = try store.save(removals, basedOn: v0.id)
        var updates = ModelBatch()
        try updates.save(Person(name: "Ann B"), instanceIdentifier: "p")
        try updates.save(Draft(text: "d2"), instanceIdentifier: "d")
        try updates.save(Draft(text: "new on b"), instanceIdentifier: "n")
        try updates.save(Person(name: "Cy"), instanceIdentifier: "n")
        let b = try store.save(updates, basedOn: v0.id)
        var inserts = ModelBatch()
        try inserts.save(Draft(text: "new on c"), instanceIdentifier: "n")
        try inserts.save(Person(name: "Cyd"), instanceIdentifier: "n")
        let c = try store.save(inserts, basedOn: a.id)

        let arbiter = boardArbiter()
        let merged = try store.merge(version: c.id, with: b.id, resolvingWith: arbiter)
        #expect(try store.fetchModel(Person.self, instanceIdentifier: "p", at: merged.id)?.name == "Ann B", "updateWins")
        #expect(try store.fetchModel(Draft.self, instanceIdentifier: "d", at: merged.id) == nil, "removalWins")
        let newerIsC = (c.timestamp, c.id) > (b.timestamp, b.id)
        #expect(try store.fetchModel(Draft.self, instanceIdentifier: "n", at: merged.id)?.text == (newerIsC ? "new on c" : "new on b"))
        #expect(try store.fetchModel(Person.self, instanceIdentifier: "n", at: merged.id)?.name == (newerIsC ? "Cyd" : "Cy"))
        #expect(try store.merge(version: b.id, with: c.id, resolvingWith: arbiter).id == merged.id)
        let report = try #require(arbiter.lastReport)
        #expect(report.model(modelValueID(typeIdentifier: "Draft", instanceIdentifier: "d"))?.outcome == .removed)
    }

    /// Unknown fields (a newer app's) survive a typed save and a merge; a value written by
    /// a newer model version is never read, rewritten or merged.
    @Test(arguments: Backend.allCases)
    func unknownFieldsSurviveAndNewerModelsAreLeftAlone(_ backend: Backend) throws {
        let store = try TestModelStore(backend).store
        let id = modelValueID(typeIdentifier: "Board", instanceIdentifier: "x")
        // Board's own members, and a newer app's "color" and item "priority".
        let written = #"{"$version":2,"name":"n","notes":"","views":0,"labels":[],"scores":{},"highWater":0,"lowWater":0,"nickname":"","color":"red","items":[{"id":"a","title":"A","done":false,"priority":3}],"room":["k"]}"#
        let v0 = try store.makeVersion(basedOnPredecessor: nil, inserting: [Value(id: id, data: Data(written.utf8))])
        var board = try #require(try store.fetchModel(Board.self, instanceIdentifier: "x", at: v0.id))
        board.name = "renamed"
        board.items[0].title = "A2"
        let v1 = try store.save(board, instanceIdentifier: "x", basedOn: v0.id)
        let saved = try JSONValue(parsing: try #require(try store.value(id: id, at: v1.id)).data)
        #expect(saved.objectValue?["color"] == .string("red"))
        #expect(saved.objectValue?["items"]?.arrayValue?.first?.objectValue?["priority"] == .number(.integer(3)))
        #expect(saved.objectValue?["$version"] == .number(.integer(2)))

        // A merge keeps them too.
        var other = board
        other.notes = "n2"
        let v2 = try store.save(other, instanceIdentifier: "x", basedOn: v0.id)
        let merged = try store.merge(version: v1.id, with: v2.id, resolvingWith: boardArbiter())
        let mergedJSON = try JSONValue(parsing: try #require(try store.value(id: id, at: merged.id)).data)
        #expect(mergedJSON.objectValue?["color"] == .string("red"))

        // A value of model version 3 (newer than Board's 2).
        let newer = #"{"$version":3,"name":"future","shape":"round"}"#
        let v3 = try store.makeVersion(basedOnPredecessor: merged.id, updating: [Value(id: id, data: Data(newer.utf8))])
        #expect(throws: ModelError.newerModelVersion(valueId: id, stored: 3, supported: 2)) {
            try store.fetchModel(Board.self, instanceIdentifier: "x", at: v3.id)
        }
        #expect(throws: ModelError.newerModelVersion(valueId: id, stored: 3, supported: 2)) {
            try store.save(board, instanceIdentifier: "x", basedOn: v3.id)
        }
        // Changed on one side only: carried as it is. Changed on both: the merge refuses.
        let side = try store.save(Person(name: "p"), instanceIdentifier: "p", basedOn: merged.id)
        let carried = try store.merge(version: side.id, with: v3.id, resolvingWith: boardArbiter())
        #expect(try store.value(id: id, at: carried.id)?.data == Data(newer.utf8))
        let v4 = try store.makeVersion(basedOnPredecessor: merged.id, updating: [Value(id: id, data: Data(#"{"$version":3,"name":"other"}"#.utf8))])
        #expect(throws: ModelError.mergeFailed(valueId: id, reason: .newerModelVersion(valueId: id, stored: 3, supported: 2))) {
            try store.merge(version: v3.id, with: v4.id, resolvingWith: boardArbiter())
        }
    }

    /// A model one side removed that the other side newly refers to is kept (its type's
    /// rule is `updateWins`); with `removalWins` the reference dangles and the report says so.
    @Test(arguments: Backend.allCases)
    func referencesKeepTheirTargetsOrDangleByTheTargetsRule(_ backend: Backend) throws {
        let store = try TestModelStore(backend).store
        var batch = ModelBatch()
        try batch.save(Person(name: "Ann"), instanceIdentifier: "ann")
        try batch.save(Fragile(text: "f"), instanceIdentifier: "f")
        try batch.save(Self.base, instanceIdentifier: "b")
        try batch.save(Draft(text: "d"), instanceIdentifier: "d")
        let v0 = try store.save(batch, basedOn: nil)
        var removal = ModelBatch()
        try removal.remove(Person.self, instanceIdentifier: "ann")
        try removal.remove(Fragile.self, instanceIdentifier: "f")
        let a = try store.save(removal, basedOn: v0.id)
        var board = Self.base
        board.owner = ModelReference("ann")
        var reference = ModelBatch()
        try reference.save(board, instanceIdentifier: "b")
        try reference.save(Draft(text: "d", author: ModelReference("f")), instanceIdentifier: "d")
        let b = try store.save(reference, basedOn: v0.id)

        let arbiter = boardArbiter()
        let merged = try store.merge(version: a.id, with: b.id, resolvingWith: arbiter)
        let mergedBoard = try #require(try store.fetchModel(Board.self, instanceIdentifier: "b", at: merged.id))
        #expect(try store.fetchModel(try #require(mergedBoard.owner), at: merged.id)?.name == "Ann")
        #expect(try store.fetchModel(Fragile.self, instanceIdentifier: "f", at: merged.id) == nil)
        let report = try #require(arbiter.lastReport)
        #expect(report.restoredReferenceTargets == [modelValueID(typeIdentifier: "Person", instanceIdentifier: "ann")])
        #expect(report.danglingReferences == [.init(referringValueId: modelValueID(typeIdentifier: "Draft", instanceIdentifier: "d"),
                                                    targetValueId: modelValueID(typeIdentifier: "Fragile", instanceIdentifier: "f"))])
        #expect(try store.merge(version: b.id, with: a.id, resolvingWith: arbiter).id == merged.id)
    }

    /// Criss-cross: the sides merge against the virtual ancestor's model, so a property
    /// changed on one side only is not mistaken for a conflict.
    @Test(arguments: Backend.allCases)
    func crissCrossMergesAgainstTheVirtualAncestorsModel(_ backend: Backend) throws {
        let store = try TestModelStore(backend).store
        let arbiter = boardArbiter()
        let o = try store.save(Contact(name: "o", notes: "o", age: 1), instanceIdentifier: "c", basedOn: nil)
        let a1 = try store.save(Contact(name: "a1", notes: "o", age: 1), instanceIdentifier: "c", basedOn: o.id)
        let b1 = try store.save(Contact(name: "o", notes: "b1", age: 1), instanceIdentifier: "c", basedOn: o.id)
        // Two hand-made merges of a1 and b1 that settle differently (a criss-cross).
        let m1Data = try StoredModel.encode(Contact(name: "a1", notes: "b1", age: 1), replacing: nil, valueId: "Contact/c").data
        let m2Data = try StoredModel.encode(Contact(name: "a1", notes: "b1", age: 2), replacing: nil, valueId: "Contact/c").data
        let m1 = try store.makeVersion(basedOn: .init(idOfFirst: a1.id, idOfSecond: b1.id), storing: [.update(Value(id: "Contact/c", data: m1Data))])
        let m2 = try store.makeVersion(basedOn: .init(idOfFirst: b1.id, idOfSecond: a1.id), storing: [.update(Value(id: "Contact/c", data: m2Data))])
        let a2 = try store.save(Contact(name: "a2", notes: "b1", age: 1), instanceIdentifier: "c", basedOn: m1.id)
        let b2 = try store.save(Contact(name: "a1", notes: "b2", age: 2), instanceIdentifier: "c", basedOn: m2.id)
        let merged = try store.merge(version: a2.id, with: b2.id, resolvingWith: arbiter)
        let contact = try store.fetchModel(Contact.self, instanceIdentifier: "c", at: merged.id)
        // Against the virtual ancestor (a1, b1, age 1 vs 2 settled by recency), name changed on a2 only, notes on b2 only.
        #expect(contact?.name == "a2" && contact?.notes == "b2")
        #expect(try store.merge(version: b2.id, with: a2.id, resolvingWith: arbiter).id == merged.id)
    }

    /// Hand-written conformances: one merging the whole value itself (the reference's
    /// style), one listing its properties.
    @Test(arguments: Backend.allCases)
    func handWrittenConformancesMerge(_ backend: Backend) throws {
        let store = try TestModelStore(backend).store
        var batch = ModelBatch()
        try batch.save(Tally(count: 10), instanceIdentifier: "t")
        try batch.save(Ledger(title: "L", entries: ["x"], total: 1), instanceIdentifier: "l")
        let v0 = try store.save(batch, basedOn: nil)
        var one = ModelBatch(), two = ModelBatch()
        try one.save(Tally(count: 12), instanceIdentifier: "t")
        try one.save(Ledger(title: "L1", entries: ["x", "y"], total: 3), instanceIdentifier: "l")
        try two.save(Tally(count: 15), instanceIdentifier: "t")
        try two.save(Ledger(title: "L", entries: [], total: 2), instanceIdentifier: "l")
        let a = try store.save(one, basedOn: v0.id), b = try store.save(two, basedOn: v0.id)
        let merged = try store.merge(version: a.id, with: b.id, resolvingWith: boardArbiter())
        #expect(try store.fetchModel(Tally.self, instanceIdentifier: "t", at: merged.id) == Tally(count: 17))
        #expect(try store.fetchModel(Ledger.self, instanceIdentifier: "l", at: merged.id) == Ledger(title: "L1", entries: ["y"], total: 4))
    }

    /// A stored value under a registered type's identifier that is not a model fails the
    /// merge with a typed error naming it; nothing is written.
    @Test func aValueThatIsNotAModelFailsTheMergeNamingIt() throws {
        let store = try TestModelStore(.memory).store
        let id = Value.ID("Contact/bad")
        let v0 = try store.makeVersion(basedOnPredecessor: nil, inserting: [Value(id: id, data: Data("{}".utf8))])
        let a = try store.makeVersion(basedOnPredecessor: v0.id, updating: [Value(id: id, data: Data("not json".utf8))])
        let b = try store.makeVersion(basedOnPredecessor: v0.id, updating: [Value(id: id, data: Data(#"{"name":"x"}"#.utf8))])
        let count = store.queryHistory { $0.count }
        #expect { try store.merge(version: a.id, with: b.id, resolvingWith: boardArbiter()) } throws: { error in
            guard case .mergeFailed(id, .notAModel(id, _))? = error as? ModelError else { return false }
            return true
        }
        #expect(store.queryHistory { $0.count } == count)
    }
}
