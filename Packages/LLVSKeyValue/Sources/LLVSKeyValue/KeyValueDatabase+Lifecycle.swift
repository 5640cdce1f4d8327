import Foundation
import LLVSCore
import LLVSMerge
import LLVSSQLite
import LLVSStore

extension KeyValueDatabase {
    /// Makes `destination` a copy of this database, as KeyValueCRDT's `backup(to:)` does:
    /// it receives every version of this database's history, and its current values become
    /// exactly this database's, whatever it held before.
    ///
    /// When `destination` had values of its own that this database lacks, the copy is
    /// recorded as a version that descends from both sides and holds only this database's
    /// values: the overwrite is part of its history, so reopening it (or a peer that syncs
    /// with it) does not bring the overwritten values back.
    ///
    /// - Throws: ``KeyValueDatabaseError/closed`` when `destination` was closed, a
    ///   `StoreError` when a version cannot be copied or written.
    public func backup(to destination: KeyValueDatabase) throws {
        guard destination !== self, let sourceHead = currentVersionId else { return }
        try destination.checkOpen()
        if destination.store !== store { try destination.copyVersions(of: store) }
        let target = destination.store
        try destination.moveHead { head in
            guard let head, head != sourceHead else { return sourceHead }
            if try target.queryHistory({ try $0.isAncestor(head, of: sourceHead) }) { return sourceHead }
            let metadata = [Self.authorMetadataKey: try LLVSCore.Version.MetadataValue(destination.author.id)]
            return try target.makeVersion(basedOn: LLVSCore.Version.Predecessors(idOfFirst: sourceHead, idOfSecond: head), storing: [],
                                          metadata: metadata).id
        }
    }

    /// Writes a copy of this database — its whole history — as a new database directory at
    /// `url`, closed and ready to be copied or opened.
    ///
    /// - Throws: ``KeyValueDatabaseError/backupDestinationNotEmpty(path:)`` when `url`
    ///   already holds files, or the errors of opening a database there and of
    ///   ``backup(to:)-(KeyValueDatabase)``.
    public func backup(to url: URL) throws {
        if let contents = try? FileManager.default.contentsOfDirectory(atPath: url.path), !contents.isEmpty {
            throw KeyValueDatabaseError.backupDestinationNotEmpty(path: url.path)
        }
        let copy = try KeyValueDatabase(fileURL: url, author: author)
        try backup(to: copy)
        try copy.close()
    }

    /// Replaces the store's history with one new root version holding the current values,
    /// and drops every delete (tombstone) the database keeps: KeyValueCRDT's
    /// `eraseVersionHistory()`. A file database's store file is rebuilt, so the old versions
    /// are gone from disk, and ``store`` is a new `Store` afterwards (make new exchanges).
    ///
    /// Each current value keeps its author and time, and each key keeps the record of the
    /// writes it has seen. So a peer that syncs with the erased database sees no conflict:
    /// its merge with the new root (an unrelated history, merged two-way) joins each key's
    /// versions into the same ones, and deletes the peer still holds are dropped again. But
    /// the peer keeps its own copy of the old history, and sends it back on the next sync
    /// unless it too erases its history or starts over from this database.
    ///
    /// - Throws: ``KeyValueDatabaseError/closed``, a ``KeyValueDatabaseError`` for a corrupt
    ///   value, or a `StoreError`/`ZoneError` when the new store cannot be written (the old
    ///   one is then left as it was).
    public func eraseVersionHistory() throws {
        let (changed, root) = try state.withLock { state throws -> ([ScopedKey], LLVSCore.Version.ID?) in
            guard !state.closed else { throw KeyValueDatabaseError.closed }
            guard let head = state.head else { return ([], nil) }
            let current = store
            var values: [LLVSCore.Value] = [], changed: [ScopedKey] = []
            try current.enumerate(version: head) { reference in
                guard let value = try current.value(storedAt: reference) else { return }
                let register = try Self.decode(value)
                let kept = register.withoutTombstones()
                if kept != register, let key = StoreKeys.scopedKey(reference.valueId) { changed.append(key) }
                if !kept.entries.isEmpty { values.append(LLVSCore.Value(id: reference.valueId, data: try kept.encoded())) }
            }
            let metadata = [Self.authorMetadataKey: try LLVSCore.Version.MetadataValue(author.id)]
            let (fresh, root) = try replacementStore { store in
                try store.makeVersion(basedOnPredecessor: nil, inserting: values, metadata: metadata).id
            }
            storeBox.withLock { $0 = fresh }
            state.head = root
            state.pendingIndex = PendingIndexUpdate()  // the index is rebuilt from the new root
            try reindex(from: nil, to: root)
            return (changed, root)
        }
        if let root, !changed.isEmpty, observers.isObserved { notifyObservers(of: changed, at: root) }
    }

    /// Closes the database: the store's SQLite connections close, the last one copying the
    /// write-ahead log into the database file, so that the directory's `llvs-store.sqlite`
    /// alone is a complete copy of the database — what a synced folder or a file copy
    /// needs. Reads and writes fail afterwards with ``KeyValueDatabaseError/closed`` (for an
    /// in-memory database too); open the directory again to go on.
    ///
    /// - Throws: A `StoreError` when a connection cannot close, or
    ///   ``KeyValueDatabaseError/searchIndex(reason:)``.
    public func close() throws {
        let wasClosed = try state.withLock { state in
            defer { state.closed = true }
            if !state.closed { try flushSearchIndex(&state) }
            return state.closed
        }
        guard !wasClosed, fileURL != nil else { return }
        try store.close()
        try searchIndex.checkpoint()
    }

    /// A new store for this database, made by `build`: in memory, or for a file database
    /// built in a staging directory and then moved over the store file (the old store is
    /// closed first; if the move fails, the old file is put back and opened again).
    private func replacementStore(_ build: (Store) throws -> LLVSCore.Version.ID) throws -> (Store, LLVSCore.Version.ID) {
        guard let fileURL else {
            let fresh = try Self.makeMemoryStore()
            return (fresh, try build(fresh))
        }
        let fileManager = FileManager.default
        let staging = fileURL.appendingPathComponent(".erasing-\(UUID().uuidString)")
        let retired = fileURL.appendingPathComponent(".erased-\(UUID().uuidString)")
        defer { try? fileManager.removeItem(at: staging) }
        let staged = try Self.openStore(in: staging)
        let root = try build(staged)
        try staged.close()
        try store.close()
        let name = SQLiteStorage.databaseFileName
        let present = ["", "-wal", "-shm"].filter { fileManager.fileExists(atPath: fileURL.appendingPathComponent(name + $0).path) }
        do {
            try fileManager.createDirectory(at: retired, withIntermediateDirectories: true)
            for suffix in present {
                try fileManager.moveItem(at: fileURL.appendingPathComponent(name + suffix), to: retired.appendingPathComponent(name + suffix))
            }
            try fileManager.moveItem(at: staging.appendingPathComponent(name), to: fileURL.appendingPathComponent(name))
        } catch {
            for suffix in present where fileManager.fileExists(atPath: retired.appendingPathComponent(name + suffix).path) {
                try? fileManager.moveItem(at: retired.appendingPathComponent(name + suffix), to: fileURL.appendingPathComponent(name + suffix))
            }
            let reopened = try Self.openStore(in: fileURL)
            storeBox.withLock { $0 = reopened }
            throw error
        }
        try? fileManager.removeItem(at: retired)
        return (try Self.openStore(in: fileURL), root)
    }
}
