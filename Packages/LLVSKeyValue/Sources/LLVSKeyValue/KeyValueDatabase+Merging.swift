import Foundation
import LLVSCore
import LLVSExchange
import LLVSMerge
import LLVSStore

extension KeyValueDatabase {
    /// Brings every version of `source` into this database and merges its current version
    /// into this one's. Keys written on both sides since they last met keep every concurrent
    /// value; the rest take the side that changed. One-way: `source` is not changed.
    ///
    /// - Throws: A `StoreError` when a version cannot be copied or the merge cannot be
    ///   written, or a ``KeyValueDatabaseError`` when a stored value is corrupt.
    public func merge(source: KeyValueDatabase) throws {
        guard source !== self, let sourceHead = source.currentVersionId else { return }
        if source.store !== store { try copyVersions(of: source.store) }
        try moveHead { head in
            guard let head else { return sourceHead }
            return try store.merge(version: head, with: sourceHead, resolvingWith: arbiter).id
        }
    }

    /// Merges every head of the store not on a named branch into the current version — what
    /// to call after versions arrive other than through ``merge(source:)`` or
    /// ``sync(with:)``, for example after `exchange.retrieve()`.
    ///
    /// - Throws: See ``merge(source:)``.
    public func mergeHeads() throws {
        try moveHead { head in try Self.mergingHeads(of: store, into: head, arbiter: arbiter) }
    }

    /// Syncs through an exchange of this database's store: retrieves what the other side
    /// has, merges it, and sends what the other side lacks.
    ///
    /// - Throws: ``KeyValueDatabaseError/exchangeOfAnotherStore`` when `exchange.store` is
    ///   not ``store``, the exchange's errors, or see ``merge(source:)``.
    public func sync(with exchange: some Exchange) async throws {
        guard exchange.store === store else { throw KeyValueDatabaseError.exchangeOfAnotherStore }
        _ = try await exchange.retrieve()
        try mergeHeads()
        _ = try await exchange.send()
    }

    /// Adds the versions of `source` this store lacks, predecessors first.
    private func copyVersions(of source: Store) throws {
        let missing = source.queryHistory { history in
            history.versionIdentifiers(addedAt: 0..<history.count).filter { !store.historyIncludesVersions(identifiedBy: [$0]) }
        }
        for id in missing {
            guard let version = source.version(identifiedBy: id) else { continue }
            try store.addVersion(version, storing: try source.valueChanges(madeInVersionIdentifiedBy: id))
        }
    }

    /// Moves the current version to what `newHead` returns, and brings the index along.
    private func moveHead(_ newHead: (LLVSCore.Version.ID?) throws -> LLVSCore.Version.ID?) throws {
        try state.withLock { state in
            let previous = state.head
            guard let next = try newHead(previous), next != previous else { return }
            state.head = next
            try reindex(from: previous, to: next)
        }
    }

    /// The version `head` becomes once every unbranched head of `store` is merged into it
    /// (the most recent head when `head` is nil).
    static func mergingHeads(of store: Store, into head: LLVSCore.Version.ID?, arbiter: MultiValueRegisterArbiter) throws -> LLVSCore.Version.ID? {
        guard let start = head ?? store.mostRecentHead?.id else { return nil }
        return try store.mergeHeads(into: start, resolvingWith: arbiter)?.id ?? start
    }
}
