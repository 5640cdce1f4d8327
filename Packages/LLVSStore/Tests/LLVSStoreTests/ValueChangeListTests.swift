import Foundation
import LLVSTesting
import PropertyBased
import Testing
@testable import LLVSStore

/// `makeVersion(basedOnPredecessor:inserting:updating:removing:)` reads the caller's three
/// lists in place (``ValueChangeList``) instead of copying them into a list of changes.
@Suite struct ValueChangeListTests {
    /// The list is the inserts, then the updates, then the removals, in the caller's order,
    /// whatever the lengths (empty lists included).
    @Test func theListIsTheInsertsThenTheUpdatesThenTheRemovals() async {
        let ids = Gen.int(in: 0...30).array(of: 0...12)
        await propertyCheck(count: 300, input: zip(ids, ids, ids)) { inserted, updated, removed in
            let insertedValues = inserted.map { Value(idString: "i\($0)", data: Data("\($0)".utf8)) }
            let updatedValues = updated.map { Value(idString: "u\($0)", data: Data()) }
            let removedIds = removed.map { Value.ID("r\($0)") }
            let list = ValueChangeList(inserted: insertedValues, updated: updatedValues, removed: removedIds)
            let expected = insertedValues.map(Value.Change.insert) + updatedValues.map(Value.Change.update) + removedIds.map(Value.Change.remove)
            #expect(Array(list) == expected)
            #expect(list.count == expected.count)
        }
    }

    /// The three lists make the version that the same changes in one list make, and an
    /// identifier in two of them is still refused, on every backend.
    @Test(arguments: Backend.allCases)
    func theListsMakeTheVersionTheirChangesMake(_ backend: Backend) throws {
        let storeHome = try TestStore(backend)
        defer { withExtendedLifetime(storeHome) {} }
        let store = storeHome.store
        let first = try store.makeVersion(basedOnPredecessor: nil, inserting: [value("a", "1"), value("b", "2"), value("c", "3")])
        let lists = try store.makeVersion(basedOnPredecessor: first.id, inserting: [value("d", "4")], updating: [value("a", "1'")], removing: ["b"])
        let changes = try store.makeVersion(basedOnPredecessor: first.id, storing: [.insert(value("d", "4")), .update(value("a", "1'")), .remove("b")])
        #expect(try store.texts(at: lists.id) == ["a": "1'", "c": "3", "d": "4"])
        #expect(try store.texts(at: lists.id) == store.texts(at: changes.id))
        #expect(lists.valueDataSize == changes.valueDataSize)
        #expect(throws: StoreError.conflictingChanges(valueId: "a")) {
            try store.makeVersion(basedOnPredecessor: first.id, updating: [value("a", "x")], removing: ["a"])
        }
    }
}
