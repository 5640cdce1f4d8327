import LLVSCore
import LLVSHistory

extension Store {
    /// Checks that every version's map and values are readable and consistent, and reports
    /// what it found. Damage is never thrown: each failed check becomes a
    /// ``StoreVerificationReport/Problem`` naming the version (and value), and checking goes
    /// on to report all it can.
    ///
    /// First the version log is read again (versions other processes added are checked
    /// too; records whose predecessors never appeared are reported). Then, predecessors
    /// first, each version's changes relative to its first predecessor are checked — the
    /// map nodes that differ (each checked against its hash), the data of every value it
    /// stored (their sizes must add up to its recorded `valueDataSize`), and every reference
    /// it took from elsewhere (stored by one of its ancestors, data readable); a root
    /// version's whole map is read. Finally each head's whole map is read: every reference
    /// must be stored by the head or an ancestor and its data readable, and the number of
    /// values must be the one the head's record gives. Each distinct value data record is
    /// read once per run, so the cost is
    /// about that of reading every map node and value once — not of listing every version's
    /// map.
    ///
    /// What a checksum protects is checked: the file backend's packs carry a SHA-256, so any
    /// damaged byte of a pack is found, and map nodes are addressed by their hash on every
    /// backend. Then the storage's full check runs (`StoreZones.checkStoredBytes`): every
    /// SQLite row carries a checksum and SQLite's structure check runs; every file pack is
    /// read and every log segment must end with a whole record. What it finds that reading
    /// the versions did not (damage no version refers to) is reported too, once, except a
    /// pack segment's unfinished final pack of a version the store does not hold: a writer
    /// killed during its write leaves one, and no acknowledged version can be in it.
    /// Reads go through this store object's zone caches (the file backend keeps packs it
    /// read or wrote in memory); open a new `Store` on the directory to check what is on disk
    /// now. Versions added while the check runs are not checked.
    ///
    /// - Parameter progress: Called with the number of versions checked so far and the
    ///   number to check: after each version but the last, then `(total, total)` once the
    ///   heads are checked too (also for an empty store, as `(0, 0)`).
    /// - Returns: The report; ``StoreVerificationReport/isIntact`` when nothing was found.
    ///   Throws nothing: damage, and a version log that cannot be read again, are problems
    ///   of the report.
    public func verify(progress: (_ versionsChecked: Int, _ versionCount: Int) -> Void = { _, _ in }) -> StoreVerificationReport {
        var reloadProblem: String?
        do {
            try engine.reload()
        } catch {
            reloadProblem = error.description
        }
        let state = engine.state.withLock { $0 }
        let (history, deferred) = (state.history, state.deferred)
        var verifier = StoreVerifier(state: state, zones: engine.zones)
        if let reloadProblem { verifier.record(reloadProblem) }
        for (id, record) in deferred.sorted(by: { $0.key < $1.key }) {
            let missing = record.version.predecessorIds.filter { !history.contains($0) }
            verifier.record(VerificationFinding.unloadedVersion(missingPredecessors: missing).description, version: id)
        }

        let total = history.count
        let order: [Version.ID]
        do {
            order = try history.versions(reachableFrom: history.headIdentifiers, excludingAncestorsOf: [])
        } catch {
            verifier.record("\(error)")
            order = []
        }
        for (offset, id) in order.enumerated() {
            if let version = history.version(identifiedBy: id) { verifier.check(version) }
            if offset + 1 < total { progress(offset + 1, total) }
        }
        for head in history.headIdentifiers.sorted() {
            verifier.checkHead(head)
        }
        // What the storage's full check found that reading the versions did not (rows or
        // packs no version refers to, a log segment's damaged last record).
        // A pack segment's unfinished final pack of a version the store does not hold is
        // what a writer killed during its write leaves, not damage.
        let reported = verifier.report.problems.map(\.reason)
        for damage in engine.zones.checkStoredBytes?() ?? [] where !reported.contains(where: { $0.contains(damage.reason) }) {
            if damage.isUnfinishedFinalPack, !(damage.version.map { history.contains(Version.ID(rawValue: $0)) } ?? false) { continue }
            verifier.record(damage.reason, version: damage.version.map(Version.ID.init(rawValue:)),
                            value: damage.valueId.map(Value.ID.init(rawValue:)))
        }
        progress(total, total)
        return verifier.report
    }
}
