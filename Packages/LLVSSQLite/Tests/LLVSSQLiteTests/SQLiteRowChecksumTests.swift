import Crypto
import Foundation
@testable import LLVSSQLite
import LLVSTesting
import PropertyBased
import Testing

/// The item checksum computed from raw bytes (the insert path) is SPEC.md section 14's: the
/// first 8 bytes of SHA-256 over `u8 zone, string version, string key, data`.
@Suite struct SQLiteRowChecksumTests {
    /// Byte strings of 0–300 bytes: lengths on both sides of a one-byte varint (127/128).
    static let bytes = Gen.int(in: 0...255).map { UInt8($0) }.array(of: 0...300)

    /// The checksum as SPEC.md words it, built independently of the code under test.
    static func specified(zone: Int, version: [UInt8], key: [UInt8], data: [UInt8]) -> Data {
        func varint(_ value: Int) -> [UInt8] {
            var value = UInt64(value), bytes: [UInt8] = []
            repeat {
                bytes.append(UInt8(value & 0x7F) | (value >= 0x80 ? 0x80 : 0))
                value >>= 7
            } while value > 0
            return bytes
        }
        let message = [UInt8(zone)] + varint(version.count) + version + varint(key.count) + key + data
        return Data(SHA256.hash(data: message).prefix(8))
    }

    @Test func itemChecksumsFollowTheSpecification() async {
        await propertyCheck(count: 300, input: Gen.int(in: 0...1), Self.bytes, Self.bytes, Self.bytes) { zone, version, key, data in
            let expected = Self.specified(zone: zone, version: version, key: key, data: data)
            #expect(SQLiteRowChecksum.item(zone: zone, version: Data(version), key: Data(key), data: Data(data)) == expected)
            var raw = version.withUnsafeBytes { version in
                key.withUnsafeBytes { key in data.withUnsafeBytes { data in SQLiteRowChecksum.item(zone: zone, version: version, key: key, data: data) } }
            }
            #expect(withUnsafeBytes(of: &raw) { Data($0) } == expected)
        }
    }

    /// A fixed vector, so a change of the formula cannot pass by changing both sides alike.
    @Test func aKnownItemHasItsKnownChecksum() {
        let checksum = SQLiteRowChecksum.item(zone: 1, version: Data("V".utf8), key: Data("node".utf8), data: Data("n".utf8))
        #expect(checksum == Self.specified(zone: 1, version: Array("V".utf8), key: Array("node".utf8), data: Array("n".utf8)))
        #expect(checksum.map { String(format: "%02x", $0) }.joined() == "0eb88120ff149c00")
    }

    /// `conformance/formats/sqlite-checksums.json` (SPEC.md section 14): each item's and
    /// record's checksum, both ways of computing it.
    @Test func conformanceVectors() throws {
        for vector in try ConformanceVectors.formatCases("sqlite-checksums.json").valid {
            let fields = vector.fields
            let expected = try ConformanceVectors.bytes(try #require(fields["checksum"] as? String))
            if fields["kind"] as? String == "item" {
                let zone = try #require(fields["zone"] as? Int)
                let version = Data(try #require(fields["version"] as? String).utf8)
                let key = Data(try #require(fields["key"] as? String).utf8)
                let data = try ConformanceVectors.bytes(try #require(fields["data"] as? String))
                #expect(SQLiteRowChecksum.item(zone: zone, version: version, key: key, data: data) == expected, "\(vector.name)")
                let fast = version.withUnsafeBytes { version in
                    key.withUnsafeBytes { key in data.withUnsafeBytes { data in SQLiteRowChecksum.item(zone: zone, version: version, key: key, data: data) } }
                }
                #expect(withUnsafeBytes(of: fast) { Data($0) } == expected, "\(vector.name)")
            } else {
                let record = try ConformanceVectors.bytes(try #require(fields["record"] as? String))
                #expect(SQLiteRowChecksum.record(record) == expected, "\(vector.name)")
            }
        }
    }
}
