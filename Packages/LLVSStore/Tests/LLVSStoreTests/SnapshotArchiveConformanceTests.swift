import Foundation
import LLVSCore
import LLVSSQLite
import LLVSTesting
import LLVSZones
import Testing
@testable import LLVSStore

/// `conformance/formats/archives.json` (SPEC.md section 10, file storage) and
/// `sqlite-archives.json` (section 14, SQLite storage, schemas v1 to v3): each valid archive
/// restores through `Store.restoreSnapshot` into an empty store of its backend, which then
/// holds its version records (in order) and values; each invalid one — bad framing or
/// checksums, paths outside the store, a database SQLite finds damaged or of an unknown
/// schema, a row failing its checksum, version records that do not decode or cannot join
/// the store — is refused and leaves the store empty.
@Suite struct SnapshotArchiveConformanceTests {
    @Test(arguments: [("archives.json", "file"), ("sqlite-archives.json", "sqlite")])
    func archives(file: String, backend: String) throws {
        func storage() -> any SnapshotCapable { backend == "file" ? FileStorage() : SQLiteStorage() }
        func restore(_ archive: Data, into directory: TemporaryDirectory) throws -> Store.SnapshotContents {
            let store = try Store(rootDirectoryURL: directory.url, storage: storage())
            defer { try? store.close() }
            var source: Data? = archive
            return try store.restoreSnapshot { defer { source = nil }; return source }
        }
        func records(in directory: TemporaryDirectory) throws -> [Data] {
            let zones = try storage().makeZones(rootDirectoryURL: directory.url)
            defer { try? zones.close?() }
            return try zones.versions.records(after: .start).records
        }
        let (valid, invalid) = try ConformanceVectors.formatCases(file)
        for vector in valid {
            let directory = try TemporaryDirectory()
            let restored = try restore(vector.bytes, into: directory)
            let expected = try (try #require(vector.fields["records"] as? [String])).map(ConformanceVectors.bytes)
            #expect(try records(in: directory) == expected && restored.versionCount == expected.count, "\(vector.name)")
            let zones = try storage().makeZones(rootDirectoryURL: directory.url)
            for value in try #require(vector.fields["values"] as? [[String: String]]) {
                let reference = ZoneReference(key: .init(value["key"] ?? ""), version: .init(value["version"] ?? ""))
                #expect(try zones.values.data(for: [reference]) == [try ConformanceVectors.bytes(value["data"] ?? "")], "\(vector.name): \(reference)")
            }
            try zones.close?()
        }
        #expect(!invalid.isEmpty)
        for vector in invalid {
            let directory = try TemporaryDirectory()
            #expect(throws: StoreError.self, "\(vector.name)") { try restore(vector.bytes, into: directory) }
            #expect(try records(in: directory).isEmpty, "\(vector.name)")
        }
    }
}
