import Foundation
import LLVSTesting
import Testing
@testable import LLVSStore

/// Fast-forwards, three-way, two-way and criss-cross merges, conflicts and convergence.
@Suite struct StoreMergeTests {
    @Test(arguments: Backend.allCases)
    func fastForwardsWriteNothing(_ backend: Backend) throws {
        let storeHome = try TestStore(backend)
        defer { withExtendedLifetime(storeHome) {} }
        let store = storeHome.store
        let v1 = try store.makeVersion(basedOnPredecessor: nil, inserting: [value("a", "1")])
        let v2 = try store.makeVersion(basedOnPredecessor: v1.id, updating: [value("a", "2")])
        let arbiter = MostRecentBranchFavoringArbiter()
        #expect(try store.merge(version: v1.id, with: v2.id, resolvingWith: arbiter).id == v2.id)
        #expect(try store.merge(version: v2.id, with: v1.id, resolvingWith: arbiter).id == v2.id)
        #expect(try store.merge(version: v2.id, with: v2.id, resolvingWith: arbiter).id == v2.id)
        #expect(store.queryHistory { $0.count } == 2)
    }

    @Test(arguments: Backend.allCases)
    func threeWayMergeCarriesBothSidesAndResolvesConflicts(_ backend: Backend) throws {
        let storeHome = try TestStore(backend)
        defer { withExtendedLifetime(storeHome) {} }
        let store = storeHome.store
        let base = try store.makeVersion(basedOnPredecessor: nil, inserting: [value("shared", "0"), value("gone", "0"), value("kept", "0")])
        let left = try store.makeVersion(basedOnPredecessor: base.id, inserting: [value("left", "L")], updating: [value("shared", "L")],
                                         removing: ["gone"])
        let right = try store.makeVersion(basedOnPredecessor: base.id, inserting: [value("right", "R")], updating: [value("shared", "R")],
                                          removing: ["gone"])
        let arbiter = RecordingArbiter()
        let merged = try store.merge(version: left.id, with: right.id, resolvingWith: arbiter)
        // The record lists the predecessors in canonical (byte) order, whichever was merged into.
        let (lower, higher) = left.id < right.id ? (left.id, right.id) : (right.id, left.id)
        #expect(merged.predecessors == .init(idOfFirst: lower, idOfSecond: higher))
        #expect(merged.timestamp == right.timestamp)
        #expect(try store.texts(at: merged.id) == ["shared": "R", "left": "L", "right": "R", "kept": "0"])
        let merge = try #require(arbiter.merges.first)
        #expect(merge.commonAncestor?.id == base.id)
        #expect(merge.forksByValueIdentifier == ["shared": .twiceUpdated, "gone": .twiceRemoved, "left": .inserted(.first),
                                                 "right": .inserted(.second)])
    }

    @Test func conflictsTheArbiterLeavesOpenFailTheMerge() throws {
        let storeHome = try TestStore()
        defer { withExtendedLifetime(storeHome) {} }
        let store = storeHome.store
        let base = try store.makeVersion(basedOnPredecessor: nil, inserting: [value("x", "0")])
        let a = try store.makeVersion(basedOnPredecessor: base.id, updating: [value("x", "a")])
        let b = try store.makeVersion(basedOnPredecessor: base.id, removing: ["x"])
        #expect(throws: StoreError.unresolvedConflict(valueId: "x", fork: .removedAndUpdated(removedOn: .second))) {
            try store.merge(version: a.id, with: b.id, resolvingWith: IdleArbiter())
        }
        #expect(store.queryHistory { $0.count } == 3)
        let merged = try store.merge(version: a.id, with: b.id, resolvingWith: MostRecentChangeFavoringArbiter())
        #expect(try store.text("x", at: merged.id) == "a", "an update beats a removal")
    }

    @Test func unrelatedVersionsMergeTwoWay() throws {
        let storeHome = try TestStore()
        defer { withExtendedLifetime(storeHome) {} }
        let store = storeHome.store
        let a = try store.makeVersion(basedOnPredecessor: nil, inserting: [value("x", "a"), value("only-a", "1")])
        let b = try store.makeVersion(basedOnPredecessor: nil, inserting: [value("x", "b"), value("only-b", "2")])
        #expect(throws: StoreError.noCommonAncestor(a.id, b.id)) {
            try store.mergeRelated(version: a.id, with: b.id, resolvingWith: MostRecentBranchFavoringArbiter())
        }
        let arbiter = RecordingArbiter()
        let merged = try store.merge(version: a.id, with: b.id, resolvingWith: arbiter)
        #expect(arbiter.merges.first?.commonAncestor == nil)
        #expect(arbiter.merges.first?.forksByValueIdentifier["x"] == .twiceInserted)
        #expect(try store.texts(at: merged.id) == ["x": "b", "only-a": "1", "only-b": "2"])
        let again = try store.mergeUnrelated(version: b.id, with: a.id, resolvingWith: MostRecentBranchFavoringArbiter())
        #expect(again.id == merged.id, "the same merge made the other way round is the same version")
    }

    /// O ─ A1 ─ M1 ─ A2        A1 changes k; B1 changes only j.
    ///   ╲ B1 ╳ M2 ─ B2        M1 = A1+B1, M2 = B1+A1; A2 changes k again; B2 changes j.
    /// Merging A2 and B2 has two bases, A1 and B1. Against B1 alone k would look changed on
    /// both sides (a false conflict that the newer branch, B2, would win with the stale
    /// "a1"); against A1 alone j would. The virtual ancestor (A1 merged with B1) sees k
    /// changed only by A2 and j only by B2, so the result keeps both new values.
    @Test(arguments: Backend.allCases)
    func crissCrossMergesAgainstAVirtualAncestor(_ backend: Backend) throws {
        let storeHome = try TestStore(backend)
        defer { withExtendedLifetime(storeHome) {} }
        let store = storeHome.store
        let o = try store.makeVersion(basedOnPredecessor: nil, inserting: [value("k", "o"), value("j", "o")])
        let a1 = try store.makeVersion(basedOnPredecessor: o.id, updating: [value("k", "a1")])
        let b1 = try store.makeVersion(basedOnPredecessor: o.id, updating: [value("j", "b1")])
        let arbiter = MostRecentBranchFavoringArbiter()
        let m1 = try store.makeVersion(basedOn: .init(idOfFirst: a1.id, idOfSecond: b1.id), storing: [.preserve(.init(valueId: "j", storedVersionId: b1.id))])
        let m2 = try store.makeVersion(basedOn: .init(idOfFirst: b1.id, idOfSecond: a1.id), storing: [.preserve(.init(valueId: "k", storedVersionId: a1.id))])
        let a2 = try store.makeVersion(basedOnPredecessor: m1.id, updating: [value("k", "a2")])
        let b2 = try store.makeVersion(basedOnPredecessor: m2.id, updating: [value("j", "b2")])
        #expect(store.queryHistory { try? $0.mergeBases(a2.id, b2.id) } == [a1.id, b1.id].sorted())

        let recording = RecordingArbiter()
        let merged = try store.merge(version: a2.id, with: b2.id, resolvingWith: recording)
        #expect(try store.texts(at: merged.id) == ["k": "a2", "j": "b2"])
        let merge = try #require(recording.merges.last)
        #expect(merge.commonAncestor == nil)
        #expect(merge.mergeBaseIds == [a1.id, b1.id].sorted())
        #expect(merge.forksByValueIdentifier == ["k": .updated(.first), "j": .updated(.second)])
        // The virtual step (A1 merged with B1) came first and says so; the final merge names
        // that virtual ancestor, whose values the arbiter reads through its context.
        #expect(recording.merges.count == 2)
        #expect(recording.merges.first?.isVirtual == true && merge.isVirtual == false)
        let ancestorId = try #require(merge.ancestorVersionId)
        #expect(ancestorId.rawValue.hasPrefix("virtual-"))
        #expect(recording.ancestorTexts.last == ["k": "a1", "j": "b1"])
        #expect(try store.merge(version: b2.id, with: a2.id, resolvingWith: arbiter).id == merged.id)
    }

    @Test func mergeHeadsUsesACanonicalOrder() throws {
        let test = try TestStore()
        let store = test.store
        let base = try store.makeVersion(basedOnPredecessor: nil, inserting: [value("x", "0")])
        let heads = try (0..<3).map { try store.makeVersion(basedOnPredecessor: base.id, inserting: [value("k\($0)", "\($0)")]) }
        let other = try test.reopened()
        let arbiter = MostRecentBranchFavoringArbiter()
        let fromFirst = try #require(try store.mergeHeads(into: heads[0].id, resolvingWith: arbiter))
        let fromLast = try #require(try other.mergeHeads(into: heads[2].id, resolvingWith: arbiter))
        #expect(fromFirst.id == fromLast.id)
        #expect(try store.texts(at: fromFirst.id) == ["x": "0", "k0": "0", "k1": "1", "k2": "2"])
        try store.reloadHistory()
        #expect(store.queryHistory { $0.headIdentifiers } == [fromFirst.id], "one head, not a merge per replica")
        #expect(try store.mergeHeads(into: fromFirst.id, resolvingWith: arbiter) == nil)
    }

    @Test func mergeHeadsHonoursBranchSelection() throws {
        let storeHome = try TestStore()
        defer { withExtendedLifetime(storeHome) {} }
        let store = storeHome.store
        let base = try store.makeVersion(basedOnPredecessor: nil, inserting: [value("x", "0")])
        let main = try store.makeVersion(basedOnPredecessor: base.id, inserting: [value("m", "1")])
        let other = try store.makeVersion(basedOnPredecessor: base.id, inserting: [value("o", "1")])
        let draft = try store.makeVersion(basedOnPredecessor: base.id, inserting: [value("d", "1")], metadata: [.branch: try .init(Branch("draft"))])
        let arbiter = MostRecentBranchFavoringArbiter()
        let merged = try #require(try store.mergeHeads(into: main.id, resolvingWith: arbiter))
        #expect(try store.texts(at: merged.id).keys.sorted() == ["m", "o", "x"])
        #expect(store.queryHistory { $0.headIdentifiers }.contains(draft.id))
        let withDraft = try #require(try store.mergeHeads(into: merged.id, resolvingWith: arbiter, headSelection: .specificBranchesOnly(["draft"])))
        #expect(try store.texts(at: withDraft.id).keys.sorted() == ["d", "m", "o", "x"])
        _ = other
    }

    @Test func replicasMergingInOppositeOrdersMakeTheSameVersion() throws {
        let oneHome = try TestStore(), twoHome = try TestStore()
        defer { withExtendedLifetime((oneHome, twoHome)) {} }
        let one = oneHome.store, two = twoHome.store
        let base = Version(id: "base", timestamp: 1), left = Version(id: "left", predecessors: .init(idOfFirst: "base"), timestamp: 2)
        let right = Version(id: "right", predecessors: .init(idOfFirst: "base"), timestamp: 3)
        for store in [one, two] {
            try store.addVersion(base, storing: [.insert(value("x", "0")), .insert(value("y", "0"))])
            try store.addVersion(left, storing: [.update(value("x", "L")), .update(value("y", "L"))])
            try store.addVersion(right, storing: [.update(value("x", "R")), .remove("y")])
        }
        let arbiter = MostRecentChangeFavoringArbiter()
        let fromOne = try one.merge(version: "left", with: "right", resolvingWith: arbiter)
        let fromTwo = try two.merge(version: "right", with: "left", resolvingWith: arbiter)
        #expect(fromOne.id == fromTwo.id)
        #expect(fromOne.timestamp == 3 && fromTwo.timestamp == 3)
        #expect(try one.texts(at: fromOne.id) == two.texts(at: fromTwo.id))
        // Shipping one replica's merge to the other is then a no-op.
        #expect(try !two.addVersion(fromOne, storing: try one.valueChanges(madeInVersionIdentifiedBy: fromOne.id)))
    }

    /// One identifier, one record: merge(a, b) and merge(b, a) write byte-identical
    /// records (predecessors in canonical order) and ship identical changes, with changes
    /// on either side, on both, removals and inserts. Before, each record kept its call
    /// order and its changes started from the version merged into.
    @Test(arguments: Backend.allCases)
    func mergesInEitherOrderWriteIdenticalRecordsAndChanges(_ backend: Backend) throws {
        let oneHome = try TestStore(backend), twoHome = try TestStore(backend)
        defer { withExtendedLifetime((oneHome, twoHome)) {} }
        let one = oneHome.store, two = twoHome.store
        let base = Version(id: "base", timestamp: 1), left = Version(id: "left", predecessors: .init(idOfFirst: "base"), timestamp: 2)
        let right = Version(id: "right", predecessors: .init(idOfFirst: "base"), timestamp: 3)
        for store in [one, two] {
            try store.addVersion(base, storing: ["a", "b", "c", "d", "e"].map { .insert(value($0, "0")) })
            try store.addVersion(left, storing: [.update(value("a", "L")), .remove("b"), .insert(value("f", "L")), .update(value("e", "L"))])
            try store.addVersion(right, storing: [.update(value("c", "R")), .remove("d"), .insert(value("g", "R")), .update(value("e", "R"))])
        }
        let arbiter = MostRecentChangeFavoringArbiter()
        let fromOne = try one.merge(version: "left", with: "right", resolvingWith: arbiter)
        let fromTwo = try two.merge(version: "right", with: "left", resolvingWith: arbiter)
        #expect(fromOne.id == fromTwo.id)
        let recordOne = try CanonicalJSON.encode(try #require(one.version(identifiedBy: fromOne.id)))
        let recordTwo = try CanonicalJSON.encode(try #require(two.version(identifiedBy: fromTwo.id)))
        #expect(recordOne == recordTwo, "\(String(decoding: recordOne, as: UTF8.self)) against \(String(decoding: recordTwo, as: UTF8.self))")
        #expect(fromOne.predecessors == .init(idOfFirst: "left", idOfSecond: "right"))
        #expect(fromTwo.predecessors == fromOne.predecessors)
        #expect(try one.valueChanges(madeInVersionIdentifiedBy: fromOne.id) == two.valueChanges(madeInVersionIdentifiedBy: fromTwo.id))
        #expect(try one.texts(at: fromOne.id) == ["a": "L", "c": "R", "e": "R", "f": "L", "g": "R"])
        #expect(try two.texts(at: fromTwo.id) == one.texts(at: fromOne.id))
    }

    /// `mergeHeads` over different head sets: one replica holds the heads !a, !b and !c and
    /// merges !a with !b, then that merge with !c; another holds only the first merge and
    /// !c, and merges those two in its own (sorted) order, !c first. Both write one record
    /// for the final merge. Before, each kept its own call order.
    @Test(arguments: Backend.allCases)
    func mergeHeadsOverDifferentHeadSetsWritesOneRecord(_ backend: Backend) throws {
        let oneHome = try TestStore(backend), twoHome = try TestStore(backend)
        defer { withExtendedLifetime((oneHome, twoHome)) {} }
        let one = oneHome.store, two = twoHome.store
        let root = Version(id: "!root", timestamp: 1)
        let heads = ["!a", "!b", "!c"].enumerated().map { Version(id: .init($0.element), predecessors: .init(idOfFirst: "!root"), timestamp: Double(2 + $0.offset)) }
        for store in [one, two] {
            try store.addVersion(root, storing: [.insert(value("shared", "0"))])
            for head in heads { try store.addVersion(head, storing: [.insert(value(head.id.rawValue, "1")), .update(value("shared", head.id.rawValue))]) }
        }
        let arbiter = MostRecentChangeFavoringArbiter()
        let final = try #require(try one.mergeHeads(into: "!a", resolvingWith: arbiter))
        let intermediate = try #require([final.predecessors?.idOfFirst, final.predecessors?.idOfSecond].compactMap { $0 }.first { $0 != "!c" })
        try two.addVersion(try #require(one.version(identifiedBy: intermediate)), storing: try one.valueChanges(madeInVersionIdentifiedBy: intermediate))
        #expect(two.queryHistory { Set($0.headIdentifiers) } == [intermediate, "!c"])
        let fromTwo = try #require(try two.mergeHeads(into: "!c", resolvingWith: arbiter))
        #expect(fromTwo.id == final.id)
        let records = try [one, two].map { try CanonicalJSON.encode(try #require($0.version(identifiedBy: final.id))) }
        #expect(records[0] == records[1])
        #expect(try one.valueChanges(madeInVersionIdentifiedBy: final.id) == two.valueChanges(madeInVersionIdentifiedBy: final.id))
    }

    @Test func mergeMetadataIsPartOfTheMergeIdentity() throws {
        let storeHome = try TestStore()
        defer { withExtendedLifetime(storeHome) {} }
        let store = storeHome.store
        let base = try store.makeVersion(basedOnPredecessor: nil, inserting: [value("x", "0")])
        let a = try store.makeVersion(basedOnPredecessor: base.id, inserting: [value("a", "1")])
        let b = try store.makeVersion(basedOnPredecessor: base.id, inserting: [value("b", "1")])
        let plain = try store.merge(version: a.id, with: b.id, resolvingWith: MostRecentBranchFavoringArbiter())
        let noted = try store.merge(version: a.id, with: b.id, resolvingWith: MostRecentBranchFavoringArbiter(),
                                    metadata: ["note": .init(data: Data("hi".utf8))])
        #expect(plain.id != noted.id)
        #expect(noted.metadata["note"]?.data == Data("hi".utf8))
    }
}
