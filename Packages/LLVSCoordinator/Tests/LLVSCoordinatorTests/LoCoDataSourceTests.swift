import Foundation
import LLVSCoordinator
import LLVSCore
import LLVSExchange
import LLVSStore
import LLVSTesting
import Testing

/// The LoCo sample's data source (the blog post "Data Driven SwiftUI"), written with
/// `currentVersions` instead of Combine's `currentVersionSubject`: the contacts shown are a
/// function of the current version alone, edits go straight to the store, and changes from
/// another replica arrive by a merge.
struct Contact: Codable, Identifiable, Hashable, Sendable {
    struct Person: Codable, Hashable, Sendable {
        var firstName = ""
        var secondName = ""
    }

    struct Address: Codable, Hashable, Sendable {
        var streetAddress = ""
        var postCode = ""
        var city = ""
        var country = ""
    }

    var id: String = UUID().uuidString
    var person = Person()
    var address = Address()

    func encodeValue() throws -> Value {
        Value(idString: id, data: try JSONEncoder().encode(self))
    }
}

@MainActor
final class ContactsDataSource {
    let storeCoordinator: StoreCoordinator
    private(set) var contacts: [Contact] = []
    private var subscription: Task<Void, Never>?

    init(storeCoordinator: StoreCoordinator) {
        self.storeCoordinator = storeCoordinator
        let versions = storeCoordinator.currentVersions
        subscription = Task { [weak self] in
            for await version in versions {
                guard let self else { return }
                self.contacts = self.fetchedContacts(at: version)
            }
        }
    }

    deinit {
        subscription?.cancel()
    }

    private func fetchedContacts(at version: Version.ID) -> [Contact] {
        let values = (try? storeCoordinator.values(at: version)) ?? []
        return values.compactMap { try? JSONDecoder().decode(Contact.self, from: $0.data) }.sorted { $0.id < $1.id }
    }

    func contact(withID id: Contact.ID) -> Contact? {
        contacts.first { $0.id == id }
    }

    func add(_ contact: Contact) throws {
        try storeCoordinator.save([.insert(try contact.encodeValue())])
    }

    func update(_ contact: Contact) throws {
        try storeCoordinator.save([.update(try contact.encodeValue())])
    }

    func delete(_ id: Contact.ID) throws {
        try storeCoordinator.save([.remove(Value.ID(id))])
    }
}

@Suite struct LoCoDataSourceTests {
    @MainActor
    func waitFor(_ dataSource: ContactsDataSource, _ condition: @MainActor ([Contact]) -> Bool) async -> Bool {
        for _ in 0..<2_000 {
            if condition(dataSource.contacts) { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition(dataSource.contacts)
    }

    @Test @MainActor func contactsFollowTheCurrentVersion() async throws {
        let shared = try TemporaryDirectory(prefix: "llvs-coordinator-shared")
        let phone = try SyncedReplica("phone", sharedDirectory: shared.url)
        let tablet = try SyncedReplica("tablet", sharedDirectory: shared.url)
        let phoneContacts = ContactsDataSource(storeCoordinator: phone.coordinator)
        let tabletContacts = ContactsDataSource(storeCoordinator: tablet.coordinator)
        #expect(await waitFor(phoneContacts) { $0.isEmpty })

        var ada = Contact(id: "ada")
        ada.person = .init(firstName: "Ada", secondName: "Lovelace")
        try phoneContacts.add(ada)
        #expect(await waitFor(phoneContacts) { $0 == [ada] }, "the edit reaches the data source through the current version")

        ada.address.city = "London"
        try phoneContacts.update(ada)
        #expect(await waitFor(phoneContacts) { $0.first?.address.city == "London" })
        #expect(phoneContacts.contact(withID: "ada") == ada)

        // Sync: the other replica's data source follows its merge.
        try await phone.sync()
        try await tablet.sync()
        #expect(await waitFor(tabletContacts) { $0 == [ada] })

        // Concurrent edits on both devices converge in both data sources.
        var grace = Contact(id: "grace")
        grace.person = .init(firstName: "Grace", secondName: "Hopper")
        try tabletContacts.add(grace)
        var renamed = ada
        renamed.person.secondName = "King"
        try phoneContacts.update(renamed)
        try await phone.sync()
        try await tablet.sync()
        try await phone.sync()
        #expect(await waitFor(phoneContacts) { $0 == [renamed, grace] })
        #expect(await waitFor(tabletContacts) { $0 == [renamed, grace] })

        try tabletContacts.delete("grace")
        try await tablet.sync()
        try await phone.sync()
        #expect(await waitFor(phoneContacts) { $0 == [renamed] })
    }
}
