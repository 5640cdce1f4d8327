import Foundation
import PropertyBased
import Testing
import LLVSCore

/// Property tests: every core type survives a canonical encode/decode round trip with all of
/// its fields, canonical encoding is a fixed point, and identifier order is byte order.
///
/// Replay a failure by adding the `.fixedSeed("…")` trait the failure message prints.
@Suite struct CodablePropertyTests {
    static let cases = 1_000

    /// Strings over a range with control characters, `/`, `.`, NUL and combining marks.
    static let idString = Gen.unicodeScalar(in: "\u{0}"..."\u{36F}").map(Character.init).string(of: 0...8)
    static let data = Gen<UInt8>.value(in: 0...255).array(of: 0...12).map { Data($0) }
    static let timestamp = Gen.double(in: -1e9...1e10)

    static let value = zip(idString, data, Gen.bool, idString).map { id, data, stored, version in
        stored ? Value(id: Value.ID(id), data: data, storedVersionId: Version.ID(version))
            : Value(id: Value.ID(id), data: data)
    }

    static let change = zip(Gen.int(in: 0...4), value, idString).map { kind, value, other -> Value.Change in
        switch kind {
        case 0: return .insert(value)
        case 1: return .update(value)
        case 2: return .remove(value.id)
        case 3: return .preserve(.init(valueId: value.id, storedVersionId: Version.ID(other)))
        default: return .preserveRemoval(value.id)
        }
    }

    static let version = zip(idString, Gen.int(in: 0...2), idString, idString, timestamp,
                             Gen<Int64>.value(in: -1...1_000_000), idString, data)
        .map { id, predecessorCount, first, second, timestamp, size, key, metadata -> Version in
            let predecessors: Version.Predecessors? = switch predecessorCount {
            case 0: nil
            case 1: .init(idOfFirst: Version.ID("p" + first))
            default: .init(idOfFirst: Version.ID("p" + first), idOfSecond: Version.ID("q" + second))
            }
            return Version(
                id: Version.ID("v" + id), predecessors: predecessors, timestamp: timestamp,
                valueDataSize: size < 0 ? nil : size,
                metadata: key.isEmpty ? [:] : [Version.MetadataKey(rawValue: key): .init(data: metadata)])
        }

    static func canonicalRoundTrip<T: Codable>(_ value: T) throws -> (decoded: T, stable: Bool) {
        let first = try CanonicalJSON.encode(value)
        let decoded = try CanonicalJSON.decode(T.self, from: first)
        return (decoded, try CanonicalJSON.encode(decoded) == first)
    }

    @Test func valuesRoundTrip() async {
        await propertyCheck(count: Self.cases, input: Self.value) { value in
            let (decoded, stable) = try Self.canonicalRoundTrip(value)
            #expect(decoded == value)
            #expect(decoded.reference == value.reference)
            #expect(stable)
        }
    }

    @Test func changesRoundTrip() async {
        await propertyCheck(count: Self.cases, input: Self.change) { change in
            let (decoded, stable) = try Self.canonicalRoundTrip(change)
            #expect(decoded == change)
            #expect(stable)
        }
    }

    @Test func versionsRoundTripWithEveryField() async {
        await propertyCheck(count: Self.cases, input: Self.version) { version in
            let (decoded, stable) = try Self.canonicalRoundTrip(version)
            #expect(decoded.id == version.id)
            #expect(decoded.predecessors == version.predecessors)
            #expect(decoded.timestamp == version.timestamp)
            #expect(decoded.valueDataSize == version.valueDataSize)
            #expect(decoded.metadata == version.metadata)
            #expect(stable)
        }
    }

    @Test func identifierOrderIsByteOrderAndTotal() async {
        await propertyCheck(count: Self.cases, input: Self.idString, Self.idString) { a, b in
            let x = Value.ID(a), y = Value.ID(b)
            let bytesBefore = Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
            #expect((x < y) == bytesBefore)
            #expect((x == y) == (Array(a.utf8) == Array(b.utf8)))
            // Exactly one of <, ==, > holds.
            #expect([x < y, x == y, y < x].filter { $0 }.count == 1)
        }
    }
}
