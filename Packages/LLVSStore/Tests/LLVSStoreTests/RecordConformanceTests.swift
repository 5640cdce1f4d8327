import Foundation
import LLVSCore
import LLVSTesting
import Testing
@testable import LLVSStore

/// `conformance/formats/version-records.json` (SPEC.md section 8): every valid record
/// decodes to its fields and encodes to its bytes; every invalid one is refused.
@Suite struct RecordConformanceTests {
    @Test func versionRecords() throws {
        let (valid, invalid) = try ConformanceVectors.formatCases("version-records.json")
        for vector in valid {
            let record = try VersionRecord.decode(vector.bytes)
            let fields = vector.fields
            #expect(record.version.id.rawValue == fields["identifier"] as? String, "\(vector.name)")
            #expect(record.version.predecessorIds.map(\.rawValue) == fields["predecessors"] as? [String], "\(vector.name)")
            let bits = try ConformanceVectors.bytes(try #require(fields["timestampBits"] as? String))
            #expect(withUnsafeBytes(of: record.version.timestamp.bitPattern.littleEndian) { Data($0) } == bits, "\(vector.name)")
            #expect(record.version.valueDataSize.map(Int.init) == fields["valueDataSize"] as? Int, "\(vector.name)")
            let metadata = try #require(fields["metadata"] as? [String: String])
            #expect(Dictionary(uniqueKeysWithValues: try metadata.map { (Version.MetadataKey(rawValue: $0.key), try ConformanceVectors.bytes($0.value)) })
                    == record.version.metadata.mapValues(\.data), "\(vector.name)")
            let root = fields["root"] as? [String: Any]
            #expect(record.root?.hash.hex == root?["hash"] as? String, "\(vector.name)")
            #expect(record.root?.location.rawValue == root?["location"] as? String, "\(vector.name)")
            #expect(record.root?.count == root?["count"] as? Int, "\(vector.name)")
            #expect(record.encoded() == vector.bytes, "\(vector.name)")
        }
        #expect(!invalid.isEmpty)
        for vector in invalid {
            #expect(throws: StoreError.self, "\(vector.name)") { try VersionRecord.decode(vector.bytes) }
        }
    }
}
