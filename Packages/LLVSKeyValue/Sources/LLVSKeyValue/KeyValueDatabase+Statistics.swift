import LLVSCore
import LLVSMerge

extension KeyValueDatabase {
    /// Counts describing a database at its current version. The first three are
    /// KeyValueCRDT's; the rest are what a versioned store adds.
    public struct Statistics: Hashable, Sendable {
        /// Versions held across all keys, as KeyValueCRDT counts its entries: every
        /// concurrent value counts, and so does every delete the database keeps (a `.null`
        /// version, alone or beside a concurrent write).
        public var entryCount: Int
        /// Authors recorded in the database.
        public var authorCount: Int
        /// Deletes the database keeps: `.null` versions, alone or beside a concurrent write.
        public var tombstoneCount: Int
        /// Keys with at least one value that is not a delete (what ``KeyValueDatabase/keys(scope:key:)`` lists).
        public var keyCount: Int
        /// Keys with more than one concurrent version.
        public var conflictedKeyCount: Int
        /// Distinct scopes among the keys with values.
        public var scopeCount: Int
        /// Versions in the store's history.
        public var versionCount: Int
        /// Heads of the store's history (more than one until they are merged).
        public var headCount: Int
    }

    /// Counts the keys, versions, conflicts and deletes at the current version, and the
    /// store's versions: KeyValueCRDT's `statistics`.
    ///
    /// - Complexity: Reads every key's register: O(keys).
    /// - Throws: See ``read(key:scope:)``.
    public var statistics: Statistics {
        get throws {
            var statistics = Statistics(entryCount: 0, authorCount: try authors().count, tombstoneCount: 0, keyCount: 0,
                                        conflictedKeyCount: 0, scopeCount: 0, versionCount: 0, headCount: 0)
            (statistics.versionCount, statistics.headCount) = store.queryHistory { ($0.count, $0.headIdentifiers.count) }
            var scopes: Set<String> = []
            for (key, register) in try registers(at: currentVersionId, { _ in true }) {
                let live = register.liveEntries.count
                statistics.entryCount += register.entries.count
                statistics.tombstoneCount += register.entries.count - live
                if register.entries.count > 1 { statistics.conflictedKeyCount += 1 }
                guard live > 0 else { continue }
                statistics.keyCount += 1
                scopes.insert(key.scope)
            }
            statistics.scopeCount = scopes.count
            return statistics
        }
    }
}
