import Foundation
import LLVSCore
import LLVSSupport
import LLVSTesting
import Testing
@testable import LLVSMap

/// `conformance/formats/primitives.json` (SPEC.md section 5, read by LLVSCore's
/// `ByteReader`) and `map-nodes.json` (section 6): every valid case decodes to its fields and
/// encodes to its bytes, every invalid one is refused — with its error class, where the
/// reader's error tells classes apart.
@Suite struct FormatConformanceTests {
    @Test func primitives() throws {
        let (valid, invalid) = try ConformanceVectors.formatCases("primitives.json")
        for vector in valid {
            let value = try #require(vector.fields["value"] as? String)
            var reader = ByteReader(vector.bytes)
            var writer = ByteWriter()
            if vector.fields["kind"] as? String == "varint" {
                let number = try #require(UInt64(value))
                #expect(try reader.readVarint() == number, "\(vector.name)")
                writer.appendVarint(number)
            } else {
                #expect(try reader.readString() == value, "\(vector.name)")
                writer.appendString(value)
            }
            #expect(reader.isAtEnd)
            #expect(Data(writer.bytes) == vector.bytes, "\(vector.name)")
        }
        #expect(!invalid.isEmpty)
        for vector in invalid {
            var reader = ByteReader(vector.bytes)
            do {
                if vector.fields["kind"] as? String == "varint" { _ = try reader.readVarint() } else { _ = try reader.readString() }
                Issue.record("accepted: \(vector.name)")
            } catch {
                let errorClass: String
                switch error {
                case .truncated: errorClass = "truncated"
                case .malformedVarint: errorClass = "malformedVarint"
                case .invalidUTF8: errorClass = "invalidUTF8"
                }
                #expect(errorClass == vector.errorClass, "\(vector.name)")
            }
        }
    }

    @Test func mapNodes() throws {
        let (valid, invalid) = try ConformanceVectors.formatCases("map-nodes.json")
        for vector in valid {
            let (name, fields) = (vector.name, vector.fields)
            let (node, hash) = try MapNode.decode(vector.bytes)
            #expect(hash.hex == fields["hash"] as? String, "\(name)")
            let (encoded, encodedHash) = node.encoded()
            #expect(encoded == vector.bytes && encodedHash == hash, "\(name)")
            switch node {
            case .leaf(let entries):
                let expected = try #require(fields["entries"] as? [[String]])
                #expect(entries.map { [$0.reference.valueId.rawValue, $0.reference.storedVersionId.rawValue] } == expected, "\(name)")
            case let .interior(bitmap, children):
                #expect(Int(bitmap) == fields["bitmap"] as? Int, "\(name)")
                let expected = try #require(fields["children"] as? [[String: Any]])
                #expect(children.map(\.hash.hex) == expected.map { $0["hash"] as? String ?? "" }, "\(name)")
                #expect(children.map(\.count) == expected.map { $0["count"] as? Int ?? -1 }, "\(name)")
                #expect(children.map(\.location.rawValue) == expected.map { $0["location"] as? String ?? "" }, "\(name)")
            }
        }
        #expect(!invalid.isEmpty)
        for vector in invalid {
            #expect(throws: MapError.self, "\(vector.name)") { try MapNode.decode(vector.bytes) }
        }
    }
}
