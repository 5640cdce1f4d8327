import Foundation
import LLVS

/// A contact of the LoCo sample: a model, stored as one value per contact
/// (`Contact/<id>`) and merged property by property by `MergeableArbiter`. Concurrent
/// edits of different fields of one contact both survive; where both sides changed one
/// field, the more recent edit wins (by version timestamp, then identifier, so every
/// replica decides alike); an edit beats a concurrent deletion. No hand-written arbiter.
@MergeableModel
struct Contact: Identifiable, Hashable, Sendable {
    @MergeableModel
    struct Person: Hashable, Sendable {
        var firstName = ""
        var secondName = ""
    }

    @MergeableModel
    struct Address: Hashable, Sendable {
        var streetAddress = ""
        var postCode = ""
        var city = ""
        var country = ""
    }

    var id = UUID().uuidString
    var person = Person()
    var address = Address()

    /// The fields by name, for editing from the command line.
    static var fields: [(name: String, path: WritableKeyPath<Contact, String>)] {[
        ("firstName", \.person.firstName), ("secondName", \.person.secondName),
        ("streetAddress", \.address.streetAddress), ("postCode", \.address.postCode),
        ("city", \.address.city), ("country", \.address.country),
    ]}
}
