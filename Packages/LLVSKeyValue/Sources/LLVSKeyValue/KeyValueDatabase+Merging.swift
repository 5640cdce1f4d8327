import Foundation
import LLVSCore
import LLVSExchange
import LLVSMerge
import LLVSStore

extension KeyValueDatabase {
    /// Brings every version of `source` into this database and merges its current version
    /// into this one's. Keys written on both sides since they last met keep every concurrent
    /// value (a delete is kept beside a concurrent write); the rest take the side that
    /// changed. One-way: `source` is not changed.
    ///
    /// With `dryRun`, nothing is copied or merged: only the keys that would change are
    /// returned. The two databases' application identifiers must match (or the side without
    /// one must hold no keys): merging 1.0 data into a 2.0 database would label it 2.0
    /// without its upgrader having run.
    ///
    /// - Returns: The keys whose versions the merge changes (or would change).
    /// - Throws: ``KeyValueDatabaseError/incompatibleApplicationData(receiver:source:)``,
    ///   changing nothing; ``KeyValueDatabaseError/closed``; a `StoreError` when a version
    ///   cannot be copied or the merge cannot be written; or a ``KeyValueDatabaseError``
    ///   when a stored value is corrupt.
    @discardableResult
    public func merge(source: KeyValueDatabase, dryRun: Bool = false) throws -> Set<ScopedKey> {
        guard source !== self else { return [] }
        try Self.checkCompatible(receiver: try applicationIdentifier, receiverHoldsKeys: { try self.holdsKeys(at: self.currentVersionId) },
                                 source: try source.applicationIdentifier, sourceHoldsKeys: { try source.holdsKeys(at: source.currentVersionId) })
        guard let sourceHead = source.currentVersionId else { return [] }
        if dryRun { return try keysChanged(byMerging: sourceHead, of: source.store) }
        try checkOpen()
        if source.store !== store { try copyVersions(of: source.store) }
        return Set(try moveHead(reportingChangedKeys: true) { head in
            guard let head else { return sourceHead }
            return try store.merge(version: head, with: sourceHead, resolvingWith: arbiter).id
        })
    }

    /// True when this database already holds everything `other` holds: for every key,
    /// its versions have seen all of `other`'s, so merging `other` in would change nothing
    /// (KeyValueCRDT's `dominates(other:)`). A database dominates itself, and a backup and
    /// its original dominate each other.
    ///
    /// - Complexity: Reads the registers of the keys whose stored data differs: O(keys).
    /// - Throws: ``KeyValueDatabaseError/unreadableValue(_:reason:)`` for a corrupt value,
    ///   or a `StoreError`.
    public func dominates(other: KeyValueDatabase) throws -> Bool {
        guard other !== self, let theirs = other.currentVersionId else { return true }
        return try keysChanged(byMerging: theirs, of: other.store).isEmpty
    }

    /// Merges every head of the store not on a named branch into the current version — what
    /// to call after versions arrive other than through ``merge(source:dryRun:)`` or
    /// ``sync(with:)``, for example after `exchange.retrieve()`.
    ///
    /// - Throws: ``KeyValueDatabaseError/incompatibleApplicationData(receiver:source:)``
    ///   when a head holds data of another application (nothing is merged), or see
    ///   ``merge(source:dryRun:)``.
    public func mergeHeads() throws {
        try checkOpen()
        let current = currentVersionId
        let heads = store.queryHistory { $0.headIdentifiers }.filter { $0 != current }
        let receiver = try applicationIdentifier
        for head in heads where store.version(identifiedBy: head)?.branch == nil {
            try Self.checkCompatible(receiver: receiver, receiverHoldsKeys: { try self.holdsKeys(at: current) },
                                     source: try applicationIdentifier(at: head), sourceHoldsKeys: { try self.holdsKeys(at: head) })
        }
        try moveHead { head in try Self.mergingHeads(of: store, into: head, arbiter: arbiter) }
    }

    /// Syncs through an exchange of this database's store: retrieves what the other side
    /// has, merges it, and sends what the other side lacks.
    ///
    /// - Throws: ``KeyValueDatabaseError/exchangeOfAnotherStore`` when `exchange.store` is
    ///   not ``store`` (after ``eraseVersionHistory()``, make a new exchange), the exchange's
    ///   errors, or see ``mergeHeads()``.
    public func sync(with exchange: some Exchange) async throws {
        guard exchange.store === store else { throw KeyValueDatabaseError.exchangeOfAnotherStore }
        _ = try await exchange.retrieve()
        try mergeHeads()
        _ = try await exchange.send()
    }

