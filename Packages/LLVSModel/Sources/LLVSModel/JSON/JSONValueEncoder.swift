import Foundation

/// Encodes `Encodable` values straight into ``JSONValue``, as `CanonicalJSON`'s encoder
/// would write them (SPEC.md section 2: `Data` as base64, a `Date` by its own encoding —
/// seconds since 2001 — a `URL` as its absolute string, integers exact) but without the
/// text in between, and with every `Set` written in the order of its elements' canonical
/// bytes, so one model always makes the same bytes, in any process.
///
/// Merges encode through it (a custom strategy's result, a hand-written `merged(withSubordinate:)`);
/// saves use the shared `JSONEncoder` of ``ModelCoding``. `JSONDecoder` reads the result.
enum JSONValueEncoder {
    /// The JSON form of `value`.
    ///
    /// - Throws: `EncodingError` for a double that is not finite, or a value that encodes
    ///   nothing; what `value`'s encoding throws.
    static func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        let root = Slot()
        try encode(value, into: root, codingPath: [])
        guard let node = root.node else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values."))
        }
        return node.value
    }

    /// Encodes `value` into `slot`, special-casing the types JSON encoders write themselves.
    fileprivate static func encode<T: Encodable>(_ value: T, into slot: Slot, codingPath: [any CodingKey]) throws {
        switch value {
        case let data as Data:
            slot.node = .value(.string(data.base64EncodedString()))
        case let url as URL:
            slot.node = .value(.string(url.absoluteString))
        case let decimal as Decimal:
            slot.node = .value(try number(decimal.description, codingPath: codingPath, value: decimal))
        default:
            let encoder = NodeEncoder(slot: slot, codingPath: codingPath)
            try value.encode(to: encoder)
            if value is any SetMarker, case .array(let array)? = slot.node {
                slot.node = .value(.array(MergeStrategies.sortedCanonically(array.elements.map(\.value))))
            }
        }
    }

    fileprivate static func number(_ text: String, codingPath: [any CodingKey], value: Any) throws -> JSONValue {
        guard let parsed = try? JSONValue(parsing: Data(text.utf8)), case .number = parsed else {
            throw EncodingError.invalidValue(value, .init(codingPath: codingPath, debugDescription: "\(text) is not a JSON number."))
        }
        return parsed
    }

    fileprivate static func double(_ value: Double, codingPath: [any CodingKey]) throws -> JSONValue {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: codingPath, debugDescription: "Unable to encode \(value) directly in JSON."))
        }
        return .number(.double(value))
    }
}

/// A JSON value under construction: containers stay open (reference types) while their
/// encoders write into them.
private enum Node {
    case value(JSONValue)
    case object(ObjectNode)
    case array(ArrayNode)

    var value: JSONValue {
        switch self {
        case .value(let value): return value
        case .object(let object): return .object(JSONObject(object.members.map { ($0.key, $0.slot.node?.value ?? .null) }))
        case .array(let array): return .array(array.elements.map(\.value))
        }
    }
}

private final class Slot {
    var node: Node?
}

private final class ObjectNode {
    var members: [(key: String, slot: Slot)] = []

    func slot(for key: String) -> Slot {
        if let existing = members.first(where: { $0.key.utf8.elementsEqual(key.utf8) }) { return existing.slot }
        let slot = Slot()
        members.append((key, slot))
        return slot
    }
}

private final class ArrayNode {
    var slots: [Slot] = []

    var elements: [Node] { slots.compactMap(\.node) }

    func append() -> Slot {
        let slot = Slot()
        slots.append(slot)
        return slot
    }
}

private struct IndexKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(_ index: Int) { stringValue = "Index \(index)"; intValue = index }
    init?(stringValue: String) { self.stringValue = stringValue; intValue = nil }
    init?(intValue: Int) { self.init(intValue) }
}

private struct SuperKey: CodingKey {
    var stringValue: String { "super" }
    var intValue: Int? { nil }
    init() {}
    init?(stringValue: String) {}
    init?(intValue: Int) { nil }
}

