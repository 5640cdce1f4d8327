import Foundation

/// A string-backed identifier that compares, orders and hashes by its exact UTF-8 bytes.
///
/// Swift's `String` equality follows Unicode canonical equivalence, so `"é"` written as one
/// scalar equals `"e"` followed by a combining accent. Identifiers are keys that travel to
/// other replicas and to ports in other languages, which compare bytes; two identifiers are
/// therefore equal only when their UTF-8 encodings are identical, and they order by
/// lexicographic comparison of those bytes. The Codable form is a plain JSON string.
public protocol StringIdentifier: RawRepresentable, Hashable, Comparable, Codable, Sendable,
    CustomStringConvertible, ExpressibleByStringLiteral where RawValue == String
{
    /// Creates an identifier from its string form. Any string is accepted here; storage
    /// backends decide how (or whether) an unusual string can be stored.
    init(rawValue: String)

    /// Calls `body` with the identifier's UTF-8 bytes.
    func withUTF8<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R

    /// The number of UTF-8 bytes.
    var utf8Count: Int { get }

    /// The identifier whose UTF-8 encoding is `bytes`, or nil when they are not UTF-8.
    init?(validatingUTF8 bytes: UnsafeRawBufferPointer)
}

extension StringIdentifier {
    /// Creates a fresh, random identifier: an upper-case UUID string.
    public init() {
        self.init(rawValue: UUID().uuidString)
    }

    /// Creates an identifier from its string form.
    public init(_ rawValue: String) {
        self.init(rawValue: rawValue)
    }

    /// Calls `body` with the UTF-8 bytes of ``rawValue``.
    public func withUTF8<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var string = rawValue
        return try string.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
    }

    /// The number of UTF-8 bytes of ``rawValue``.
    public var utf8Count: Int { rawValue.utf8.count }

    /// The identifier whose UTF-8 encoding is `bytes`, or nil when they are not UTF-8.
    public init?(validatingUTF8 bytes: UnsafeRawBufferPointer) {
        guard let string = String(validating: bytes, as: UTF8.self) else { return nil }
        self.init(rawValue: string)
    }

    /// Creates an identifier from a string literal.
    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }

    /// True when both identifiers have byte-for-byte identical UTF-8 forms.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        compareUTF8(lhs.rawValue, rhs.rawValue) == 0
    }

    /// Hashes the identifier consistently with its byte-wise equality.
    public func hash(into hasher: inout Hasher) {
        var bytes = rawValue
        bytes.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        // The length keeps identifiers combined in one hash (a reference's two ids) apart.
        hasher.combine(bytes.utf8.count)
    }

    /// Orders identifiers by lexicographic comparison of their UTF-8 bytes, the order a
    /// port in any language reproduces.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        compareUTF8(lhs.rawValue, rhs.rawValue) < 0
    }

    /// The identifier's string form.
    public var description: String { rawValue }

    /// Decodes the identifier from a single JSON string.
    ///
    /// - Throws: `DecodingError` when the value is not a string.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self.init(rawValue: try container.decode(String.self))
    }

    /// Encodes the identifier as a single JSON string.
    ///
    /// - Throws: Whatever the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// Compares the UTF-8 bytes of two strings lexicographically: negative, zero or positive
/// (the order of SPEC.md section 1). Native strings are compared in place with `memcmp`;
/// others byte by byte.
public func compareUTF8(_ lhs: String, _ rhs: String) -> Int {
    let result = lhs.utf8.withContiguousStorageIfAvailable { left in
        rhs.utf8.withContiguousStorageIfAvailable { right in
            compareBytes(UnsafeRawBufferPointer(left), UnsafeRawBufferPointer(right))
        }
    }
    if let result = result ?? nil { return result }
    for (a, b) in zip(lhs.utf8, rhs.utf8) where a != b {
        return a < b ? -1 : 1
    }
    return lhs.utf8.count - rhs.utf8.count
}

/// A ``StringIdentifier`` held as an ``IdentifierStorage``: a UUID string in its 128
/// bits, in the value itself. Equality, hashing and ordering work on the storage, without
/// making the string; ``rawValue`` makes it on each read.
public protocol CompactStringIdentifier: StringIdentifier {
    /// The identifier's bytes.
    var storage: IdentifierStorage { get set }

    /// Creates the identifier holding `storage`.
    init(storage: IdentifierStorage)
}

extension CompactStringIdentifier {
    /// Creates an identifier from its string form (held as 128 bits when it is a UUID).
    @inlinable
    public init(rawValue: String) {
        self.init(storage: IdentifierStorage(rawValue))
    }

    /// The identifier whose UTF-8 encoding is `bytes`, or nil when they are not UTF-8.
    @inlinable
    public init?(validatingUTF8 bytes: UnsafeRawBufferPointer) {
        guard let storage = IdentifierStorage(validatingUTF8: bytes) else { return nil }
        self.init(storage: storage)
    }

    /// The identifier's string form (made afresh for a UUID).
    @inlinable
    public var rawValue: String {
        get { storage.string }
        set { storage = IdentifierStorage(newValue) }
    }

    /// Calls `body` with the UTF-8 bytes, without allocating.
    @inlinable
    public func withUTF8<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try storage.withUTF8(body)
    }

    /// The number of UTF-8 bytes.
    @inlinable
    public var utf8Count: Int { storage.utf8Count }

    /// True when both identifiers have byte-for-byte identical UTF-8 forms.
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.storage == rhs.storage
    }

    /// Hashes the identifier consistently with its byte-wise equality.
    @inlinable
    public func hash(into hasher: inout Hasher) {
        storage.hash(into: &hasher)
    }

    /// Orders identifiers by lexicographic comparison of their UTF-8 bytes.
    @inlinable
    public static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.storage < rhs.storage
    }
}
