import Foundation
import LLVSCore

/// Addresses one item of a zone: a key (a value identifier, a map node hash, …) and the
/// version whose changes stored it. Zones are append-only: the data of a reference never
/// changes once stored.
public struct ZoneReference: Hashable, Sendable, CustomStringConvertible {
    /// An item key, compared by its exact UTF-8 bytes.
    public struct Key: CompactStringIdentifier {
        /// The key's bytes (a UUID string held as its 128 bits).
        public var storage: IdentifierStorage

        /// Creates the key holding `storage`.
        public init(storage: IdentifierStorage) {
            self.storage = storage
        }
    }

    /// The item key.
    public var key: Key

    /// The version that stored the item.
    public var version: Version.ID

    /// Creates a reference to the item `key` stored by `version`.
    public init(key: Key, version: Version.ID) {
        self.key = key
        self.version = version
    }

    /// The reference of a stored value's data.
    public init(_ reference: Value.Reference) {
        self.init(key: Key(storage: reference.valueId.storage), version: reference.storedVersionId)
    }

    /// `key@version`.
    public var description: String { "\(key)@\(version)" }
}

/// One item to store: where, and the bytes.
public struct ZoneItem: Sendable {
    /// Where the item is stored.
    public var reference: ZoneReference
    /// The item's bytes.
    public var data: Data

    /// Creates an item.
    public init(reference: ZoneReference, data: Data) {
        self.reference = reference
        self.data = data
    }
}

extension ZoneItem {
    /// The positions in `items` of each version's items, versions in increasing order
    /// (usually just one, whose positions are not looked up one by one).
    ///
    /// - Complexity: O(n) for one version, O(n + v log v) for v of them.
    public static func positionsByVersion(in items: [ZoneItem]) -> [(version: Version.ID, positions: [Int])] {
        guard let first = items.first?.reference.version else { return [] }
        if items.allSatisfy({ $0.reference.version == first }) { return [(first, Array(items.indices))] }
        return Dictionary(grouping: items.indices, by: { items[$0].reference.version })
            .sorted { $0.key < $1.key }
            .map { (version: $0.key, positions: $0.value) }
    }
}
