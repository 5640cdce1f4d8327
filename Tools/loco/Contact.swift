import Foundation
import LLVS

/// A contact of the LoCo sample: stored as one value per contact, its identifier the value's.
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

    var id: Value.ID
    var person = Person()
    var address = Address()

    /// The contact as an LLVS value: canonical JSON (sorted keys), so equal contacts make
    /// equal data on every replica.
    func encodeValue() throws -> Value {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Value(id: id, data: try encoder.encode(self))
    }

    /// Decodes a contact from its value.
    ///
    /// - Throws: `DecodingError` when the value is not a contact.
    init(value: Value) throws {
        self = try JSONDecoder().decode(Contact.self, from: value.data)
        id = value.id
    }

    init(id: Value.ID = Value.ID(), person: Person = Person(), address: Address = Address()) {
        self.id = id
        self.person = person
        self.address = address
    }

    /// The fields by name, for field-wise merging and editing.
    static var fields: [(name: String, path: WritableKeyPath<Contact, String>)] {[
        ("firstName", \.person.firstName), ("secondName", \.person.secondName),
        ("streetAddress", \.address.streetAddress), ("postCode", \.address.postCode),
        ("city", \.address.city), ("country", \.address.country),
    ]}
}
