import Foundation
import LLVSCore
import LLVSMerge

/// A dictionary-backed merge context: version records, and the value references visible at
/// each version.
struct TestContext: MergeContext {
    var versions: [Version.ID: Version] = [:]
    var references: [Version.ID: [Value.ID: Value.Reference]] = [:]
    /// Stored data by reference; a reference without an entry reads as its version's id.
    var data: [Value.Reference: Data] = [:]

    mutating func addVersion(_ id: Version.ID, timestamp: Double) {
        versions[id] = Version(id: id, timestamp: timestamp)
    }

    func value(_ valueId: Value.ID, at versionId: Version.ID) throws -> Value? {
        try valueReference(valueId, at: versionId).map {
            Value(id: $0.valueId, data: data[$0] ?? Data($0.storedVersionId.rawValue.utf8), storedVersionId: $0.storedVersionId)
        }
    }

    func valueReference(_ valueId: Value.ID, at versionId: Version.ID) throws -> Value.Reference? {
        references[versionId]?[valueId]
    }

    func version(identifiedBy versionId: Version.ID) throws -> Version? {
        versions[versionId]
    }
}

func ref(_ valueId: Value.ID, _ version: Version.ID) -> Value.Reference {
    Value.Reference(valueId: valueId, storedVersionId: version)
}
