import Foundation
import LLVSCore
import LLVSMerge
import LLVSStore

extension KeyValueDatabase {
    /// The keys whose text values match `query`, best match first. Every text value is
    /// indexed, including each of a key's concurrent values; JSON and blobs are not.
    ///
    /// The query is SQLite FTS5 syntax: words (`hello world` matches texts with both),
    /// prefixes (`hel*`), phrases (`"hello world"`), `OR`, `NOT`. Matching ignores case and
    /// diacritics.
    ///
    /// - Throws: ``KeyValueDatabaseError/invalidSearchQuery(_:reason:)`` for a malformed query,
    ///   ``KeyValueDatabaseError/searchIndex(reason:)`` when the index cannot be read,
    ///   ``KeyValueDatabaseError/closed`` after ``close()``.
    public func search(for query: String) throws -> [ScopedKey] {
        try checkOpenForReading()
        try state.withLock { try flushSearchIndex(&$0) }
        return try searchIndex.search(query)
    }

    /// KeyValueCRDT's spelling of ``search(for:)``.
    ///
    /// - Throws: See ``search(for:)``.
    public func searchText(for query: String) throws -> [ScopedKey] {
        try search(for: query)
    }

    /// Writes the queued texts of local writes to the index, in one transaction, bringing it
    /// to the current version (or rebuilds it from the store's differences when it is not
    /// at the version the queue starts from).
    ///
    /// - Complexity: One index transaction for every queued key: FTS5 writes one segment for
    ///   the batch instead of one per write.
    func flushSearchIndex(_ state: inout State) throws {
        guard let (entries, previous, next) = state.pendingIndex.take() else { return }
        if try !searchIndex.update(entries, from: previous, to: next) { try reindex(from: previous, to: next) }
    }

    /// Brings the index from the version it reflects to the current one (at open).
    func catchUpSearchIndex() throws {
        try state.withLock { state in
            guard let head = state.head else { return }
            try reindex(from: try searchIndex.indexedVersion(), to: head)
        }
    }

    /// Updates the index for a move of the current version from `previous` to `next`: from
    /// the store's differences when the index is at `previous`, else rebuilt from `next`.
    func reindex(from previous: LLVSCore.Version.ID?, to next: LLVSCore.Version.ID) throws {
        let indexed = try searchIndex.indexedVersion()
        guard indexed != next else { return }
        if let indexed, indexed == previous || store.historyIncludesVersions(identifiedBy: [indexed]) {
            var entries: [(ScopedKey, [String])] = []
            for change in try store.valueChanges(madeBetween: indexed, and: next) {
                guard let key = StoreKeys.scopedKey(change.valueId) else { continue }
                switch change {
                case .insert(let value), .update(let value): entries.append((key, Self.indexableTexts(of: value)))
                default: entries.append((key, []))
                }
            }
            if try searchIndex.update(entries, from: indexed, to: next) { return }
        }
        var all: [(ScopedKey, [String])] = []
        try store.enumerate(version: next) { reference in
            guard let key = StoreKeys.scopedKey(reference.valueId), let value = try store.value(storedAt: reference) else { return }
            let texts = Self.indexableTexts(of: value)
            if !texts.isEmpty { all.append((key, texts)) }
        }
        try searchIndex.update(all, from: nil, to: next, replacingAll: true)
    }

    /// The texts of a stored register; none for data that is no register (reading that key
    /// reports the corruption; the index just leaves it out).
    static func indexableTexts(of value: LLVSCore.Value) -> [String] {
        guard let register = try? decode(value) else { return [] }
        return texts(of: register)
    }
}
