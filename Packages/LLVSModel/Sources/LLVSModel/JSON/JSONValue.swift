import Foundation
import LLVSCore

/// A JSON document as the model layer merges it: what a model's stored value parses to.
///
/// Merges work on this form rather than on the Swift types, so a merge depends only on the
/// stored bytes and the model's merge schema — the same in every process, every replica and
/// every port (SPEC.md section 17). Equality is equality of the canonical form (SPEC.md
/// section 2): object keys compare as UTF-8 bytes, and a number compares by the text it is
/// written as, so `1`, `1.0` and `1e0` are one number.
public enum JSONValue: Sendable, Hashable, CustomStringConvertible {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number.
    case number(JSONNumber)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object: its members sorted by the UTF-8 bytes of their keys, each key once.
    case object(JSONObject)

    /// The value in canonical JSON text (SPEC.md section 2).
    public var description: String { String(decoding: canonicalData, as: UTF8.self) }

    /// The value in canonical JSON (SPEC.md section 2): keys in UTF-8 byte order, no white
    /// space, minimal escapes, numbers in their shortest form.
    public var canonicalData: Data {
        var writer = CanonicalJSONWriter()
        writer.write(self)
        return Data(writer.bytes)
    }

    /// Equality of the canonical forms.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.number(a), .number(b)): return a == b
        case let (.string(a), .string(b)): return a.utf8.elementsEqual(b.utf8)
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)): return a == b
        default: return false
        }
    }

    /// Hashes the canonical form.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(value)
        case .number(let number): hasher.combine(number)
        case .string(let string): hasher.combine(Array(string.utf8))
        case .array(let elements): hasher.combine(elements)
        case .object(let object): hasher.combine(object)
        }
    }

    /// The members of an object, or nil for any other value.
    public var objectValue: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    /// The elements of an array, or nil for any other value.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The string, or nil for any other value.
    public var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// The number, or nil for any other value.
    public var numberValue: JSONNumber? {
        if case .number(let number) = self { return number }
        return nil
    }

    /// Parses JSON text (RFC 8259).
    ///
    /// - Throws: ``JSONParseError`` naming the byte offset and what is wrong: bad syntax, a
    ///   key twice in one object, a lone surrogate, nesting deeper than
    ///   ``JSONParser/maximumDepth``.
    public init(parsing data: Data) throws(JSONParseError) {
        self = try JSONParser.parse(data)
    }
}

/// A JSON number, kept exactly as far as the model layer needs: integers that fit in 64
/// bits as integers, larger integers as their decimal digits, everything else as a double.
public enum JSONNumber: Sendable, Hashable {
    /// An integer written without fraction or exponent that fits in `Int64`.
    case integer(Int64)
    /// An integer written without fraction or exponent beyond `Int64`: its decimal digits
    /// (with a leading `-` when negative), exactly as canonical JSON writes it.
    case largeInteger(String)
    /// A number written with a fraction or an exponent.
    case double(Double)

    /// The canonical text of the number (SPEC.md section 2).
    public var canonicalText: String {
        switch self {
        case .integer(let value): return String(value)
        case .largeInteger(let digits): return digits
        case .double(let value): return CanonicalJSONWriter.text(of: value)
        }
    }

    /// The number as a double (large integers rounded).
    public var doubleValue: Double {
        switch self {
        case .integer(let value): return Double(value)
        case .largeInteger(let digits): return Double(digits) ?? .nan
        case .double(let value): return value
        }
    }

    /// Equality of the canonical texts.
    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        switch (lhs, rhs) {
        case let (.integer(a), .integer(b)): return a == b
        default: return lhs.canonicalText == rhs.canonicalText
        }
    }

    /// Hashes the canonical text.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(canonicalText)
    }
}

/// The members of a JSON object, sorted by the UTF-8 bytes of their keys (SPEC.md section 1
/// order), each key once. Keys are compared as bytes: `é` composed and decomposed are two keys.
public struct JSONObject: Sendable, Hashable, Sequence {
    /// The members in key order.
    public private(set) var members: [(key: String, value: JSONValue)]

    /// An empty object.
    public init() {
        members = []
    }

    /// An object of these members; a later member with a key already given replaces it.
    public init(_ pairs: some Sequence<(String, JSONValue)>) {
        members = []
        for (key, value) in pairs { self[key] = value }
    }

    /// Members already sorted by key bytes, each key once (the parser's output).
    init(sortedMembers: [(key: String, value: JSONValue)]) {
        members = sortedMembers
    }

    /// The number of members.
    public var count: Int { members.count }

    /// The keys in order.
    public var keys: [String] { members.map(\.key) }

    /// The value of `key`, or nil; setting nil removes the member.
    ///
    /// - Complexity: O(log n) to read, O(n) to insert or remove.
    public subscript(key: String) -> JSONValue? {
        get {
            let (index, found) = position(of: key)
            return found ? members[index].value : nil
        }
        set {
            let (index, found) = position(of: key)
            switch (found, newValue) {
            case (true, let value?): members[index].value = value
            case (true, nil): members.remove(at: index)
            case (false, let value?): members.insert((key, value), at: index)
            case (false, nil): break
            }
        }
    }

    /// Iterates the members in key order.
    public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> {
        members.makeIterator()
    }

    /// Where `key` is, or would be inserted.
    private func position(of key: String) -> (index: Int, found: Bool) {
        var low = 0, high = members.count
        while low < high {
            let middle = (low + high) / 2
            let order = compareUTF8(members[middle].key, key)
            if order == 0 { return (middle, true) }
            if order < 0 { low = middle + 1 } else { high = middle }
        }
        return (low, false)
    }

    /// Equal keys (as bytes) with equal values.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count && zip(lhs.members, rhs.members).allSatisfy {
            $0.key.utf8.elementsEqual($1.key.utf8) && $0.value == $1.value
        }
    }

    /// Hashes the keys' bytes and the values.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(members.count)
        for member in members {
            hasher.combine(Array(member.key.utf8))
            hasher.combine(member.value)
        }
    }
}
