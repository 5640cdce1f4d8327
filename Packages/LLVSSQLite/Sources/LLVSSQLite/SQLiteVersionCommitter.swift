import Foundation
import GRDB
import LLVSCore
import LLVSSupport
import LLVSZones

/// Writes a new version — value items, map nodes and its record — in one transaction: one
/// write-ahead-log sync per version instead of three, and a version is never half there.
/// Parts of a large version and the versions of a batch go ahead in transactions of their
/// own, which the commit's sync makes durable with it.
final class SQLiteVersionCommitter: VersionCommitting {
    /// Batches at least this large are followed by a checkpoint that truncates the
    /// write-ahead log, so a bulk import does not leave a log as large as its data behind.
    /// The checkpoint runs on the writer's queue after the commit has returned
    /// (``SQLiteDatabase/truncateWriteAheadLogSoon()``); the next write waits for it.
    static let checkpointItemCount = 50_000

    let database: SQLiteDatabase
    /// Whether parts were stored since the last commit (their transactions ran with the
    /// automatic checkpoint off).
    private let partsStored = Locked(false)

    init(database: SQLiteDatabase) {
        self.database = database
    }

    /// Stores the items and appends the records in one transaction. A large one, or one
    /// after parts, commits with SQLite's automatic checkpoint off, which would otherwise
    /// copy the whole log into the database inside the commit; the truncating checkpoint
    /// that follows it turns it back on.
    func commit(values: [ZoneItem], maps: [ZoneItem], records: [Data]) throws {
        let afterParts = partsStored.withLock { stored in
            defer { stored = false }
            return stored
        }
        let large = afterParts || values.count + maps.count >= Self.checkpointItemCount
        defer { if large { database.truncateWriteAheadLogSoon() } }
        try database.write("write a version to") { db in
            if large { try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
            try SQLiteZone.insert(values, into: .values, db)
            try SQLiteZone.insert(maps, into: .maps, db)
            if !records.isEmpty { try SQLiteVersionLog.append(records, db) }
        }
    }

    /// Stores a part in its own transaction with the automatic checkpoint off: the parts
    /// of a version and its commit fill the write-ahead log, which the commit's truncating
    /// checkpoint copies into the database once (after each part, SQLite would copy it
    /// every time). If no commit follows (the version failed), the next commit or closing
    /// the database checkpoints.
    func storePart(values: [ZoneItem], maps: [ZoneItem]) throws {
        guard !values.isEmpty || !maps.isEmpty else { return }
        partsStored.withLock { $0 = true }
        try database.write("write part of a version to") { db in
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            try SQLiteZone.insert(values, into: .values, db)
            try SQLiteZone.insert(maps, into: .maps, db)
        }
    }

    /// Stores a batch's version ahead of the batch's commit, as a part.
    func storeAhead(values: [ZoneItem], maps: [ZoneItem]) throws {
        try storePart(values: values, maps: maps)
    }
}
