import Foundation
import LLVSCore
import LLVSExchange
import LLVSStore
import LLVSZones

extension StoreCoordinator {
    /// Bootstraps an empty replica from the newest snapshot on the other side of
    /// ``exchange``, instead of replaying every version: only when the exchange is a
    /// `SnapshotExchange`, the store's storage supports snapshots, the store is empty (holds
    /// no version but the empty root), a snapshot exists, and its format is one the storage
    /// restores. Otherwise it returns false at once — quietly, as the reference says, with
    /// the reason in ``lastBootstrapSkipReason`` and sent to ``logHandler`` — and a normal ``exchange()``
    /// does a full sync.
    ///
    /// Chunks are staged in the cache directory and all checked before the store is
    /// touched. After the restore, the current version moves to the store's most recent head
    /// (if it was still the empty root), and the snapshot counts as the last snapshot for
    /// ``snapshotPolicy``. Runs in turn with exchanges; an ``exchange()`` afterwards brings
    /// the versions added since the snapshot.
    ///
    /// - Returns: True if a snapshot was restored.
    /// - Throws: `ExchangeError.corruptSnapshotChunk(snapshotId:index:)` for a damaged
    ///   chunk, `ExchangeError.invalidSnapshotManifest`, `ExchangeError.snapshotNotRestorable`
    ///   when a restore leaves the snapshot's latest version missing, transport and storage
    ///   errors. The store is unchanged then.
    @discardableResult
    public func bootstrapFromSnapshot() async throws -> Bool {
        let ticket = turns.takeTicket()
        return try await runBootstrap(ticket: ticket)
    }

    /// Runs ``bootstrapFromSnapshot()`` in a task and calls `completionHandler` with nil
    /// (whether or not a snapshot was restored) or the error, from that task.
    public func bootstrapFromSnapshot(executingUponCompletion completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        let ticket = turns.takeTicket()
        Task {
            do {
                try await runBootstrap(ticket: ticket)
                completionHandler(nil)
            } catch {
                completionHandler(error)
            }
        }
    }

    /// Waits for the turn of `ticket`, then bootstraps.
    @discardableResult
    private func runBootstrap(ticket: UInt64) async throws -> Bool {
        await turns.waitForTurn(ticket)
        defer { turns.endTurn() }
        func skip(_ reason: String) -> Bool {
            log("bootstrap from a snapshot skipped, a full sync follows: \(reason)")
            state.withLock { $0.lastBootstrapSkipReason = reason }
            return false
        }
        guard let snapshotExchange = exchange as? any SnapshotExchange else { return skip("the exchange does not offer snapshots") }
        guard let storage = store.storage as? any SnapshotCapable else {
            return skip("the store's storage \(type(of: store.storage)) cannot restore snapshots")
        }
        try store.reloadHistory()
        guard isStoreEmpty else { return skip("the store already holds versions") }
        guard let manifest = try await snapshotExchange.retrieveSnapshotManifest() else { return skip("the exchange holds no snapshot") }
        guard manifest.format == storage.snapshotFormat else {
            return skip("snapshot \(manifest.snapshotId) is in format \(manifest.format); this store's storage restores \(storage.snapshotFormat)")
        }
        try await snapshotExchange.restoreSnapshot(manifest, stagingDirectory: cacheDirectoryURL, progress: nil)
        state.withLock { $0.lastBootstrapSkipReason = nil }
        writes.withLock {
            if currentVersion == Self.emptyRootVersionID, let head = store.mostRecentHead {
                moveCurrentVersion(to: head.id)
            }
        }
        updatePersisted { state in
            state.lastSnapshotDate = manifest.createdAt
            state.versionCountAtLastSnapshot = manifest.versionCount
        }
        return true
    }
}
