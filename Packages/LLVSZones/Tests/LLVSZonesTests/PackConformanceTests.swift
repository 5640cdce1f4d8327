import Foundation
import LLVSCore
import LLVSTesting
import Testing
@testable import LLVSZones

/// `conformance/formats/packs.json` (SPEC.md section 7): every valid pack decodes to its
/// version and items and encodes to its bytes; every invalid one is refused.
@Suite struct PackConformanceTests {
    @Test func packs() throws {
        let (valid, invalid) = try ConformanceVectors.formatCases("packs.json")
        for vector in valid {
            let version = Version.ID(rawValue: try #require(vector.fields["version"] as? String))
            let items = try #require(vector.fields["items"] as? [String: String]).map { (key: ZoneReference.Key($0.key), data: try ConformanceVectors.bytes($0.value)) }
            let pack = try PackFile(decoding: vector.bytes, path: vector.name)
            #expect(pack.version == version && pack.entries.count == items.count, "\(vector.name)")
            for item in items {
                #expect(pack.data(for: item.key) == item.data, "\(vector.name): \(item.key)")
            }
            #expect(PackFile.encode(version: version, items: items) == vector.bytes, "\(vector.name)")
        }
        #expect(!invalid.isEmpty)
        for vector in invalid {
            #expect(throws: ZoneError.self, "\(vector.name)") { try PackFile(decoding: vector.bytes, path: vector.name) }
        }
    }
}
