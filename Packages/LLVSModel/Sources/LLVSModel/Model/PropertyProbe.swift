import Foundation

/// Learns a model type's properties without an instance: decodes the type from a decoder
/// that answers every request with an empty value and notes, per top-level key, the type
/// asked for (a `Date`, a ``ModelReference``, a string, a number, a nested value).
///
/// A type whose decoding refuses the empty values (an enum with no empty raw value, a
/// validating `init(from:)`) stops the probe at that key: the keys noted so far keep their
/// kinds, that key and the model's other coding keys become ``ModelPropertyKind/value``
/// properties, which hold whatever the JSON holds.
enum PropertyProbe {
    /// The properties of `Model`, in the order its decoding asks for them.
    ///
    /// - Throws: ``ModelError/indescribable(type:reason:)`` when the probe stops before any
    ///   key and the type does not list its coding keys.
    static func properties<Model: StorableModel>(of type: Model.Type) throws(ModelError) -> [ModelSchema.Property] {
        let recorder = Recorder()
        var failure: (any Error)?
        do {
            _ = try Model(from: ProbeDecoder(recorder: recorder, depth: 0))
        } catch {
            failure = error
        }
        var properties = recorder.properties
        if failure != nil || properties.isEmpty {
            for key in Model.modelCodingKeys ?? [] where !properties.contains(where: { $0.name == key }) {
                properties.append(ModelSchema.Property(name: key, kind: .value))
            }
        }
        if properties.isEmpty, let failure {
            throw .indescribable(type: Model.modelTypeIdentifier, reason: "decoding it from empty values failed (\(failure)) and it lists no coding keys")
        }
        return properties
    }
}

/// The kinds noted per top-level key, first request first.
private final class Recorder {
    var properties: [ModelSchema.Property] = []

    func note(_ key: String, _ kind: ModelPropertyKind) {
        guard !properties.contains(where: { $0.name == key }) else { return }
        properties.append(ModelSchema.Property(name: key, kind: kind))
    }
}

private struct ProbeFailure: Error, CustomStringConvertible {
    let description: String
}

/// The kind a property of type `T` projects to.
private func kind<T>(of type: T.Type) -> ModelPropertyKind {
    switch type {
    case is Date.Type: return .date
    case is String.Type, is Data.Type, is URL.Type: return .text
    case is Bool.Type: return .boolean
    case is Int.Type, is Int8.Type, is Int16.Type, is Int32.Type, is Int64.Type,
         is UInt.Type, is UInt8.Type, is UInt16.Type, is UInt32.Type, is UInt64.Type: return .integer
    case is Double.Type, is Float.Type, is Decimal.Type: return .real
    default:
        if let reference = type as? any AnyModelReference.Type { return .reference(targetType: reference.targetTypeIdentifier) }
        return .json
    }
}

private struct ProbeDecoder: Decoder {
    /// Notes the top-level keys (nil below the top).
    let recorder: Recorder?
    let depth: Int
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(ProbeKeyedContainer<Key>(recorder: recorder, depth: depth))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        ProbeUnkeyedContainer()
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        ProbeSingleValueContainer(depth: depth)
    }
}

/// An empty value of `T`: the simple types directly, the rest decoded from the probe.
private func emptyValue<T: Decodable>(_ type: T.Type, depth: Int) throws -> T {
    let simple: Any? = switch type {
    case is Date.Type: Date(timeIntervalSinceReferenceDate: 0)
    case is Data.Type: Data()
    case is URL.Type: URL(fileURLWithPath: "/")
    case is Decimal.Type: Decimal(0)
    default: nil
    }
    if let simple, let value = simple as? T { return value }
    guard depth < 32 else { throw ProbeFailure(description: "nested deeper than 32 levels") }
    return try T(from: ProbeDecoder(recorder: nil, depth: depth + 1))
}

private struct ProbeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let recorder: Recorder?
    let depth: Int
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool { false }

    private func note<T>(_ type: T.Type, _ key: Key) { recorder?.note(key.stringValue, kind(of: type)) }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { note(type, key); return false }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { note(type, key); return "" }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { note(type, key); return 0 }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { note(type, key); return 0 }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { note(type, key); return 0 }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { note(type, key); return 0 }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { note(type, key); return 0 }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { note(type, key); return 0 }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { note(type, key); return 0 }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { note(type, key); return 0 }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { note(type, key); return 0 }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { note(type, key); return 0 }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { note(type, key); return 0 }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { note(type, key); return 0 }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        note(type, key)
        return try emptyValue(type, depth: depth)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        recorder?.note(key.stringValue, .json)
        return KeyedDecodingContainer(ProbeKeyedContainer<NestedKey>(recorder: nil, depth: depth + 1))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        recorder?.note(key.stringValue, .json)
        return ProbeUnkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { ProbeDecoder(recorder: nil, depth: depth + 1) }
    func superDecoder(forKey key: Key) throws -> any Decoder {
        recorder?.note(key.stringValue, .json)
        return ProbeDecoder(recorder: nil, depth: depth + 1)
    }
}

/// An empty array.
private struct ProbeUnkeyedContainer: UnkeyedDecodingContainer {
    var codingPath: [any CodingKey] { [] }
    var count: Int? { 0 }
    var isAtEnd: Bool { true }
    var currentIndex: Int { 0 }

    private func end() -> ProbeFailure { ProbeFailure(description: "read past the end of an empty array") }

    mutating func decodeNil() throws -> Bool { throw end() }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { throw end() }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> { throw end() }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { throw end() }
    mutating func superDecoder() throws -> any Decoder { throw end() }
}

private struct ProbeSingleValueContainer: SingleValueDecodingContainer {
    let depth: Int
    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool { false }
    func decode(_ type: Bool.Type) throws -> Bool { false }
    func decode(_ type: String.Type) throws -> String { "" }
    func decode(_ type: Double.Type) throws -> Double { 0 }
    func decode(_ type: Float.Type) throws -> Float { 0 }
    func decode(_ type: Int.Type) throws -> Int { 0 }
    func decode(_ type: Int8.Type) throws -> Int8 { 0 }
    func decode(_ type: Int16.Type) throws -> Int16 { 0 }
    func decode(_ type: Int32.Type) throws -> Int32 { 0 }
    func decode(_ type: Int64.Type) throws -> Int64 { 0 }
    func decode(_ type: UInt.Type) throws -> UInt { 0 }
    func decode(_ type: UInt8.Type) throws -> UInt8 { 0 }
    func decode(_ type: UInt16.Type) throws -> UInt16 { 0 }
    func decode(_ type: UInt32.Type) throws -> UInt32 { 0 }
    func decode(_ type: UInt64.Type) throws -> UInt64 { 0 }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try emptyValue(type, depth: depth) }
}
