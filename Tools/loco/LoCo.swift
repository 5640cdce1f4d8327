// loco: the LoCo contact book from the LLVS blog post, on Linux. Contacts are models
// (`@MergeableModel`): every edit is saved straight into the store as a new version, and the
// list is always read from the current version — the data cycle of the post, with a
// command line instead of SwiftUI. Replicas sync through a shared directory; concurrent
// edits of one contact merge field by field through the model layer's MergeableArbiter.

import ArgumentParser
import Foundation
import LLVS

/// The data source: the contacts at the coordinator's current version.
final class ContactsDataSource: Sendable {
    let storeCoordinator: StoreCoordinator

    init(storeDirectory: URL, exchangeDirectory: URL?) throws {
        storeCoordinator = try StoreCoordinator(withStoreDirectoryAt: storeDirectory.appendingPathComponent("store"),
                                                cacheDirectoryAt: storeDirectory.appendingPathComponent("cache"))
        let arbiter = MergeableArbiter()
        arbiter.register(Contact.self)
        storeCoordinator.mergeArbiter = arbiter
        if let exchangeDirectory {
            storeCoordinator.exchange = FileSystemExchange(rootDirectoryURL: exchangeDirectory, store: storeCoordinator.store)
        }
    }

    /// The contacts at the current version, sorted by name.
    var contacts: [Contact] {
        get throws {
            try storeCoordinator.fetchAllModels(Contact.self)
                .sorted { ($0.person.secondName, $0.person.firstName, $0.id) < ($1.person.secondName, $1.person.firstName, $1.id) }
        }
    }

    /// The contact whose identifier is `idOrPrefix` or starts with it.
    func contact(_ idOrPrefix: String) throws -> Contact {
        let matches = try contacts.filter { $0.id == idOrPrefix || $0.id.lowercased().hasPrefix(idOrPrefix.lowercased()) }
        guard matches.count == 1, let contact = matches.first else {
            throw ValidationError(matches.isEmpty ? "no contact \(idOrPrefix)" : "\(idOrPrefix) names \(matches.count) contacts")
        }
        return contact
    }

    /// Saves a new or changed contact.
    func save(_ contact: Contact) throws {
        try storeCoordinator.save(contact)
    }

    func delete(_ contact: Contact) throws {
        try storeCoordinator.removeModel(Contact.self, instanceIdentifier: contact.id)
    }

    /// Retrieves others' versions, merges, and sends the result.
    func sync() async throws -> Bool {
        try await storeCoordinator.sync()
    }
}

@main
struct LoCo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loco", abstract: "LoCo: a contact book that syncs through a shared directory.",
        version: LLVSRelease.version,
        subcommands: [Add.self, Edit.self, Delete.self, List.self, Sync.self])

    struct Options: ParsableArguments {
        @Option(help: ArgumentHelp("This replica's directory (default: $LOCO_STORE, else ./loco-data).", valueName: "directory"))
        var store: String?

        @Option(help: ArgumentHelp("The shared exchange directory for sync (default: $LOCO_EXCHANGE).", valueName: "directory"))
        var exchange: String?

        func dataSource() throws -> ContactsDataSource {
            let environment = ProcessInfo.processInfo.environment
            let store = URL(fileURLWithPath: self.store ?? environment["LOCO_STORE"] ?? "loco-data").standardizedFileURL
            let exchange = (self.exchange ?? environment["LOCO_EXCHANGE"]).map { URL(fileURLWithPath: $0).standardizedFileURL }
            return try ContactsDataSource(storeDirectory: store, exchangeDirectory: exchange)
        }
    }

    struct Fields: ParsableArguments {
        @Option(name: .customLong("first"), help: "First name.") var firstName: String?
        @Option(name: .customLong("last"), help: "Last name.") var secondName: String?
        @Option(name: .customLong("street"), help: "Street address.") var streetAddress: String?
        @Option(name: .customLong("postcode"), help: "Postcode.") var postCode: String?
        @Option(help: "City.") var city: String?
        @Option(help: "Country.") var country: String?

        /// `contact` with the given fields changed.
        func applied(to contact: Contact) -> Contact {
            var contact = contact
            let given: [String: String?] = ["firstName": firstName, "secondName": secondName, "streetAddress": streetAddress,
                                            "postCode": postCode, "city": city, "country": country]
            for field in Contact.fields {
                if let value = given[field.name] ?? nil { contact[keyPath: field.path] = value }
            }
            return contact
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a contact; prints its identifier.")
        @OptionGroup var options: Options
        @OptionGroup var fields: Fields

        func run() throws {
            let contact = fields.applied(to: Contact())
            try options.dataSource().save(contact)
            print(contact.id)
        }
    }

    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change fields of a contact (the others stay).")
        @OptionGroup var options: Options
        @Argument(help: "The contact's identifier, or a unique prefix.") var id: String
        @OptionGroup var fields: Fields

        func run() throws {
            let dataSource = try options.dataSource()
            try dataSource.save(fields.applied(to: try dataSource.contact(id)))
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a contact.")
        @OptionGroup var options: Options
        @Argument(help: "The contact's identifier, or a unique prefix.") var id: String

        func run() throws {
            let dataSource = try options.dataSource()
            try dataSource.delete(try dataSource.contact(id))
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the contacts at the current version.")
        @OptionGroup var options: Options
        @Flag(help: "Print JSON.") var json = false

        func run() throws {
            let contacts = try options.dataSource().contacts
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                print(String(decoding: try encoder.encode(contacts), as: UTF8.self))
                return
            }
            for contact in contacts {
                let name = "\(contact.person.firstName) \(contact.person.secondName)"
                let place = [contact.address.streetAddress, contact.address.postCode, contact.address.city, contact.address.country]
                    .filter { !$0.isEmpty }.joined(separator: ", ")
                print("\(contact.id.prefix(8))  \(name)\(place.isEmpty ? "" : "  —  \(place)")")
            }
        }
    }

    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Exchange with the shared directory and merge.")
        @OptionGroup var options: Options

        func run() async throws {
            let dataSource = try options.dataSource()
            guard dataSource.storeCoordinator.exchange != nil else { throw ValidationError("name the shared directory with --exchange or LOCO_EXCHANGE") }
            let merged = try await dataSource.sync()
            print(merged ? "Synced and merged." : "Synced.")
        }
    }
}
