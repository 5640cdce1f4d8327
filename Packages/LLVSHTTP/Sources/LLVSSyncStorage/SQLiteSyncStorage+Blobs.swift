import Foundation
import GRDB
import LLVSSyncProtocol

/// Blind stores in SQLite: `llvs_blind_stores` (one row per store, with the write token's
/// hash) and `llvs_blobs` (one row per blob, numbered in commit order under SQLite's write
/// lock).
extension SQLiteSyncStorage {
    private struct BlindStoreRow {
        var identity: String
        var last: Int64
        var tokenHash: Data?
    }

    private static func blindStoreRow(_ db: Database, _ store: SyncStoreName) throws -> BlindStoreRow? {
        try Row.fetchOne(db, sql: "SELECT identity, last_sequence, write_token_hash FROM llvs_blind_stores WHERE name = ?",
                         arguments: [store.rawValue])
            .map { BlindStoreRow(identity: try $0.decode(String.self, forColumn: "identity"),
                                 last: try $0.decode(Int64.self, forColumn: "last_sequence"),
                                 tokenHash: try $0.decode(Data?.self, forColumn: "write_token_hash")) }
    }

    private static func ensureBlindStore(_ db: Database, _ store: SyncStoreName) throws -> BlindStoreRow {
        if let row = try blindStoreRow(db, store) { return row }
        let identity = UUID().uuidString
        try db.execute(sql: "INSERT INTO llvs_blind_stores (name, identity, last_sequence) VALUES (?, ?, 0)",
                       arguments: [store.rawValue, identity])
        return BlindStoreRow(identity: identity, last: 0, tokenHash: nil)
    }

    /// See ``BlobSyncStorage/listBlobs(in:after:limit:)``.
    ///
    /// - Throws: ``SyncStorageError/unavailable(_:)``.
    public func listBlobs(in store: SyncStoreName, after cursor: SyncCursor?, limit: Int) async throws -> BlobListingPage {
        try await read { db in
            guard let row = try Self.blindStoreRow(db, store) else {
                return BlobListingPage(entries: [], cursor: SyncListing.emptyStoreCursor, isCompleteListing: true, hasMore: false)
            }
            let start = SyncListing.startSequence(cursor, identity: row.identity, lastSequence: row.last)
            let rows = try Row.fetchAll(db, sql: """
                SELECT sequence, name, length(data) AS size FROM llvs_blobs WHERE store = ? AND sequence > ? ORDER BY sequence LIMIT ?
                """, arguments: [store.rawValue, start, limit + 1])
            return BlobListingPage.page(try rows.map { row in
                (sequence: try row.decode(Int64.self, forColumn: "sequence"),
                 entry: BlobListing.Entry(name: try row.decode(String.self, forColumn: "name"), size: try row.decode(Int64.self, forColumn: "size")))
            }, identity: row.identity, start: start, limit: limit)
        }
    }

    /// See ``BlobSyncStorage/latestBlobCursor(in:)``.
    ///
    /// - Throws: ``SyncStorageError/unavailable(_:)``.
    public func latestBlobCursor(in store: SyncStoreName) async throws -> SyncCursor {
        try await read { db in
            guard let row = try Self.blindStoreRow(db, store) else { return SyncListing.emptyStoreCursor }
            return SyncCursor(storeIdentity: row.identity, sequence: row.last)
        }
    }

    /// See ``BlobSyncStorage/blobs(in:named:)``.
    ///
    /// - Throws: ``SyncStorageError/unavailable(_:)``.
    public func blobs(in store: SyncStoreName, named names: [String]) async throws -> [(name: String, data: Data)] {
        try await read { db in try Self.storedBlobs(db, store, names) }
    }

    private static func storedBlobs(_ db: Database, _ store: SyncStoreName, _ names: [String]) throws -> [(name: String, data: Data)] {
        var result: [(name: String, data: Data)] = []
        for start in stride(from: 0, to: names.count, by: 500) {
            let slice = names[start..<min(start + 500, names.count)]
            let placeholders = Array(repeating: "?", count: slice.count).joined(separator: ",")
            let rows = try Row.fetchAll(db, sql: "SELECT name, data FROM llvs_blobs WHERE store = ? AND name IN (\(placeholders))",
                                        arguments: StatementArguments([store.rawValue] + Array(slice)))
            for row in rows {
                result.append((try row.decode(String.self, forColumn: "name"), try row.decode(Data.self, forColumn: "data")))
            }
        }
        return result
    }

    /// See ``BlobSyncStorage/putBlobs(_:in:writeTokenHash:)``.
    ///
    /// - Throws: ``SyncStorageError/writeTokenRejected(_:)``, ``SyncStorageError/unavailable(_:)``.
    public func putBlobs(_ blobs: [(name: String, data: Data)], in store: SyncStoreName, writeTokenHash: Data?) async throws -> BlobPutOutcome {
        try await write { db in
            var row = try Self.ensureBlindStore(db, store)
            let newHash = try BlobWriteGuard.check(stored: row.tokenHash, given: writeTokenHash, names: blobs.map(\.name))
            let stored = try Self.storedBlobs(db, store, blobs.map(\.name))
            let plan = BlobPutPlan(blobs: blobs, stored: Dictionary(stored.map { ($0.name, $0.data) }, uniquingKeysWith: { first, _ in first }))
            let statement = try db.cachedStatement(sql: "INSERT INTO llvs_blobs (store, sequence, name, data) VALUES (?, ?, ?, ?)")
            for blob in plan.toInsert {
                row.last += 1
                try statement.execute(arguments: [store.rawValue, row.last, blob.name, blob.data])
            }
            try db.execute(sql: "UPDATE llvs_blind_stores SET last_sequence = ?, write_token_hash = coalesce(?, write_token_hash) WHERE name = ?",
                           arguments: [row.last, newHash, store.rawValue])
            return BlobPutOutcome(addedCount: plan.toInsert.count, alreadyPresentCount: plan.alreadyPresentCount,
                                  differing: plan.differing, cursor: SyncCursor(storeIdentity: row.identity, sequence: row.last))
        }
    }

    /// See ``BlobSyncStorage/replaceWriteTokenHash(in:currentTokenHash:with:)``.
    ///
    /// - Throws: ``SyncStorageError/writeTokenRejected(_:)``, ``SyncStorageError/unavailable(_:)``.
    public func replaceWriteTokenHash(in store: SyncStoreName, currentTokenHash: Data, with newHash: Data) async throws {
        try await write { db in
            let row = try Self.ensureBlindStore(db, store)
            let hash = try BlobWriteGuard.replacement(stored: row.tokenHash, current: currentTokenHash, new: newHash)
            try db.execute(sql: "UPDATE llvs_blind_stores SET write_token_hash = ? WHERE name = ?", arguments: [hash, store.rawValue])
        }
    }
}
