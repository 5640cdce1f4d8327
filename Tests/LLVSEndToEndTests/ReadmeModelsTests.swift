import Foundation
import LLVS
import LLVSTesting
import Testing

// README.md's "Models" quick start, as printed.
@MergeableModel
struct Note: Identifiable, Sendable {
    var id = UUID().uuidString
    var title = ""                            // both sides changed it: the newer edit wins
    @Merged(using: .text) var body = ""       // edits in different places both survive
    @Merged(using: .counter) var views = 0    // increments on both sides add up
    var tags: Set<String> = []                // per-element adds and removes
}

// "Coming from LLVS": the reference's model, with a strategy added.
@MergeableModel
struct ReferenceContact: ModelValue, Equatable {
    static let modelTypeIdentifier = "Contact"
    var name: String = ""
    @Merged(using: .counter) var visits = 0   // new: a strategy per property
}

/// The README's models section and its "Coming from LLVS" entry, run through `import LLVS`
/// on two replicas syncing through a shared directory.
@Suite struct ReadmeModelsTests {
    func replica(_ name: String, in directory: TemporaryDirectory) throws -> StoreCoordinator {
        let storeCoordinator = try StoreCoordinator(withStoreDirectoryAt: directory.url.appendingPathComponent("\(name)/store"),
                                                    cacheDirectoryAt: directory.url.appendingPathComponent("\(name)/cache"))
        storeCoordinator.exchange = FileSystemExchange(rootDirectoryURL: directory.url.appendingPathComponent("shared"),
                                                       store: storeCoordinator.store)
        let arbiter = MergeableArbiter()
        arbiter.register(Note.self)
        arbiter.register(ReferenceContact.self)
        storeCoordinator.mergeArbiter = arbiter
        return storeCoordinator
    }

    @Test func theQuickStartsNotesMergeOnEveryReplicaAlike() async throws {
        let directory = try TemporaryDirectory()
        let storeCoordinator = try replica("laptop", in: directory), phone = try replica("phone", in: directory)

        var note = Note(title: "Groceries")
        try storeCoordinator.save(note)
        note.tags.insert("home")
        try storeCoordinator.save(note)
        let notes = try storeCoordinator.fetchAllModels(Note.self)
        let same = try storeCoordinator.fetchModel(Note.self, instanceIdentifier: note.id)
        #expect(notes.map(\.title) == ["Groceries"] && same?.tags == ["home"])
        var snapshots = storeCoordinator.models(Note.self).makeAsyncIterator()
        #expect(try await snapshots.next()?.models.map(\.title) == ["Groceries"])

        _ = try await storeCoordinator.sync()
        _ = try await phone.sync()
        var onPhone = try #require(try phone.fetchModel(Note.self, instanceIdentifier: note.id))
        onPhone.title = "Groceries for Saturday"
        onPhone.body = "Milk"
        onPhone.views += 2
        onPhone.tags.insert("weekend")
        try phone.save(onPhone)
        note.body = "Eggs"
        note.views += 1
        note.tags.remove("home")
        try storeCoordinator.save(note)
        for _ in 0..<2 {
            _ = try await storeCoordinator.sync()
            _ = try await phone.sync()
        }
        #expect(storeCoordinator.currentVersion == phone.currentVersion)
        let merged = try #require(try phone.fetchModel(Note.self, instanceIdentifier: note.id))
        #expect(merged.views == 3 && merged.tags == ["weekend"])
        #expect(merged.title == "Groceries for Saturday")
        #expect(merged.body == "MilkEggs" || merged.body == "EggsMilk", "both inserted at one place: the older's then the newer's")
    }

    @Test func theReferenceStyleModelKeepsItsIdentifierAndGainsAStrategy() throws {
        let directory = try TemporaryDirectory()
        let storeCoordinator = try replica("one", in: directory)
        try storeCoordinator.save(ReferenceContact(name: "Alice"), instanceIdentifier: "abc")
        #expect(try storeCoordinator.value(id: modelValueID(typeIdentifier: "Contact", instanceIdentifier: "abc")) != nil)
        #expect(ReferenceContact.mergeSchema.strategy(forKey: "visits")?.name == "counter")
        let ancestor = ReferenceContact(name: "A", visits: 1)
        let merged = try ReferenceContact(name: "B", visits: 2).merged(withSubordinate: ReferenceContact(name: "A", visits: 4), commonAncestor: ancestor)
        #expect(merged == ReferenceContact(name: "B", visits: 5))
    }
}
