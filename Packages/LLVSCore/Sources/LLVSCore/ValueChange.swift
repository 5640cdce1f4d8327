extension Value {
    /// One change to one value identifier, as recorded in a version.
    ///
    /// `insert`, `update` and `remove` are what a caller asks for. `preserve` and
    /// `preserveRemoval` are what merges use: they carry an existing stored value (or an
    /// existing removal) from one branch into the merge version without copying data.
    ///
    /// Codable form: an object with exactly one key naming the case — `{"insert": Value}`,
    /// `{"update": Value}`, `{"remove": id}`, `{"preserve": Reference}`,
    /// `{"preserveRemoval": id}`.
    public enum Change: Hashable, Codable, Sendable {
        /// Add a value whose identifier is not present in the base version.
        case insert(Value)
        /// Replace the data of a value (inserting it if it was absent).
        case update(Value)
        /// Remove the value with this identifier.
        case remove(Value.ID)
        /// Keep the value data stored at this reference (used when merging).
        case preserve(Value.Reference)
        /// Keep the removal of this identifier (used when merging).
        case preserveRemoval(Value.ID)

        /// The identifier of the value this change affects.
        public var valueId: Value.ID {
            switch self {
            case .insert(let value), .update(let value):
                return value.id
            case .remove(let id), .preserveRemoval(let id):
                return id
            case .preserve(let reference):
                return reference.valueId
            }
        }

        private enum CodingKeys: String, CodingKey, CaseIterable {
            case insert, update, remove, preserve, preserveRemoval
        }

        /// Decodes a change from its single-key object form.
        ///
        /// - Throws: `DecodingError.dataCorrupted` naming the keys found when the object
        ///   does not hold exactly one of the five case keys; the nested decoding error when
        ///   the payload is malformed.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            // Unknown keys are invisible through `CodingKeys`, so count every key present.
            let found = try decoder.container(keyedBy: AnyStringCodingKey.self).allKeys.map(\.stringValue).sorted()
            guard found.count == 1, let key = container.allKeys.first else {
                let expected = CodingKeys.allCases.map(\.stringValue).joined(separator: ", ")
                throw DecodingError.dataCorrupted(.init(
                    codingPath: decoder.codingPath,
                    debugDescription: "A value change must have exactly one of the keys \(expected); found \(found)."))
            }
            switch key {
            case .insert: self = .insert(try container.decode(Value.self, forKey: key))
            case .update: self = .update(try container.decode(Value.self, forKey: key))
            case .remove: self = .remove(try container.decode(Value.ID.self, forKey: key))
            case .preserve: self = .preserve(try container.decode(Value.Reference.self, forKey: key))
            case .preserveRemoval: self = .preserveRemoval(try container.decode(Value.ID.self, forKey: key))
            }
        }

        /// Encodes the change in its single-key object form.
        ///
        /// - Throws: Whatever the encoder throws.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            switch self {
            case .insert(let value): try container.encode(value, forKey: .insert)
            case .update(let value): try container.encode(value, forKey: .update)
            case .remove(let id): try container.encode(id, forKey: .remove)
            case .preserve(let reference): try container.encode(reference, forKey: .preserve)
            case .preserveRemoval(let id): try container.encode(id, forKey: .preserveRemoval)
            }
        }
    }
}

extension Sequence where Element == Value.Change {
    /// The identifiers of the values these changes affect, in order.
    public var valueIds: [Value.ID] {
        map(\.valueId)
    }
}
