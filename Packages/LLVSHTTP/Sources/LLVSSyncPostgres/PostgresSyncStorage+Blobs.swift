import Foundation
import LLVSSyncProtocol
import LLVSSyncStorage
import NIOCore
import PostgresNIO

/// Blind stores in PostgreSQL: a write runs in one transaction holding its store's row lock
/// in `llvs_blind_stores` (`SELECT … FOR UPDATE`), so sequence numbers follow commit order
/// across every server, and the token check and the write see the same token hash.
extension PostgresSyncStorage {
    private struct BlindStoreRow {
        var identity: String
        var last: Int64
        var tokenHash: Data?
    }

    private func blindStoreRow(_ connection: PostgresConnection, _ store: SyncStoreName, locking: Bool = false) async throws -> BlindStoreRow? {
        let rows = locking
            ? try await connection.query("""
                SELECT identity, last_sequence, write_token_hash FROM llvs_blind_stores WHERE name = \(store.rawValue) FOR UPDATE
                """, logger: logger)
            : try await connection.query("""
                SELECT identity, last_sequence, write_token_hash FROM llvs_blind_stores WHERE name = \(store.rawValue)
                """, logger: logger)
        for try await (identity, last, hash) in rows.decode((String, Int64, Data?).self) {
            return BlindStoreRow(identity: identity, last: last, tokenHash: hash)
        }
        return nil
    }

    private func ensureBlindStore(_ connection: PostgresConnection, _ store: SyncStoreName) async throws -> BlindStoreRow {
        try await connection.query("""
            INSERT INTO llvs_blind_stores (name, identity, last_sequence) VALUES (\(store.rawValue), \(UUID().uuidString), 0)
            ON CONFLICT (name) DO NOTHING
            """, logger: logger)
        guard let row = try await blindStoreRow(connection, store, locking: true) else {
            throw SyncStorageError.unavailable("blind store \(store) vanished while being created")
        }
        return row
    }

    /// See `LLVSSyncStorage.BlobSyncStorage.listBlobs(in:after:limit:)`.
    ///
    /// - Throws: `LLVSSyncStorage.SyncStorageError.unavailable(_:)`.
    public func listBlobs(in store: SyncStoreName, after cursor: SyncCursor?, limit: Int) async throws -> BlobListingPage {
        try await guarded {
            try await client.withConnection { connection in
                guard let row = try await blindStoreRow(connection, store) else {
                    return BlobListingPage(entries: [], cursor: SyncListing.emptyStoreCursor, isCompleteListing: true, hasMore: false)
                }
                let start = SyncListing.startSequence(cursor, identity: row.identity, lastSequence: row.last)
                let rows = try await connection.query("""
                    SELECT sequence, name, octet_length(data)::BIGINT FROM llvs_blobs WHERE store = \(store.rawValue) AND sequence > \(start)
                    ORDER BY sequence LIMIT \(limit + 1)
                    """, logger: logger)
                var listed: [(sequence: Int64, entry: BlobListing.Entry)] = []
                for try await (sequence, name, size) in rows.decode((Int64, String, Int64).self) {
                    listed.append((sequence, BlobListing.Entry(name: name, size: size)))
                }
                return BlobListingPage.page(listed, identity: row.identity, start: start, limit: limit)
            }
        }
    }

    /// See `LLVSSyncStorage.BlobSyncStorage.latestBlobCursor(in:)`.
    ///
    /// - Throws: `LLVSSyncStorage.SyncStorageError.unavailable(_:)`.
    public func latestBlobCursor(in store: SyncStoreName) async throws -> SyncCursor {
        try await guarded {
            try await client.withConnection { connection in
                guard let row = try await blindStoreRow(connection, store) else { return SyncListing.emptyStoreCursor }
                return SyncCursor(storeIdentity: row.identity, sequence: row.last)
            }
        }
    }

