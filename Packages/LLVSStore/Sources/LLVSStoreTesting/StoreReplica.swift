import Foundation
import LLVSCore
import LLVSSQLite
import LLVSStore
import LLVSTesting
import LLVSZones

/// A `Store` in a temporary directory, driven by the convergence harness
/// (`ConvergenceSimulation` of LLVSTesting) as one replica among several.
///
/// Replicas exchange versions the way an exchange does: the receiver adds each missing
/// version, oldest first, with the sender's `valueChanges(madeInVersionIdentifiedBy:)`.
public final class StoreReplica: FuzzReplica {
    /// The zone backends a replica can use.
    public enum Backend: String, CaseIterable, Sendable, CustomStringConvertible {
        /// `MemoryStorage`: zones in memory, kept by the storage object.
        case memory
        /// `FileStorage`: zones in files under the store directory.
        case file
        /// `SQLiteStorage`: zones and version log in one SQLite database.
        case sqlite

        public var description: String { rawValue }

        /// A new storage object of this backend.
        public func makeStorage() -> any Storage {
            switch self {
            case .memory: return MemoryStorage()
            case .file: return FileStorage()
            case .sqlite: return SQLiteStorage()
            }
        }
    }

    /// The backend.
    public let backend: Backend
    /// The store.
    public let store: Store
    /// The store's directory, removed when the last replica opened on it is released.
    public let directory: TemporaryDirectory
    let storage: any Storage
    /// How many times this replica's merges have called their arbiter.
    public private(set) var arbiterCalls = 0

    /// A new, empty replica.
    ///
    /// - Throws: When the directory or the store cannot be created.
    public convenience init(backend: Backend) throws {
        try self.init(backend: backend, directory: TemporaryDirectory(prefix: "llvs-fuzz"), storage: backend.makeStorage())
    }

    init(backend: Backend, directory: TemporaryDirectory, storage: any Storage) throws {
        self.backend = backend
        self.directory = directory
        self.storage = storage
        self.store = try Store(rootDirectoryURL: directory.url, storage: storage)
    }

    public func versionsInTopologicalOrder() throws -> [Version] {
        store.queryHistory { Array($0) }
    }

    public func versions(addedAfter count: Int) throws -> [Version] {
        store.queryHistory { history in
            history.versionIdentifiers(addedAt: count..<Int.max).compactMap { history.version(identifiedBy: $0) }
        }
    }

    public func headIdentifiers() throws -> Set<Version.ID> {
        store.queryHistory { $0.headIdentifiers }
    }

    public func mergeBases(of first: Version.ID, and second: Version.ID) throws -> [Version.ID] {
        try store.queryHistory { try $0.mergeBases(first, second) }
    }

    public func values(at version: Version.ID) throws -> [Value.ID: ReferenceModel.StoredValue] {
        try Self.values(of: store, at: version)
    }

    /// Every value of `store` at `version`, with the version that stored its data.
    ///
    /// - Throws: ``StoreReplicaError/missingData(_:)`` when a listed reference has no data,
    ///   or the store's errors.
    public static func values(of store: Store, at version: Version.ID) throws -> [Value.ID: ReferenceModel.StoredValue] {
        var result: [Value.ID: ReferenceModel.StoredValue] = [:]
        for reference in try store.valueReferences(at: version) {
            guard let value = try store.value(storedAt: reference) else {
                throw StoreReplicaError.missingData(reference)
            }
            result[reference.valueId] = .init(data: value.data, storedBy: reference.storedVersionId)
        }
        return result
    }

    public func add(_ version: Version, changes: [Value.Change]) throws {
        try store.addVersion(version, storing: changes)
    }

    public func merge(_ first: Version.ID, with second: Version.ID, rule: ReferenceModel.ArbiterRule) throws -> Version.ID {
        try merge(first, with: second, rule: rule, metadata: [:])
    }

    /// Merges with the arbiter of `rule`, giving the merge `metadata` (the harness's
    /// replicas pass none; a faulty replica passes its own).
    ///
    /// - Throws: The store's merge errors.
    public func merge(_ first: Version.ID, with second: Version.ID, rule: ReferenceModel.ArbiterRule,
                      metadata: Version.Metadata) throws -> Version.ID {
        try store.merge(version: first, with: second, resolvingWith: counting(rule.arbiter), metadata: metadata).id
    }

