import Foundation
import LLVSCoordinator
import LLVSCore
import LLVSMerge
import LLVSStore
import LLVSTesting
import Testing
@testable import LLVSModel

/// The reference LLVS's MergeableArbiterTests and MergeableModelMacroTests, ported: each
/// test as the reference wrote it, with the one documented change (README, "Coming from
/// LLVS"): two inserts of one model with no common ancestor merge property by property
/// with the newer side winning each conflict, instead of the first argument winning.
@Suite final class ReferenceSuiteTests {
    let directory: TemporaryDirectory
    let store: Store

    init() throws {
        directory = try TemporaryDirectory(prefix: "llvs-model")
        store = try Store(rootDirectoryURL: directory.url.appendingPathComponent("store"))
    }

    private func makeVersion(basedOn predecessor: Version.ID?, changes: [Value.Change]) throws -> Version {
        try store.makeVersion(basedOnPredecessor: predecessor, storing: changes)
    }

    private func encode<T: Codable>(_ value: T) throws -> Data {
        try JSONEncoder().encode(value)
    }

    @Test func threeWayMergeResolvesPropertyWise() throws {
        let arbiter = MergeableArbiter()
        arbiter.register(Contact.self)
        let valueId = modelValueID(typeIdentifier: "Contact", instanceIdentifier: "abc")
        let ancestor = Contact(name: "Alice", notes: "Hello", age: 30)
        let v0 = try makeVersion(basedOn: nil, changes: [.insert(Value(id: valueId, data: try encode(ancestor)))])
        var branch1 = ancestor
        branch1.name = "Bob"
        let v1 = try makeVersion(basedOn: v0.id, changes: [.update(Value(id: valueId, data: try encode(branch1)))])
        var branch2 = ancestor
        branch2.age = 31
        let v2 = try makeVersion(basedOn: v0.id, changes: [.update(Value(id: valueId, data: try encode(branch2)))])

        let merged = try store.mergeRelated(version: v1.id, with: v2.id, resolvingWith: arbiter)
        let contact = try JSONDecoder().decode(Contact.self, from: try #require(try store.value(id: valueId, at: merged.id)).data)
        #expect(contact.name == "Bob")
        #expect(contact.age == 31)
        #expect(contact.notes == "Hello")
    }

    /// The reference keeps the first argument's model ("Alice"); here the newer insert's
    /// properties win where the two differ, in either merge order.
    @Test func twiceInsertedMergesWithoutABase() throws {
        let arbiter = MergeableArbiter()
        arbiter.register(Contact.self)
        let valueId = modelValueID(typeIdentifier: "Contact", instanceIdentifier: "new")
        let v0 = try makeVersion(basedOn: nil, changes: [])
        let v1 = try makeVersion(basedOn: v0.id, changes: [.insert(Value(id: valueId, data: try encode(Contact(name: "Alice", notes: "", age: 25))))])
        let v2 = try makeVersion(basedOn: v0.id, changes: [.insert(Value(id: valueId, data: try encode(Contact(name: "Bob", notes: "", age: 30))))])

        let merged = try store.mergeRelated(version: v1.id, with: v2.id, resolvingWith: arbiter)
        let contact = try JSONDecoder().decode(Contact.self, from: try #require(try store.value(id: valueId, at: merged.id)).data)
        let newer = v2.timestamp != v1.timestamp ? (v2.timestamp > v1.timestamp ? "Bob" : "Alice") : (v2.id > v1.id ? "Bob" : "Alice")
        #expect(contact.name == newer)
        #expect(try store.mergeRelated(version: v2.id, with: v1.id, resolvingWith: arbiter).id == merged.id)
    }

    @Test func removedAndUpdatedFavorsUpdate() throws {
        let arbiter = MergeableArbiter()
        arbiter.register(Contact.self)
        let valueId = modelValueID(typeIdentifier: "Contact", instanceIdentifier: "ru")
        let ancestor = Contact(name: "Alice", notes: "", age: 30)
        let v0 = try makeVersion(basedOn: nil, changes: [.insert(Value(id: valueId, data: try encode(ancestor)))])
        let v1 = try makeVersion(basedOn: v0.id, changes: [.remove(valueId)])
        var updated = ancestor
        updated.name = "Bob"
        let v2 = try makeVersion(basedOn: v0.id, changes: [.update(Value(id: valueId, data: try encode(updated)))])

        let merged = try store.mergeRelated(version: v1.id, with: v2.id, resolvingWith: arbiter)
        let result = try #require(try store.value(id: valueId, at: merged.id), "update wins over remove")
        #expect(try JSONDecoder().decode(Contact.self, from: result.data).name == "Bob")
    }

    @Test func unregisteredTypeFallsBackToDefaultArbiter() throws {
        let arbiter = MergeableArbiter()
        let valueId = Value.ID("untyped/thing")
        let v0 = try makeVersion(basedOn: nil, changes: [.insert(Value(id: valueId, data: Data("old".utf8)))])
        let v1 = try makeVersion(basedOn: v0.id, changes: [.update(Value(id: valueId, data: Data("branch1".utf8)))])
        let v2 = try makeVersion(basedOn: v0.id, changes: [.update(Value(id: valueId, data: Data("branch2".utf8)))])
        let merged = try store.mergeRelated(version: v1.id, with: v2.id, resolvingWith: arbiter)
        #expect(try store.value(id: valueId, at: merged.id) != nil)
    }

    @Test func storeCoordinatorSaveAndFetchRoundTrip() throws {
        let coordinator = try StoreCoordinator(withStoreDirectoryAt: directory.url.appendingPathComponent("coordinated"),
                                               cacheDirectoryAt: directory.url.appendingPathComponent("cache"))
        try coordinator.save(Contact(name: "Alice", notes: "Met at WWDC", age: 30), instanceIdentifier: "abc")
        let fetched: Contact? = try coordinator.fetchModel(Contact.self, instanceIdentifier: "abc")
        #expect(fetched?.name == "Alice")
        #expect(fetched?.notes == "Met at WWDC")
        #expect(fetched?.age == 30)
    }

    @Test func fetchAllModelsReturnsCorrectTypeSubset() throws {
        let coordinator = try StoreCoordinator(withStoreDirectoryAt: directory.url.appendingPathComponent("coordinated"),
                                               cacheDirectoryAt: directory.url.appendingPathComponent("cache"))
        try coordinator.save(Contact(name: "Alice", notes: "", age: 30), instanceIdentifier: "a")
        try coordinator.save(Contact(name: "Bob", notes: "", age: 25), instanceIdentifier: "b")
        try coordinator.save(Tag(label: "VIP"), instanceIdentifier: "t1")
        let contacts: [Contact] = try coordinator.fetchAllModels(Contact.self)
        #expect(contacts.count == 2)
        let tags: [Tag] = try coordinator.fetchAllModels(Tag.self)
        #expect(tags.count == 1)
        #expect(tags.first?.label == "VIP")
    }

    @Test func modelValueIDHelpers() {
        let valueId = modelValueID(typeIdentifier: "Contact", instanceIdentifier: "abc-123")
        #expect(valueId.rawValue == "Contact/abc-123")
        #expect(modelTypeIdentifier(from: valueId) == "Contact")
        #expect(instanceIdentifier(from: valueId) == "abc-123")
    }

    @Test func helperReturnsNilForNoSlash() {
        let valueId = Value.ID("noslash")
        #expect(modelTypeIdentifier(from: valueId) == nil)
        #expect(instanceIdentifier(from: valueId) == nil)
    }

    @Test func nestedMergeablePreservesBothBranchChanges() throws {
        let arbiter = MergeableArbiter()
        arbiter.register(OuterModel.self)
        let valueId = modelValueID(typeIdentifier: "OuterModel", instanceIdentifier: "o1")
        let ancestor = OuterModel(inner: InnerModel(x: 1, y: 2), label: "start")
        let v0 = try makeVersion(basedOn: nil, changes: [.insert(Value(id: valueId, data: try encode(ancestor)))])
        var b1 = ancestor
        b1.inner.x = 10
        let v1 = try makeVersion(basedOn: v0.id, changes: [.update(Value(id: valueId, data: try encode(b1)))])
        var b2 = ancestor
        b2.inner.y = 20
        let v2 = try makeVersion(basedOn: v0.id, changes: [.update(Value(id: valueId, data: try encode(b2)))])
        let merged = try store.mergeRelated(version: v1.id, with: v2.id, resolvingWith: arbiter)
        let outer = try JSONDecoder().decode(OuterModel.self, from: try #require(try store.value(id: valueId, at: merged.id)).data)
        #expect(outer.inner.x == 10)
        #expect(outer.inner.y == 20)
        #expect(outer.label == "start")
    }

    @Test func optionalMergeableBothSomePreservesSubproperties() throws {
        let arbiter = MergeableArbiter()
        arbiter.register(OuterOptionalModel.self)
        let valueId = modelValueID(typeIdentifier: "OuterOptionalModel", instanceIdentifier: "om1")
        let ancestor = OuterOptionalModel(inner: InnerModel(x: 1, y: 2), label: "start")
        let v0 = try makeVersion(basedOn: nil, changes: [.insert(Value(id: valueId, data: try encode(ancestor)))])
        var b1 = ancestor
        b1.inner?.x = 10
        let v1 = try makeVersion(basedOn: v0.id, changes: [.update(Value(id: valueId, data: try encode(b1)))])
        var b2 = ancestor
        b2.inner?.y = 20
        let v2 = try makeVersion(basedOn: v0.id, changes: [.update(Value(id: valueId, data: try encode(b2)))])
        let merged = try store.mergeRelated(version: v1.id, with: v2.id, resolvingWith: arbiter)
        let outer = try JSONDecoder().decode(OuterOptionalModel.self, from: try #require(try store.value(id: valueId, at: merged.id)).data)
        #expect(outer.inner?.x == 10)
        #expect(outer.inner?.y == 20)
    }

    @Test func optionalMergeableNilToSome() throws {
        let arbiter = MergeableArbiter()
        arbiter.register(OuterOptionalModel.self)
        let valueId = modelValueID(typeIdentifier: "OuterOptionalModel", instanceIdentifier: "om2")
        let ancestor = OuterOptionalModel(inner: nil, label: "start")
        let v0 = try makeVersion(basedOn: nil, changes: [.insert(Value(id: valueId, data: try encode(ancestor)))])
        var b1 = ancestor
        b1.inner = InnerModel(x: 5, y: 6)
        let v1 = try makeVersion(basedOn: v0.id, changes: [.update(Value(id: valueId, data: try encode(b1)))])
        let v2 = try makeVersion(basedOn: v0.id, changes: [.update(Value(id: valueId, data: try encode(ancestor)))])
        let merged = try store.mergeRelated(version: v1.id, with: v2.id, resolvingWith: arbiter)
        let outer = try JSONDecoder().decode(OuterOptionalModel.self, from: try #require(try store.value(id: valueId, at: merged.id)).data)
        #expect(outer.inner?.x == 5)
        #expect(outer.inner?.y == 6)
    }

    @Test func optionalMergeableSomeToNil() throws {
        let arbiter = MergeableArbiter()
        arbiter.register(OuterOptionalModel.self)
        let valueId = modelValueID(typeIdentifier: "OuterOptionalModel", instanceIdentifier: "om3")
        let ancestor = OuterOptionalModel(inner: InnerModel(x: 1, y: 2), label: "start")
        let v0 = try makeVersion(basedOn: nil, changes: [.insert(Value(id: valueId, data: try encode(ancestor)))])
        let v1 = try makeVersion(basedOn: v0.id, changes: [.update(Value(id: valueId, data: try encode(ancestor)))])
        var b2 = ancestor
        b2.inner = nil
        let v2 = try makeVersion(basedOn: v0.id, changes: [.update(Value(id: valueId, data: try encode(b2)))])
        let merged = try store.mergeRelated(version: v1.id, with: v2.id, resolvingWith: arbiter)
        let outer = try JSONDecoder().decode(OuterOptionalModel.self, from: try #require(try store.value(id: valueId, at: merged.id)).data)
        #expect(outer.inner == nil)
    }

    // MergeableModelMacroTests (the reference's SQLite schema tests belong to projections).

    @Test func publicStructGetsPublicConformance() throws {
        let ancestor = PublicModel(title: "a", count: 1)
        var dominant = ancestor
        dominant.title = "b"
        var subordinate = ancestor
        subordinate.count = 2
        #expect(try dominant.merged(withSubordinate: subordinate, commonAncestor: ancestor) == PublicModel(title: "b", count: 2))
    }

    @Test func everyBindingInADeclarationIsMerged() throws {
        let ancestor = MultipleBindingModel(first: 1, second: 1)
        var dominant = ancestor
        dominant.first = 2
        var subordinate = ancestor
        subordinate.second = 3
        #expect(try dominant.merged(withSubordinate: subordinate, commonAncestor: ancestor) == MultipleBindingModel(first: 2, second: 3))
    }
}
