import Foundation
import LLVSCore
import LLVSTesting
import Testing
@testable import LLVSZones

/// `conformance/formats/archives.json` (SPEC.md section 10): each valid archive restores
/// into an empty file store, which then holds its version records and values; each invalid
/// one is refused and the store stays empty.
@Suite struct ArchiveConformanceTests {
    @Test func archives() throws {
        let (valid, invalid) = try ConformanceVectors.formatCases("archives.json")
        for vector in valid {
            let directory = try TemporaryDirectory()
            var source: Data? = vector.bytes
            let summary = try FileStorage().restoreSnapshot(intoStoreAt: directory.url) { defer { source = nil }; return source }
            let zones = try FileStorage().makeZones(rootDirectoryURL: directory.url)
            let records = try zones.versions.records(after: .start).records
            let expected = try (try #require(vector.fields["records"] as? [String])).map(ConformanceVectors.bytes)
            #expect(records == expected && summary.versionRecordCount == expected.count, "\(vector.name)")
            for value in try #require(vector.fields["values"] as? [[String: String]]) {
                let reference = ZoneReference(key: .init(value["key"] ?? ""), version: .init(value["version"] ?? ""))
                #expect(try zones.values.data(for: [reference]) == [try ConformanceVectors.bytes(value["data"] ?? "")], "\(vector.name): \(reference)")
            }
        }
        #expect(!invalid.isEmpty)
        for vector in invalid {
            let directory = try TemporaryDirectory()
            var source: Data? = vector.bytes
            #expect(throws: ZoneError.self, "\(vector.name)") {
                try FileStorage().restoreSnapshot(intoStoreAt: directory.url) { defer { source = nil }; return source }
            }
            #expect(try FileStorage().makeZones(rootDirectoryURL: directory.url).versions.records(after: .start).records.isEmpty, "\(vector.name)")
        }
    }
}
