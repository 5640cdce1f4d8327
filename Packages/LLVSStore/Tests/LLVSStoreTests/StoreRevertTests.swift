import Foundation
import LLVSTesting
import Testing
@testable import LLVSStore

/// `Store.revert`: a new version that undoes the changes of a given version, on every backend.
@Suite struct StoreRevertTests {
    @Test(arguments: Backend.allCases)
    func revertUndoesInsertsUpdatesAndRemovalsAndKeepsLaterWork(_ backend: Backend) throws {
        let storeHome = try TestStore(backend)
        defer { withExtendedLifetime(storeHome) {} }
        let store = storeHome.store
        let v1 = try store.makeVersion(basedOnPredecessor: nil, inserting: [value("a", "1"), value("b", "1")])
        let v2 = try store.makeVersion(basedOnPredecessor: v1.id, inserting: [value("c", "2")], updating: [value("a", "2")], removing: ["b"])
        let v3 = try store.makeVersion(basedOnPredecessor: v2.id, inserting: [value("d", "3")])

        let reverted = try #require(try store.revert(v2.id, basedOn: v3.id))
        #expect(reverted.predecessorIds == [v3.id])
        #expect(try store.texts(at: reverted.id) == ["a": "1", "b": "1", "d": "3"], "v2 undone, v3's d kept")
        #expect(Set(try store.valueChanges(madeBetween: v3.id, and: reverted.id).map(\.valueId)) == ["a", "b", "c"])

        // Nothing left to undo: the same revert again, and a version that changed nothing.
        #expect(try store.revert(v2.id, basedOn: reverted.id) == nil)
        // Reverting the revert brings v2's changes back.
        let redone = try #require(try store.revert(reverted.id, basedOn: reverted.id))
        #expect(try store.texts(at: redone.id) == ["a": "2", "c": "2", "d": "3"])
        // A first version: every value it stored is removed.
        let fromScratch = try #require(try store.revert(v1.id, basedOn: v1.id))
        #expect(try store.texts(at: fromScratch.id).isEmpty)
    }

    @Test(arguments: Backend.allCases)
    func aValueChangedAgainLaterIsAConflictAndNothingIsWritten(_ backend: Backend) throws {
        let storeHome = try TestStore(backend)
        defer { withExtendedLifetime(storeHome) {} }
        let store = storeHome.store
        let v1 = try store.makeVersion(basedOnPredecessor: nil, inserting: [value("a", "1"), value("b", "1")])
        let v2 = try store.makeVersion(basedOnPredecessor: v1.id, updating: [value("a", "2"), value("b", "2")])
        let v3 = try store.makeVersion(basedOnPredecessor: v2.id, updating: [value("a", "3")])
        let count = store.queryHistory { $0.count }
        #expect(throws: StoreError.revertConflicts(v2.id, valueIds: ["a"])) { try store.revert(v2.id, basedOn: v3.id) }
        #expect(store.queryHistory { $0.count } == count, "nothing written")
        #expect(throws: StoreError.unknownVersion("nope")) { try store.revert("nope", basedOn: v3.id) }
        #expect(throws: StoreError.unknownVersion("nope")) { try store.revert(v2.id, basedOn: "nope") }
        #expect(throws: StoreError.notAPredecessor(v3.id, of: v2.id)) { try store.revert(v2.id, basedOn: v3.id, relativeTo: v3.id) }
    }

    @Test(arguments: Backend.allCases)
    func revertingAMergeUndoesWhatTheOtherPredecessorBroughtIn(_ backend: Backend) throws {
        let storeHome = try TestStore(backend)
        defer { withExtendedLifetime(storeHome) {} }
        let store = storeHome.store
        let base = try store.makeVersion(basedOnPredecessor: nil, inserting: [value("shared", "0")])
        let left = try store.makeVersion(basedOnPredecessor: base.id, inserting: [value("left", "L")], updating: [value("shared", "left")])
        let right = try store.makeVersion(basedOnPredecessor: base.id, inserting: [value("right", "R")])
        let merge = try store.merge(version: left.id, with: right.id, resolvingWith: MostRecentBranchFavoringArbiter())
        let first = try #require(merge.predecessors?.idOfFirst), second = try #require(merge.predecessors?.idOfSecond)

        // Relative to the first predecessor (the default, like `git revert -m 1`): the values
        // become the first predecessor's.
        let undoSecond = try #require(try store.revert(merge.id, basedOn: merge.id))
        #expect(try store.texts(at: undoSecond.id) == store.texts(at: first))
        // Relative to the second: the second's values.
        let undoFirst = try #require(try store.revert(merge.id, basedOn: merge.id, relativeTo: second))
        #expect(try store.texts(at: undoFirst.id) == store.texts(at: second))
    }
}