    /// Adds the versions of `source` this store lacks, predecessors first.
    func copyVersions(of source: Store) throws {
        let missing = source.queryHistory { history in
            history.versionIdentifiers(addedAt: 0..<history.count).filter { !store.historyIncludesVersions(identifiedBy: [$0]) }
        }
        for id in missing {
            guard let version = source.version(identifiedBy: id) else { continue }
            try store.addVersion(version, storing: try source.valueChanges(madeInVersionIdentifiedBy: id))
        }
    }

    /// Moves the current version to what `newHead` returns, brings the index along, and
    /// tells observers which keys changed. Returns those keys when observers or
    /// `reportingChangedKeys` asked for them (worked out once, from the store's diff), else
    /// none.
    @discardableResult
    func moveHead(reportingChangedKeys: Bool = false, _ newHead: (LLVSCore.Version.ID?) throws -> LLVSCore.Version.ID?) throws -> [ScopedKey] {
        let moved = try state.withLock { state throws -> (LLVSCore.Version.ID?, LLVSCore.Version.ID)? in
            guard !state.closed else { throw KeyValueDatabaseError.closed }
            try flushSearchIndex(&state)
            let previous = state.head
            guard let next = try newHead(previous), next != previous else { return nil }
            state.head = next
            try reindex(from: previous, to: next)
            return (previous, next)
        }
        let observed = observers.isObserved
        guard let (previous, next) = moved, observed || reportingChangedKeys else { return [] }
        let changed = try keysChanged(from: previous, to: next)
        if observed { notifyObservers(of: changed, at: next) }
        return changed
    }

    /// The keys whose registers differ between two versions of the store.
    func keysChanged(from previous: LLVSCore.Version.ID?, to next: LLVSCore.Version.ID) throws -> [ScopedKey] {
        guard let previous else {
            var keys: [ScopedKey] = []
            try store.enumerate(version: next) { reference in
                if let key = StoreKeys.scopedKey(reference.valueId) { keys.append(key) }
            }
            return keys
        }
        return try store.valueChanges(madeBetween: previous, and: next).compactMap { StoreKeys.scopedKey($0.valueId) }
    }

    /// The keys whose versions change when `sourceHead` of `source` is merged into the
    /// current version: those where the join of the two registers differs from ours. (The
    /// register arbiter makes every key of a merge the join of both sides' registers.)
    private func keysChanged(byMerging sourceHead: LLVSCore.Version.ID, of source: Store) throws -> Set<ScopedKey> {
        let head = currentVersionId
        var changed: Set<ScopedKey> = []
        try source.enumerate(version: sourceHead) { reference in
            guard let key = StoreKeys.scopedKey(reference.valueId) else { return }
            let ours = try head.flatMap { try store.valueReference(id: reference.valueId, at: $0) }
            if ours?.storedVersionId == reference.storedVersionId { return }
            guard let theirValue = try source.value(storedAt: reference) else { return }
            let theirs = try Self.decode(theirValue)
            guard let ours, let ourValue = try store.value(storedAt: ours) else {
                changed.insert(key)
                return
            }
            let register = try Self.decode(ourValue)
            if register.merged(with: theirs) != register { changed.insert(key) }
        }
        return changed
    }

    /// Refuses a merge of data of two different applications, or of application data
    /// labelled on one side only (unless that side holds no keys).
    ///
    /// - Throws: ``KeyValueDatabaseError/incompatibleApplicationData(receiver:source:)``.
    static func checkCompatible(receiver: ApplicationIdentifier?, receiverHoldsKeys: () throws -> Bool,
                                source: ApplicationIdentifier?, sourceHoldsKeys: () throws -> Bool) throws {
        if receiver == source { return }
        if receiver == nil, try !receiverHoldsKeys() { return }
        if source == nil, try !sourceHoldsKeys() { return }
        throw KeyValueDatabaseError.incompatibleApplicationData(receiver: receiver, source: source)
    }

    /// True when the store holds any key at `versionId` (deleted ones included). Decodes
    /// nothing.
    func holdsKeys(at versionId: LLVSCore.Version.ID?) throws -> Bool {
        guard let versionId else { return false }
        var found = false
        try store.enumerate(version: versionId) { reference in
            if !found, StoreKeys.scopedKey(reference.valueId) != nil { found = true }
        }
        return found
    }

    /// Throws ``KeyValueDatabaseError/closed`` after ``close()``.
    func checkOpen() throws(KeyValueDatabaseError) {
        if state.withLock({ $0.closed }) { throw .closed }
    }

    /// The version `head` becomes once every unbranched head of `store` is merged into it
    /// (the most recent head when `head` is nil).
    static func mergingHeads(of store: Store, into head: LLVSCore.Version.ID?, arbiter: MultiValueRegisterArbiter) throws -> LLVSCore.Version.ID? {
        guard let start = head ?? store.mostRecentHead?.id else { return nil }
        return try store.mergeHeads(into: start, resolvingWith: arbiter)?.id ?? start
    }
}