    public func mergeHeads(into version: Version.ID, rule: ReferenceModel.ArbiterRule) throws -> Version.ID? {
        try mergeHeads(into: version, rule: rule, metadata: [:])
    }

    /// Merges every head into `version` with the arbiter of `rule`, giving each merge
    /// `metadata`.
    ///
    /// - Throws: The store's merge errors.
    public func mergeHeads(into version: Version.ID, rule: ReferenceModel.ArbiterRule, metadata: Version.Metadata) throws -> Version.ID? {
        try store.mergeHeads(into: version, resolvingWith: counting(rule.arbiter), metadata: metadata)?.id
    }

    /// The arbiter calls so far (the harness bounds them per merge).
    public var arbiterCallCount: Int? { arbiterCalls }

    /// `arbiter`, counting its calls in ``arbiterCalls``.
    private func counting<Arbiter: MergeArbiter>(_ arbiter: Arbiter) -> any MergeArbiter {
        CountingArbiter(base: arbiter) { [unowned self] in arbiterCalls += 1 }
    }

    public func valueChanges(madeIn version: Version.ID) throws -> [Value.Change] {
        try store.valueChanges(madeInVersionIdentifiedBy: version)
    }

    public func valueChanges(between first: Version.ID, and second: Version.ID) throws -> [Value.Change] {
        try store.valueChanges(madeBetween: first, and: second)
    }

    public func receive(from sender: StoreReplica, upTo version: Version.ID?) throws {
        let candidates = try sender.versionsInTopologicalOrder().reversed().filter { store.version(identifiedBy: $0.id) == nil }
        for candidate in candidates {
            if let version, try !sender.store.queryHistory({ try $0.isAncestor(candidate.id, of: version) }), candidate.id != version {
                continue
            }
            try store.addVersion(candidate, storing: try sender.store.valueChanges(madeInVersionIdentifiedBy: candidate.id))
        }
    }

    public func reopened() throws -> StoreReplica {
        try StoreReplica(backend: backend, directory: directory, storage: storage)
    }

    public func makeEmptyReplica() throws -> StoreReplica {
        try StoreReplica(backend: backend)
    }
}

/// A store broke an invariant the harness relies on to read it.
public enum StoreReplicaError: Error, CustomStringConvertible {
    /// A version's map lists a reference whose data the store cannot find.
    case missingData(Value.Reference)

    public var description: String {
        switch self {
        case .missingData(let reference):
            return "no data stored for \(reference.valueId) at \(reference.storedVersionId), which a version's map lists"
        }
    }
}

extension ReferenceModel.ArbiterRule {
    /// The arbiter whose rule this is.
    public var arbiter: any MergeArbiter {
        switch self {
        case .mostRecentChange: return MostRecentChangeFavoringArbiter()
        case .mostRecentBranch: return MostRecentBranchFavoringArbiter()
        case .favorFirst: return BranchFavoringArbiter(favoring: .first)
        case .favorSecond: return BranchFavoringArbiter(favoring: .second)
        case .concatenate: return ConcatenatingArbiter()
        }
    }
}

/// An arbiter that writes new data: every conflict gets both sides' data joined by
/// `ReferenceModel.concatenation(_:_:)`, stored by the merge (an arbiter such as a
/// CRDT's join, which writes a value neither side held).
public struct ConcatenatingArbiter: MergeArbiter, Sendable {
    /// Creates the arbiter.
    public init() {}

    /// A new value for every conflicting fork.
    ///
    /// - Throws: What the context throws reading a side's value.
    public func changes(toResolve merge: Merge, in store: AnyMergeContext) throws -> [Value.Change] {
        try merge.conflictingForks.map { valueId, _ in
            let first = try store.value(valueId, at: merge.versions.first.id)?.data
            let second = try store.value(valueId, at: merge.versions.second.id)?.data
            return .update(Value(id: valueId, data: ReferenceModel.concatenation(first, second)))
        }
    }
}

/// An arbiter that reports each call before passing it on.
struct CountingArbiter<Base: MergeArbiter>: MergeArbiter {
    typealias Context = Base.Context
    let base: Base
    let called: () -> Void

    func changes(toResolve merge: Merge, in store: Base.Context) throws -> [Value.Change] {
        called()
        return try base.changes(toResolve: merge, in: store)
    }
}
