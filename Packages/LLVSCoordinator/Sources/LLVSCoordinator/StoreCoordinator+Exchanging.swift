import Foundation
import LLVSCore
import LLVSExchange
import LLVSStore

extension StoreCoordinator {
    /// Exchanges versions with the other side of ``exchange``: retrieves what the store
    /// lacks, then sends what the other side lacks (like a two-way `git fetch`: the current
    /// version does not move; call ``merge(metadata:headSelection:)`` afterwards). Then, if
    /// ``snapshotPolicy`` says a snapshot is due and both the store's storage and the
    /// exchange support snapshots, uploads one; an upload failure does not fail the
    /// exchange but is recorded in ``lastSnapshotError``.
    ///
    /// Exchanges (and ``bootstrapFromSnapshot()``) run one at a time, in the order they
    /// were called; a call made while another runs waits its turn. Without an exchange this
    /// returns at once. The exchange's restoration state is written to the state file after
    /// the retrieve and after the send, even when they fail.
    ///
    /// - Throws: What the exchange's retrieve or send throws (an `ExchangeError`, a
    ///   transport or store error). Versions transferred before the failure stay.
    public func exchange() async throws {
        let ticket = turns.takeTicket()
        try await runExchange(ticket: ticket)
    }

    /// Runs ``exchange()`` in a task and calls `completionHandler` (if any) with nil or the
    /// error, from that task. Calls are served in the order they were made.
    public func exchange(executingUponCompletion completionHandler: (@Sendable ((any Error)?) -> Void)? = nil) {
        let ticket = turns.takeTicket()
        Task {
            do {
                try await runExchange(ticket: ticket)
                completionHandler?(nil)
            } catch {
                completionHandler?(error)
            }
        }
    }

    /// Exchanges, merges the heads into the current version, and — when the merge made a
    /// version — exchanges again so the merge leaves at once. Replicas that call `sync()`
    /// in turn settle on one head as soon as nobody saves; with separate `exchange()` and
    /// `merge()` calls, each replica's newest merge leaves only on its next exchange, so
    /// replicas that alternate keep merging heads the other has not seen (a merge version
    /// per round) until one of them exchanges twice.
    ///
    /// - Returns: True if the current version changed.
    /// - Throws: What ``exchange()`` or ``performMerge(metadata:headSelection:)`` throws.
    @discardableResult
    public func sync(metadata: Version.Metadata? = nil, headSelection: Store.MergeHeadSelection = .allExceptBranches) async throws -> Bool {
        try await exchange()
        let before = store.queryHistory { $0.count }
        let changed = try performMerge(metadata: metadata, headSelection: headSelection)
        if store.queryHistory({ $0.count }) > before { try await exchange() }
        return changed
    }

    /// Waits for the turn of `ticket`, then exchanges.
    private func runExchange(ticket: UInt64) async throws {
        await turns.waitForTurn(ticket)
        defer { turns.endTurn() }
        guard let exchange = self.exchange else { return }
        // Versions other processes added to the store directory are sent too.
        try store.reloadHistory()
        do {
            try await exchange.retrieve()
        } catch {
            rememberRestorationState(of: exchange)
            throw error
        }
        rememberRestorationState(of: exchange)
        do {
            try await exchange.send()
        } catch {
            rememberRestorationState(of: exchange)
            throw error
        }
        rememberRestorationState(of: exchange)
        await uploadSnapshotIfDue(through: exchange)
    }

    /// Persists the exchange's restoration state if it changed.
    private func rememberRestorationState(of exchange: any Exchange) {
        let restoration = exchange.restorationState
        guard state.withLock({ $0.persisted.exchangeRestorationState != restoration }) else { return }
        updatePersisted { $0.exchangeRestorationState = restoration }
    }

    /// Uploads a snapshot when the policy says one is due, the storage and the exchange
    /// support snapshots, and the store holds more than the empty root. The policy is asked
    /// twice: with this replica's last upload, then with the exchange's latest snapshot, so
    /// that a fresh snapshot another replica has just sent is not uploaded again (it then
    /// counts as this replica's last snapshot).
    private func uploadSnapshotIfDue(through exchange: any Exchange) async {
        guard snapshotPolicy.enabled, store.supportsSnapshots, let snapshotExchange = exchange as? any SnapshotExchange else { return }
        let versionCount = store.queryHistory { $0.count }
        guard !isStoreEmpty else { return }
        let (lastDate, lastCount) = state.withLock { ($0.persisted.lastSnapshotDate, $0.persisted.versionCountAtLastSnapshot) }
        let now = Date()
        guard snapshotPolicy.isDue(now: now, lastSnapshot: lastDate, versionCount: versionCount, versionCountAtLastSnapshot: lastCount) else {
            return
        }
        do {
            if let latest = try await snapshotExchange.retrieveSnapshotManifest(),
               !snapshotPolicy.isDue(now: now, lastSnapshot: latest.createdAt, versionCount: versionCount,
                                     versionCountAtLastSnapshot: latest.versionCount) {
                log("snapshot upload skipped: the exchange's latest snapshot \(latest.snapshotId) of \(latest.versionCount) versions is recent enough")
                state.withLock { $0.lastSnapshotError = nil }
                updatePersisted { state in
                    state.lastSnapshotDate = latest.createdAt
                    state.versionCountAtLastSnapshot = latest.versionCount
                }
                return
            }
            let manifest = try await snapshotExchange.sendSnapshot(stagingDirectory: cacheDirectoryURL)
            state.withLock { $0.lastSnapshotError = nil }
            if let manifest {
                updatePersisted { state in
                    state.lastSnapshotDate = now
                    state.versionCountAtLastSnapshot = manifest.versionCount
                }
            }
        } catch {
            state.withLock { $0.lastSnapshotError = error }
        }
    }

    /// True when the store holds no version but (at most) the empty root.
    var isStoreEmpty: Bool {
        store.queryHistory { history in
            history.count == 0 || (history.count == 1 && history.contains(Self.emptyRootVersionID))
        }
    }
}
