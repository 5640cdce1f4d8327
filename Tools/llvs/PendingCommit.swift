import Foundation
import LLVS
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Versions made by a command that did not complete.
///
/// A command that makes versions (`put`, `rm`, `merge`, `revert`, the merge of `sync`)
/// writes them to the store and then moves `HEAD` in `state.json`; killed in between, it
/// leaves a version nobody acknowledged — a new head that a later `merge` would merge back
/// and a later `pull` fast-forward to. Git has the same gap between writing a commit and
/// moving the branch ref, and its answer is that a commit no ref points to is unreachable:
/// never merged, pushed or checked out unless named. `llvs` does the same:
///
/// 1. Before writing, the command records its intent in `state.json` (`pending`: the store's
///    heads, `HEAD` and the time), durably.
/// 2. After writing, it saves the new `HEAD` and clears `pending` in one write.
/// 3. A command that finds `pending` when it takes the store's lock (the command that
///    wrote it is gone, since it held the lock) marks the versions made since as
///    *abandoned* (`abandoned` in `state.json`): the versions the recorded heads do not
///    contain that are built on the recorded `HEAD` through such versions (those of one
///    predecessor, or none, also made no earlier than the recorded time, so that a version
///    `llvs serve` received meanwhile is not taken for one). A command that fails with an
///    error marks them the same way.
///
/// Abandoned versions stay in the store (versions are never deleted) but `merge`, `sync`,
/// `pull`'s fast-forward and `push` leave them out; `llvs checkout` of one takes it back.
///
/// For tests, `LLVS_TEST_KILL_AFTER_COMMIT=1` makes the process kill itself with `SIGKILL`
/// right after a command's versions are written and before `state.json` is saved.
extension StoreDirectory {
    /// What `state.json` records while a command writes versions.
    struct PendingCommit: Codable {
        /// The store's heads before the command wrote anything.
        var heads: [Version.ID]
        /// `HEAD` when the command started.
        var head: Version.ID?
        /// When the command started (seconds since 2001-01-01); its versions are no older.
        var startedAt: TimeInterval
    }

    /// The abandoned versions (see above).
    var abandonedVersions: Set<Version.ID> { Set(state.abandoned ?? []) }

    /// The heads of the history without its abandoned versions: what merges, fast-forwards
    /// and pushes work from. An abandoned head gives way to its predecessors (an abandoned
    /// merge must not hide the heads it merged).
    ///
    /// - Throws: The history's errors.
    func liveHeads(of history: History) throws -> Set<Version.ID> {
        let abandoned = abandonedVersions
        guard !abandoned.isEmpty else { return history.headIdentifiers }
        var candidates: Set<Version.ID> = []
        var seen: Set<Version.ID> = []
        var stack = Array(history.headIdentifiers)
        while let id = stack.popLast() {
            guard seen.insert(id).inserted else { continue }
            if abandoned.contains(id) {
                stack.append(contentsOf: history.version(identifiedBy: id)?.predecessorIds ?? [])
            } else {
                candidates.insert(id)
            }
        }
        return Set(try history.maximalVersions(of: candidates))
    }

    /// Runs `body`, which writes versions and returns the new `HEAD` (nil: nothing written),
    /// between recording the intent and saving the new `HEAD`; on an error, whatever it
    /// wrote is abandoned.
    ///
    /// - Throws: `body`'s errors, or an I/O error saving `state.json`.
    func committing(_ body: () throws -> Version.ID?) throws {
        state.pending = PendingCommit(heads: Array(store.queryHistory { $0.headIdentifiers }).sorted(), head: state.head,
                                      startedAt: Date().timeIntervalSinceReferenceDate)
        try saveState()
        let newHead: Version.ID?
        do {
            newHead = try body()
        } catch {
            try? abandonPendingVersions()
            throw error
        }
        if ProcessInfo.processInfo.environment["LLVS_TEST_KILL_AFTER_COMMIT"] == "1" {
            kill(getpid(), SIGKILL)
        }
        if let newHead {
            state.head = newHead
            // A command that made a version again (a merge has the same identifier each
            // time) acknowledges it.
            state.abandoned = state.abandoned?.filter { $0 != newHead }
            if state.abandoned?.isEmpty == true { state.abandoned = nil }
        }
        state.pending = nil
        try saveState()
    }

    /// Marks the versions a command that did not complete made as abandoned, and clears
    /// `pending`. Call only while holding the store's lock.
    ///
    /// - Throws: The history's errors, or an I/O error saving `state.json`.
    func abandonPendingVersions() throws {
        guard let pending = state.pending else { return }
        let recordedHeads = Set(pending.heads)
        let abandoned: [Version.ID] = try store.queryHistory { history in
            func existedBefore(_ id: Version.ID) throws -> Bool {
                try recordedHeads.contains(id) || recordedHeads.contains { try history.isAncestor(id, of: $0) }
            }
            // The versions the recorded heads do not contain: walk down from today's heads.
            var made: [Version.ID: Version] = [:]
            var stack = Array(history.headIdentifiers)
            while let id = stack.popLast() {
                guard made[id] == nil, let version = history.version(identifiedBy: id), try !existedBefore(id) else { continue }
                made[id] = version
                stack.append(contentsOf: version.predecessorIds)
            }
            // Of those, the command's own: built on HEAD through versions it made, and made
            // since it started (a merge's timestamp follows from what it merges, and its
            // record lists its predecessors in a fixed order rather than HEAD first, so a
            // merge counts when either side leads to HEAD, and only versions of one
            // predecessor, or none, are checked against the clock).
            func isCommands(_ version: Version, depth: Int) -> Bool {
                let predecessors = version.predecessorIds
                if predecessors.count < 2, version.timestamp < pending.startedAt { return false }
                guard depth <= made.count, !predecessors.isEmpty else { return pending.head == nil }
                return predecessors.contains { id in
                    id == pending.head || made[id].map { isCommands($0, depth: depth + 1) } == true
                }
            }
            return made.values.filter { isCommands($0, depth: 0) }.map(\.id).sorted()
        }
        state.abandoned = Array(abandonedVersions.union(abandoned)).sorted()
        if state.abandoned?.isEmpty == true { state.abandoned = nil }
        state.pending = nil
        try saveState()
    }
}
