import Foundation

extension Version {
    /// A key of ``Version/Metadata``. Keys starting with `__llvs_` are reserved for LLVS.
    ///
    /// Codable form: a JSON string; metadata dictionaries encode as JSON objects.
    public struct MetadataKey: RawRepresentable, Hashable, Comparable, Codable, Sendable, CodingKeyRepresentable,
        ExpressibleByStringLiteral
    {
        /// The key's string form.
        public var rawValue: String

        /// Creates a key from its string form.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// Creates a key from a string literal.
        public init(stringLiteral value: String) {
            self.init(rawValue: value)
        }

        /// The key under which a version records the named ``Branch`` it was saved on.
        public static let branch = MetadataKey(rawValue: "__llvs_branch")

        /// The key as a coding key, so metadata encodes as a JSON object.
        public var codingKey: any CodingKey {
            AnyStringCodingKey(stringValue: rawValue)
        }

        /// Creates a key from a coding key (always succeeds).
        public init?<T: CodingKey>(codingKey: T) {
            self.init(rawValue: codingKey.stringValue)
        }

        /// Orders keys by the UTF-8 bytes of their string form.
        public static func < (lhs: MetadataKey, rhs: MetadataKey) -> Bool {
            lhs.rawValue.utf8.lexicographicallyPrecedes(rhs.rawValue.utf8)
        }

        /// Decodes a key from a JSON string.
        ///
        /// - Throws: `DecodingError` when the value is not a string.
        public init(from decoder: any Decoder) throws {
            self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
        }

        /// Encodes the key as a JSON string.
        ///
        /// - Throws: Whatever the encoder throws.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
    }

    /// A metadata entry: opaque bytes, with helpers to store any Codable value as JSON.
    ///
    /// Codable form: a base64 JSON string of ``data``.
    public struct MetadataValue: Hashable, Codable, Sendable {
        /// Why a metadata value could not be converted.
        public enum ConversionError: Error, Hashable, CustomStringConvertible {
            /// The value could not be encoded as JSON; `reason` says why.
            case unencodable(type: String, reason: String)
            /// The stored bytes are not the JSON of the requested type; `reason` says why.
            case undecodable(type: String, reason: String)

            /// A sentence naming the type and the problem.
            public var description: String {
                switch self {
                case let .unencodable(type, reason):
                    return "Cannot encode a \(type) as version metadata: \(reason)"
                case let .undecodable(type, reason):
                    return "Version metadata is not a valid \(type): \(reason)"
                }
            }
        }

        /// The stored bytes.
        public var data: Data

        /// Wraps raw bytes.
        public init(data: Data) {
            self.data = data
        }

        /// Stores `value` as canonical JSON (sorted keys, unescaped slashes).
        ///
        /// - Throws: ``ConversionError/unencodable(type:reason:)`` when encoding fails.
        public init<T: Encodable>(_ value: T) throws {
            do {
                self.data = try CanonicalJSON.makeEncoder().encode(value)
            } catch {
                throw ConversionError.unencodable(type: String(describing: T.self), reason: "\(error)")
            }
        }

        /// Decodes the stored JSON as `type`.
        ///
        /// - Throws: ``ConversionError/undecodable(type:reason:)`` when the bytes are not
        ///   the JSON of a `T`.
        public func value<T: Decodable>(_ type: T.Type = T.self) throws -> T {
            do {
                return try CanonicalJSON.makeDecoder().decode(T.self, from: data)
            } catch {
                throw ConversionError.undecodable(type: String(describing: T.self), reason: "\(error)")
            }
        }

        /// Decodes the value from a base64 JSON string.
        ///
        /// - Throws: `DecodingError` when the value is not valid base64.
        public init(from decoder: any Decoder) throws {
            self.data = try decoder.singleValueContainer().decode(Data.self)
        }

        /// Encodes the value as a base64 JSON string.
        ///
        /// - Throws: Whatever the encoder throws.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(data)
        }
    }
}
