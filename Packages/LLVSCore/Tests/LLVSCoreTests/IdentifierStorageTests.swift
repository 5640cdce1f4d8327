import Foundation
import LLVSSupport
import PropertyBased
import Testing
import LLVSCore

/// Identifiers held as ``IdentifierStorage`` (a UUID string as its 128 bits) behave exactly
/// as their bytes: equality, order, hashing, the string and the binary encoding.
///
/// Replay a failure by adding the `.fixedSeed("…")` trait the failure message prints.
@Suite struct IdentifierStorageTests {
    static let hexDigits = Array("0123456789abcdefABCDEF".utf8)

    /// Strings near the UUID shape: 32 digits upper, lower, mixed or digits only, with the
    /// dashes, sometimes one byte changed (a dash, a non-hex letter, a NUL, a multi-byte
    /// character) or one byte more or fewer; and short strings.
    static let nearUUID = zip(Gen<UInt8>.value(in: 0...255).array(of: 32), Gen.int(in: 0...3),
                              Gen.int(in: 0...8), Gen.int(in: 0...36), Gen.int(in: 0...7))
        .map { randomBytes, caseMode, damage, position, short -> String in
            var bytes: [UInt8] = []
            for (index, random) in randomBytes.enumerated() {
                if [8, 12, 16, 20].contains(index) { bytes.append(UInt8(ascii: "-")) }
                let nibble = Int(random & 0x0F)
                switch caseMode {
                case 0: bytes.append(Array("0123456789ABCDEF".utf8)[nibble])
                case 1: bytes.append(Array("0123456789abcdef".utf8)[nibble])
                case 2: bytes.append(Array("0123456789".utf8)[nibble % 10])
                default: bytes.append(hexDigits[Int(random) % hexDigits.count])
                }
            }
            let at = min(position, bytes.count - 1)
            switch damage {
            case 1: bytes[at] = UInt8(ascii: "-")
            case 2: bytes[at] = UInt8(ascii: "g")
            case 3: bytes[at] = 0
            case 4: bytes.removeLast()
            case 5: bytes.append(UInt8(ascii: "0"))
            case 6: return String(decoding: bytes.prefix(short), as: UTF8.self)
            case 7: return String(decoding: bytes.prefix(at), as: UTF8.self) + "\u{E9}" + String(decoding: bytes.dropFirst(at + 1), as: UTF8.self)
            default: break
            }
            return String(decoding: bytes, as: UTF8.self)
        }

    static func lexicographicOrder(_ a: String, _ b: String) -> Int {
        for (x, y) in zip(a.utf8, b.utf8) where x != y { return x < y ? -1 : 1 }
        return a.utf8.count - b.utf8.count
    }

    @Test func behavesAsItsBytes() async {
        await propertyCheck(count: 2_000, input: zip(Self.nearUUID, Self.nearUUID)) { first, second in
            for string in [first, second] {
                let id = Version.ID(string)
                #expect(Array(id.rawValue.utf8) == Array(string.utf8))
                #expect(id.withUTF8 { Array($0) } == Array(string.utf8))
                #expect(id.utf8Count == string.utf8.count)
                #expect(Array(Value.ID(string).description.utf8) == Array(string.utf8))
            }
            let a = Version.ID(first), b = Version.ID(second)
            let order = Self.lexicographicOrder(first, second)
            #expect((a == b) == (order == 0))
            #expect((a < b) == (order < 0))
            #expect((b < a) == (order > 0))
            if a == b { #expect(a.hashValue == b.hashValue) }
        }
    }

    @Test func equalBytesAreEqualWhateverTheirOrigin() async {
        await propertyCheck(count: 1_000, input: Self.nearUUID) { string in
            let fromString = Value.ID(string)
            let decoded = Array(string.utf8).withUnsafeBytes { Value.ID(validatingUTF8: $0) }
            #expect(decoded == fromString)
            #expect(decoded?.hashValue == fromString.hashValue)
            var copy = Value.ID("placeholder")
            copy.rawValue = string
            #expect(copy == fromString)
            #expect(Set([fromString, decoded, copy].compactMap { $0 }).count == 1)
        }
    }

    static func encodedGenerically<Identifier: StringIdentifier>(_ identifier: Identifier) -> [UInt8] {
        var writer = ByteWriter()
        writer.appendIdentifier(identifier)
        return writer.bytes
    }

    @Test func binaryEncodingIsTheStringEncoding() async {
        await propertyCheck(count: 1_000, input: Self.nearUUID) { string in
            var asString = ByteWriter(), asIdentifier = ByteWriter()
            asString.appendString(string)
            asIdentifier.appendIdentifier(Version.ID(string))
            #expect(asString.bytes == asIdentifier.bytes)
            // The generic path (through `withUTF8`) writes the same bytes as the compact one
            // (a UUID formatted straight into the buffer).
            #expect(Self.encodedGenerically(Value.ID(string)) == asString.bytes)
            var reader = ByteReader(asIdentifier.data)
            let read = try reader.readIdentifier(Version.ID.self)
            #expect(read == Version.ID(string))
            #expect(reader.isAtEnd)
        }
    }

    @Test func uuidsOfEitherCaseAreDistinctAndOrderByBytes() {
        let upper = Version.ID("0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9")
        let lower = Version.ID("0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9")
        let digits = Version.ID("01234567-8901-2345-6789-012345678901")
        #expect(upper != lower)
        #expect(upper < lower) // "A" (0x41) before "a" (0x61)
        #expect(digits < upper)
        #expect(Version.ID("0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9") == upper)
        #expect(Version.ID("0A1B2C3D-4E5F-6071-8293-a4b5c6d7e8f9").rawValue == "0A1B2C3D-4E5F-6071-8293-a4b5c6d7e8f9")
        let fresh = Version.ID()
        #expect(UUID(uuidString: fresh.rawValue)?.uuidString == fresh.rawValue)
    }

    @Test func invalidUTF8IsRefused() {
        #expect([UInt8]([0xC3]).withUnsafeBytes { Version.ID(validatingUTF8: $0) } == nil)
        var writer = ByteWriter()
        writer.appendLengthPrefixed([0xFF, 0xFE])
        var reader = ByteReader(writer.data)
        #expect(throws: ByteReader.Error.invalidUTF8(offset: 0)) { try reader.readIdentifier(Value.ID.self) }
    }
}