private struct NodeEncoder: Encoder {
    let slot: Slot
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let object: ObjectNode
        if case .object(let existing)? = slot.node {
            object = existing
        } else {
            object = ObjectNode()
            slot.node = .object(object)
        }
        return KeyedEncodingContainer(KeyedNodeContainer(object: object, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let array: ArrayNode
        if case .array(let existing)? = slot.node {
            array = existing
        } else {
            array = ArrayNode()
            slot.node = .array(array)
        }
        return UnkeyedNodeContainer(array: array, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleNodeContainer(slot: slot, codingPath: codingPath)
    }
}

private struct KeyedNodeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let object: ObjectNode
    let codingPath: [any CodingKey]

    private func put(_ value: JSONValue, _ key: Key) { object.slot(for: key.stringValue).node = .value(value) }

    mutating func encodeNil(forKey key: Key) throws { put(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { put(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { put(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { put(try JSONValueEncoder.double(value, codingPath: codingPath + [key]), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        put(try JSONValueEncoder.number(value.isFinite ? value.description : "nan", codingPath: codingPath + [key], value: value), key)
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { put(.number(.integer(Int64(value))), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { put(.number(.integer(Int64(value))), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { put(.number(.integer(Int64(value))), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { put(.number(.integer(Int64(value))), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { put(.number(.integer(value)), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { put(unsigned(UInt64(value)), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { put(.number(.integer(Int64(value))), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { put(.number(.integer(Int64(value))), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { put(.number(.integer(Int64(value))), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { put(unsigned(value), key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try JSONValueEncoder.encode(value, into: object.slot(for: key.stringValue), codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        NodeEncoder(slot: object.slot(for: key.stringValue), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        NodeEncoder(slot: object.slot(for: key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        NodeEncoder(slot: object.slot(for: "super"), codingPath: codingPath + [SuperKey()])
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        NodeEncoder(slot: object.slot(for: key.stringValue), codingPath: codingPath + [key])
    }
}

private struct UnkeyedNodeContainer: UnkeyedEncodingContainer {
    let array: ArrayNode
    let codingPath: [any CodingKey]
    var count: Int { array.slots.count }

    private func put(_ value: JSONValue) { array.append().node = .value(value) }
    private var nextKey: IndexKey { IndexKey(array.slots.count) }

    mutating func encodeNil() throws { put(.null) }
    mutating func encode(_ value: Bool) throws { put(.bool(value)) }
    mutating func encode(_ value: String) throws { put(.string(value)) }
    mutating func encode(_ value: Double) throws { put(try JSONValueEncoder.double(value, codingPath: codingPath + [nextKey])) }
    mutating func encode(_ value: Float) throws {
        put(try JSONValueEncoder.number(value.isFinite ? value.description : "nan", codingPath: codingPath + [nextKey], value: value))
    }
    mutating func encode(_ value: Int) throws { put(.number(.integer(Int64(value)))) }
    mutating func encode(_ value: Int8) throws { put(.number(.integer(Int64(value)))) }
    mutating func encode(_ value: Int16) throws { put(.number(.integer(Int64(value)))) }
    mutating func encode(_ value: Int32) throws { put(.number(.integer(Int64(value)))) }
    mutating func encode(_ value: Int64) throws { put(.number(.integer(value))) }
    mutating func encode(_ value: UInt) throws { put(unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt8) throws { put(.number(.integer(Int64(value)))) }
    mutating func encode(_ value: UInt16) throws { put(.number(.integer(Int64(value)))) }
    mutating func encode(_ value: UInt32) throws { put(.number(.integer(Int64(value)))) }
    mutating func encode(_ value: UInt64) throws { put(unsigned(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let key = nextKey
        try JSONValueEncoder.encode(value, into: array.append(), codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let key = nextKey
        return NodeEncoder(slot: array.append(), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let key = nextKey
        return NodeEncoder(slot: array.append(), codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let key = nextKey
        return NodeEncoder(slot: array.append(), codingPath: codingPath + [key])
    }
}

private struct SingleNodeContainer: SingleValueEncodingContainer {
    let slot: Slot
    let codingPath: [any CodingKey]

    private func put(_ value: JSONValue) { slot.node = .value(value) }

    mutating func encodeNil() throws { put(.null) }
    mutating func encode(_ value: Bool) throws { put(.bool(value)) }
    mutating func encode(_ value: String) throws { put(.string(value)) }
    mutating func encode(_ value: Double) throws { put(try JSONValueEncoder.double(value, codingPath: codingPath)) }
    mutating func encode(_ value: Float) throws {
        put(try JSONValueEncoder.number(value.isFinite ? value.description : "nan", codingPath: codingPath, value: value))
    }
    mutating func encode(_ value: Int) throws { put(.number(.integer(Int64(value)))) }
    mutating func encode(_ value: Int8) throws { put(.number(.integer(Int64(value)))) }
    mutating func encode(_ value: Int16) throws { put(.number(.integer(Int64(value)))) }
    mutating func encode(_ value: Int32) throws { put(.number(.integer(Int64(value)))) }
    mutating func encode(_ value: Int64) throws { put(.number(.integer(value))) }
    mutating func encode(_ value: UInt) throws { put(unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt8) throws { put(.number(.integer(Int64(value)))) }
    mutating func encode(_ value: UInt16) throws { put(.number(.integer(Int64(value)))) }
    mutating func encode(_ value: UInt32) throws { put(.number(.integer(Int64(value)))) }
    mutating func encode(_ value: UInt64) throws { put(unsigned(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try JSONValueEncoder.encode(value, into: slot, codingPath: codingPath)
    }
}

/// An unsigned integer: exact, as digits beyond `Int64`.
private func unsigned(_ value: UInt64) -> JSONValue {
    if let signed = Int64(exactly: value) { return .number(.integer(signed)) }
    return .number(.largeInteger(String(value)))
}
