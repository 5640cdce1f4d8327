import Foundation
import LLVSStoreTesting
import LLVSTesting
@testable import LLVSStore

/// The storage backends every parameterized store test runs against: file, memory and
/// SQLite.
typealias Backend = StoreReplica.Backend

/// A store in a fresh temporary directory, kept alive with the directory.
struct TestStore {
    let directory: TemporaryDirectory
    let storage: any Storage
    let store: Store

    init(_ backend: Backend = .file) throws {
        directory = try TemporaryDirectory()
        storage = backend.makeStorage()
        store = try Store(rootDirectoryURL: directory.url, storage: storage)
    }

    /// Opens the same store again (for memory storage, through the same instance).
    func reopened() throws -> Store {
        try Store(rootDirectoryURL: directory.url, storage: storage)
    }
}

func value(_ id: String, _ text: String) -> Value {
    Value(idString: id, data: Data(text.utf8))
}

extension Store {
    /// The text of a value at a version, or nil.
    func text(_ id: String, at version: Version.ID) throws -> String? {
        try value(idString: id, at: version).map { String(decoding: $0.data, as: UTF8.self) }
    }

    /// Every value at a version as text.
    func texts(at version: Version.ID) throws -> [String: String] {
        var result: [String: String] = [:]
        for reference in try valueReferences(at: version) {
            result[reference.valueId.rawValue] = try text(reference.valueId.rawValue, at: version)
        }
        return result
    }
}

/// An arbiter that resolves nothing: merges with conflicts must fail with it.
struct IdleArbiter: MergeArbiter {
    func changes(toResolve merge: Merge, in store: AnyMergeContext) throws -> [Value.Change] { [] }
}

/// An arbiter that records the merges it is asked to resolve, then defers to another.
final class RecordingArbiter: MergeArbiter, @unchecked Sendable {
    private(set) var merges: [Merge] = []
    /// Per merge, the texts of "k" and "j" at its ancestor (stored or virtual), read through the context.
    private(set) var ancestorTexts: [[String: String]] = []
    let base = MostRecentBranchFavoringArbiter()

    func changes(toResolve merge: Merge, in store: Store) throws -> [Value.Change] {
        merges.append(merge)
        var texts: [String: String] = [:]
        if let ancestor = merge.ancestorVersionId {
            for key in ["k", "j"] {
                if let value = try store.value(Value.ID(key), at: ancestor) { texts[key] = String(decoding: value.data, as: UTF8.self) }
            }
        }
        ancestorTexts.append(texts)
        return try base.changes(toResolve: merge, in: store)
    }
}
