import Foundation

/// A piece of data stored under an identifier — one entry of the key-value store.
///
/// LLVS never looks inside `data`: encode your model with Codable, JSON, an encryption
/// layer or anything else. A value read back from a store also carries the version in
/// which its data was physically stored (``storedVersionId``), from which ``reference``
/// is formed.
///
/// Codable form (JSON object): `id` (string), `data` (base64 string) and, once stored,
/// `storedVersionId` (string). See SPEC.md.
public struct Value: Identifiable, Hashable, Codable, Sendable {
    /// The type of a value's key. Also spelled `Value.Identifier`.
    public typealias ID = Identifier

    /// The key of the value.
    public var id: ID

    /// The opaque payload.
    public var data: Data

    /// The version in which this value's data was stored, or nil for a value that has not
    /// been stored yet.
    public var storedVersionId: Version.ID?

    /// Creates a value that has not been stored yet. The identifier defaults to a random UUID.
    public init(id: ID = ID(), data: Data) {
        self.id = id
        self.data = data
        self.storedVersionId = nil
    }

    /// Creates a value that has not been stored yet, from the identifier's string form.
    public init(idString: String, data: Data) {
        self.init(id: ID(idString), data: data)
    }

    /// Creates a value as read back from storage, stored in the given version.
    public init(id: ID, data: Data, storedVersionId: Version.ID) {
        self.id = id
        self.data = data
        self.storedVersionId = storedVersionId
    }

    /// Where this value's data lives: its identifier and the version that stored it, or
    /// nil if the value has not been stored.
    public var reference: Reference? {
        storedVersionId.map { Reference(valueId: id, storedVersionId: $0) }
    }
}
