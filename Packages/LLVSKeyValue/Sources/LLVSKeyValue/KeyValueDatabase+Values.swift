import Foundation
import LLVSMerge

extension KeyValueDatabase {
    /// A value stored under a key: text, a JSON document, or bytes — or `.null`, the
    /// tombstone a delete leaves, as in KeyValueCRDT. The type is kept: text that happens
    /// to be valid JSON is still text.
    public enum Value: Hashable, Sendable {
        /// A delete: the key's tombstone. Writing it deletes the key.
        case null
        /// Text.
        case text(String)
        /// A JSON document, as its text.
        case json(String)
        /// Bytes.
        case blob(Data)

        /// True for the tombstone of a delete.
        public var isNull: Bool {
            self == .null
        }

        /// The text, or nil for another type.
        public var text: String? {
            if case .text(let text) = self { return text }
            return nil
        }

        /// The JSON text, or nil for another type.
        public var json: String? {
            if case .json(let json) = self { return json }
            return nil
        }

        /// The bytes, or nil for another type.
        public var blob: Data? {
            if case .blob(let data) = self { return data }
            return nil
        }

        /// The register payload storing this value.
        var payload: MultiValueRegister.Payload {
            switch self {
            case .text(let text): return .text(text)
            case .json(let json): return .json(json)
            case .blob(let data): return .blob(data)
            case .null: return .tombstone
            }
        }

        /// The value a payload stores (`.null` for a tombstone).
        init(_ payload: MultiValueRegister.Payload) {
            switch payload {
            case .text(let text): self = .text(text)
            case .json(let json): self = .json(json)
            case .blob(let data): self = .blob(data)
            case .tombstone: self = .null
            }
        }
    }

    /// A value written by one author at one time. After a merge of concurrent writes, a key
    /// has one `Version` per concurrent write.
    public struct Version: Hashable, Sendable {
        /// The id of the author who wrote the value.
        public let authorID: UUID
        /// When the value was written.
        public let timestamp: Date
        /// The value.
        public let value: Value

        /// Creates a version.
        public init(authorID: UUID, timestamp: Date, value: Value) {
            self.authorID = authorID
            self.timestamp = timestamp
            self.value = value
        }

        /// The versions of a register, deletes included as `.null`, oldest first (ties by
        /// author id).
        static func versions(of register: MultiValueRegister) -> [Version] {
            register.entries.map { entry in
                Version(authorID: entry.authorId, timestamp: Date(timeIntervalSinceReferenceDate: entry.timestamp), value: Value(entry.payload))
            }.sorted { a, b in
                a.timestamp != b.timestamp ? a.timestamp < b.timestamp : a.authorID.uuidString < b.authorID.uuidString
            }
        }
    }
}

extension Array where Element == KeyValueDatabase.Version {
    /// The single value's text; nil when there is no value or it is not text.
    ///
    /// - Throws: ``KeyValueDatabaseError/versionConflict(count:)`` when there are several values.
    public var text: String? {
        get throws { try single?.text }
    }

    /// The single value's JSON text; nil when there is no value or it is not JSON.
    ///
    /// - Throws: ``KeyValueDatabaseError/versionConflict(count:)`` when there are several values.
    public var json: String? {
        get throws { try single?.json }
    }

    /// The single value's bytes; nil when there is no value or it is not a blob.
    ///
    /// - Throws: ``KeyValueDatabaseError/versionConflict(count:)`` when there are several values.
    public var blob: Data? {
        get throws { try single?.blob }
    }

    /// True when the key's one version is a delete; false for a key never written (deleted
    /// is not the same as absent) and for a live value.
    ///
    /// - Throws: ``KeyValueDatabaseError/versionConflict(count:)`` when there are several
    ///   versions (a delete concurrent with a write is one of them).
    public var isDeleted: Bool {
        get throws { try single == .null }
    }

    /// Picks one value with `resolver` (nil when there is none).
    public func resolved(with resolver: some Resolver) -> KeyValueDatabase.Value? {
        resolver.resolveVersions(self)
    }

    /// The only value, nil for none.
    private var single: KeyValueDatabase.Value? {
        get throws(KeyValueDatabaseError) {
            guard count <= 1 else { throw .versionConflict(count: count) }
            return first?.value
        }
    }
}
