import LLVSCore
import LLVSMerge

extension KeyValueDatabase {
    /// Counts describing a database at its current version.
    public struct Statistics: Hashable, Sendable {
        /// Keys with at least one value.
        public var keyCount: Int
        /// Values across those keys (a key with concurrent values counts each).
        public var entryCount: Int
        /// Keys with more than one concurrent value.
        public var conflictedKeyCount: Int
        /// Deleted keys whose tombstones the database keeps.
        public var tombstoneCount: Int
        /// Distinct scopes among the keys with values.
        public var scopeCount: Int
        /// Authors recorded in the database.
        public var authorCount: Int
        /// Versions in the store's history.
        public var versionCount: Int
        /// Heads of the store's history (more than one until they are merged).
        public var headCount: Int
    }

    /// Counts the keys, values, conflicts and tombstones at the current version, and the
    /// store's versions. Reads every value: O(keys).
    ///
    /// - Throws: See ``read(key:scope:)``.
    public func statistics() throws -> Statistics {
        var statistics = Statistics(keyCount: 0, entryCount: 0, conflictedKeyCount: 0, tombstoneCount: 0, scopeCount: 0,
                                    authorCount: try authors().count, versionCount: 0, headCount: 0)
        (statistics.versionCount, statistics.headCount) = store.queryHistory { ($0.count, $0.headIdentifiers.count) }
        guard let head = currentVersionId else { return statistics }
        var scopes: Set<String> = []
        try store.enumerate(version: head) { reference in
            guard let key = StoreKeys.scopedKey(reference.valueId), let value = try store.value(storedAt: reference) else { return }
            let live = try Self.decode(value).liveEntries.count
            if live == 0 {
                statistics.tombstoneCount += 1
                return
            }
            statistics.keyCount += 1
            statistics.entryCount += live
            if live > 1 { statistics.conflictedKeyCount += 1 }
            scopes.insert(key.scope)
        }
        statistics.scopeCount = scopes.count
        return statistics
    }
}
