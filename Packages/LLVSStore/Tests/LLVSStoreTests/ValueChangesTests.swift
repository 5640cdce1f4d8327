import Foundation
import LLVSTesting
import Testing
@testable import LLVSStore

@Suite struct ValueChangesTests {
    @Test func changesMadeInEachKindOfVersion() throws {
        let storeHome = try TestStore()
        defer { withExtendedLifetime(storeHome) {} }
        let store = storeHome.store
        let v1 = try store.makeVersion(basedOnPredecessor: nil, inserting: [value("a", "1"), value("b", "1")])
        #expect(Set(try store.valueChanges(madeInVersionIdentifiedBy: v1.id)) == [
            .insert(Value(id: "a", data: Data("1".utf8), storedVersionId: v1.id)),
            .insert(Value(id: "b", data: Data("1".utf8), storedVersionId: v1.id)),
        ])
        let v2 = try store.makeVersion(basedOnPredecessor: v1.id, inserting: [value("c", "2")], updating: [value("a", "2")], removing: ["b"])
        #expect(Set(try store.valueChanges(madeInVersionIdentifiedBy: v2.id)) == [
            .insert(Value(id: "c", data: Data("2".utf8), storedVersionId: v2.id)),
            .update(Value(id: "a", data: Data("2".utf8), storedVersionId: v2.id)),
            .remove("b"),
        ])
        let side = try store.makeVersion(basedOnPredecessor: v1.id, inserting: [value("s", "3")], removing: ["b"])
        let merged = try store.merge(version: v2.id, with: side.id, resolvingWith: MostRecentBranchFavoringArbiter())
        // A merge's changes start from its first predecessor, the one whose identifier
        // sorts first (SPEC.md section 9): what the other side brought is preserved.
        let fromV2: Set<Value.Change> = [.preserve(.init(valueId: "s", storedVersionId: side.id))]
        let fromSide: Set<Value.Change> = [.preserve(.init(valueId: "a", storedVersionId: v2.id)), .preserve(.init(valueId: "c", storedVersionId: v2.id))]
        #expect(merged.predecessors?.idOfFirst == min(v2.id, side.id))
        #expect(Set(try store.valueChanges(madeInVersionIdentifiedBy: merged.id)) == (v2.id < side.id ? fromV2 : fromSide))
    }

    @Test func changesMadeBetweenVersionsAreADiff() throws {
        let storeHome = try TestStore()
        defer { withExtendedLifetime(storeHome) {} }
        let store = storeHome.store
        let v1 = try store.makeVersion(basedOnPredecessor: nil, inserting: [value("a", "1"), value("b", "1")])
        let v2 = try store.makeVersion(basedOnPredecessor: v1.id, inserting: [value("c", "2")], updating: [value("a", "2")], removing: ["b"])
        #expect(Set(try store.valueChanges(madeBetween: v1.id, and: v2.id)) == [
            .insert(Value(id: "c", data: Data("2".utf8), storedVersionId: v2.id)),
            .update(Value(id: "a", data: Data("2".utf8), storedVersionId: v2.id)),
            .remove("b"),
        ])
        #expect(Set(try store.valueChanges(madeBetween: v2.id, and: v1.id)) == [
            .remove("c"),
            .update(Value(id: "a", data: Data("1".utf8), storedVersionId: v1.id)),
            .insert(Value(id: "b", data: Data("1".utf8), storedVersionId: v1.id)),
        ])
        #expect(try store.valueChanges(madeBetween: v2.id, and: v2.id).isEmpty)
    }
}