    /// See `LLVSSyncStorage.BlobSyncStorage.blobs(in:named:)`.
    ///
    /// - Throws: `LLVSSyncStorage.SyncStorageError.unavailable(_:)`.
    public func blobs(in store: SyncStoreName, named names: [String]) async throws -> [(name: String, data: Data)] {
        guard !names.isEmpty else { return [] }
        return try await guarded {
            try await client.withConnection { connection in try await storedBlobs(connection, store, names) }
        }
    }

    private func storedBlobs(_ connection: PostgresConnection, _ store: SyncStoreName, _ names: [String]) async throws -> [(name: String, data: Data)] {
        guard !names.isEmpty else { return [] }
        let rows = try await connection.query(
            "SELECT name, data FROM llvs_blobs WHERE store = \(store.rawValue) AND name = ANY(\(names)::TEXT[])", logger: logger)
        var result: [(name: String, data: Data)] = []
        for try await (name, data) in rows.decode((String, Data).self) { result.append((name, data)) }
        return result
    }

    /// See `LLVSSyncStorage.BlobSyncStorage.putBlobs(_:in:writeTokenHash:)`.
    ///
    /// - Throws: `LLVSSyncStorage.SyncStorageError.writeTokenRejected(_:)`,
    ///   `LLVSSyncStorage.SyncStorageError.unavailable(_:)`.
    public func putBlobs(_ blobs: [(name: String, data: Data)], in store: SyncStoreName, writeTokenHash: Data?) async throws -> BlobPutOutcome {
        let logger = self.logger
        return try await guarded {
            try await client.withTransaction(logger: logger) { connection in
                let row = try await ensureBlindStore(connection, store)
                let newHash = try BlobWriteGuard.check(stored: row.tokenHash, given: writeTokenHash, names: blobs.map(\.name))
                let stored = try await storedBlobs(connection, store, blobs.map(\.name))
                let plan = BlobPutPlan(blobs: blobs, stored: Dictionary(stored.map { ($0.name, $0.data) }, uniquingKeysWith: { first, _ in first }))
                let last = row.last + Int64(plan.toInsert.count)
                if !plan.toInsert.isEmpty {
                    let sequences = (1...Int64(plan.toInsert.count)).map { row.last + $0 }
                    let names = plan.toInsert.map(\.name)
                    let data = plan.toInsert.map { ByteBuffer(bytes: $0.data) }
                    try await connection.query("""
                        INSERT INTO llvs_blobs (store, sequence, name, data)
                        SELECT \(store.rawValue), * FROM unnest(\(sequences)::BIGINT[], \(names)::TEXT[], \(data)::BYTEA[])
                        """, logger: logger)
                }
                if !plan.toInsert.isEmpty || newHash != nil {
                    try await connection.query("""
                        UPDATE llvs_blind_stores SET last_sequence = \(last), write_token_hash = coalesce(\(newHash), write_token_hash)
                        WHERE name = \(store.rawValue)
                        """, logger: logger)
                }
                return BlobPutOutcome(addedCount: plan.toInsert.count, alreadyPresentCount: plan.alreadyPresentCount,
                                      differing: plan.differing, cursor: SyncCursor(storeIdentity: row.identity, sequence: last))
            }
        }
    }

    /// See `LLVSSyncStorage.BlobSyncStorage.replaceWriteTokenHash(in:currentTokenHash:with:)`.
    ///
    /// - Throws: `LLVSSyncStorage.SyncStorageError.writeTokenRejected(_:)`,
    ///   `LLVSSyncStorage.SyncStorageError.unavailable(_:)`.
    public func replaceWriteTokenHash(in store: SyncStoreName, currentTokenHash: Data, with newHash: Data) async throws {
        let logger = self.logger
        try await guarded {
            try await client.withTransaction(logger: logger) { connection in
                let row = try await ensureBlindStore(connection, store)
                let hash = try BlobWriteGuard.replacement(stored: row.tokenHash, current: currentTokenHash, new: newHash)
                try await connection.query("UPDATE llvs_blind_stores SET write_token_hash = \(hash) WHERE name = \(store.rawValue)", logger: logger)
            }
        }
    }
}
