import LLVSCore
import LLVSHistory

extension Store {
    /// Calls `block` with the store's history (a consistent snapshot: versions added while
    /// the block runs are not in it) and returns what the block returns. `History` is a
    /// copy-on-write value: keeping it after the block returns keeps the snapshot, and the
    /// store's next write then copies the graph once.
    ///
    /// ```swift
    /// store.queryHistory { history in
    ///     let heads = history.headIdentifiers
    /// }
    /// ```
    public func queryHistory<T>(_ block: (History) throws -> T) rethrows -> T {
        let history = engine.state.withLock { $0.history }
        return try block(history)
    }

    /// The version with identifier `versionId`, with its successors, or nil if unknown.
    public func version(identifiedBy versionId: Version.ID) -> Version? {
        if let virtual = overlay?.version(versionId) { return virtual.version }
        return engine.state.withLock { $0.history.version(identifiedBy: versionId) }
    }

    /// True when the store holds every one of these versions.
    public func historyIncludesVersions<S: Sequence>(identifiedBy versionIds: S) -> Bool where S.Element == Version.ID {
        engine.state.withLock { state in versionIds.allSatisfy { state.history.contains($0) } }
    }

    /// The head with the latest timestamp (ties broken by identifier), or nil for an empty
    /// store: "take me to the newest data".
    public var mostRecentHead: Version? {
        engine.state.withLock { $0.history.mostRecentHead }
    }

    /// True when the history has more than one head, so there is something to merge.
    public var hasMultipleHeads: Bool {
        engine.state.withLock { $0.history.headIdentifiers.count > 1 }
    }

    /// The heads whose metadata names `branch`, sorted by identifier.
    public func heads(withBranch branch: Branch) -> [Version.ID] {
        engine.state.withLock { state in
            state.history.headIdentifiers.filter { state.history.version(identifiedBy: $0)?.branch == branch }.sorted()
        }
    }

    /// Reads the versions other processes (or other `Store` objects on the same directory)
    /// have added since this store last looked.
    ///
    /// - Throws: ``StoreError`` when the version log cannot be read or is corrupt.
    public func reloadHistory() throws {
        try engine.reload()
    }

    /// Releases the storage's connections (SQLite: every connection closes, the last one
    /// copying the write-ahead log into the database file, so the file alone is a complete
    /// copy of the store). Reads and writes fail afterwards; open a new `Store` to go on.
    /// Nothing to release for file and memory storage.
    ///
    /// - Throws: ``StoreError`` wrapping the storage's error when a connection cannot close
    ///   (a statement still running).
    public func close() throws {
        guard let close = engine.zones.close else { return }
        try StoreError.wrapping { try close() }
    }
}
