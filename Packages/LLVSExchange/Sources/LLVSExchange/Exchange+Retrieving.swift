import Foundation
import LLVSCore
import LLVSHistory
import LLVSStore

extension Exchange {
    /// Retrieves the versions the other side has and the store lacks, and adds them.
    ///
    /// The listing continues from the remembered cursor, and comes in parts
    /// (``retrieveVersionIdentifiers(after:inParts:)``; one part unless the exchange names
    /// versions while they are added). Versions are added in an order where every
    /// predecessor comes first, whatever order or part the other side lists them in; each
    /// part's versions are added as soon as their predecessors are, their changes fetched in
    /// batches of at most ``maximumBatchByteCount`` bytes of value data (the first batches
    /// growing from ``firstRetrieveBatchByteCount``), each batch's while the one before
    /// is added, and each batch is added with one `Store.addVersions` call (one durable write
    /// on the file backend). The cursor is remembered only once everything listed has been
    /// added, so an interrupted retrieve is simply completed by the next one (versions added
    /// already are skipped).
    ///
    /// - Parameter progress: Called after each batch, and before the first batch of the first
    ///   part and of each later part that brings versions to add; its totals grow as parts
    ///   arrive.
    /// - Returns: The identifiers of the versions added, predecessors first.
    /// - Throws: ``ExchangeError/missingPredecessors(_:)`` after adding everything else when
    ///   some versions' predecessors are nowhere; the parts' errors; the store's errors.
    @discardableResult
    public func retrieve(progress: ExchangeProgressHandler? = nil) async throws -> [Version.ID] {
        let state = ExchangeState(restorationState: restorationState)
        try await prepareToRetrieve()
        var plan = AdditionPlan()
        var seen: Set<Version.ID> = []
        var added: [Version.ID] = []
        var report = ExchangeProgress(direction: .retrieve, completedVersionCount: 0, totalVersionCount: 0,
                                      completedByteCount: 0, totalByteCount: 0)
        var isFirstPart = true
        var firstBatchByteCount: Int? = firstRetrieveBatchByteCount
        let page = try await retrieveVersionIdentifiers(after: state.cursor) { (part) in
            var missing: [Version.ID] = []
            for id in part where seen.insert(id).inserted && !store.historyIncludesVersions(identifiedBy: [id]) {
                missing.append(id)
            }
            let ready = plan.place(try await retrieveVersionsInBatches(missing), store: store)
            defer { isFirstPart = false }
            guard !ready.isEmpty || isFirstPart else { return }
            report.totalVersionCount += ready.count
            report.totalByteCount = Self.saturatingSum(report.totalByteCount, Self.estimatedBytes(ready))
            progress?(report)
            let batches = Self.batches(of: ready, byteLimit: maximumBatchByteCount, growingFrom: firstBatchByteCount, bytes: Self.estimatedBytes)
            if !ready.isEmpty { firstBatchByteCount = nil }
            try await add(batches, reporting: &report, progress: progress, added: &added)
        }

        let blocked = plan.blocked
        guard blocked.isEmpty else { throw ExchangeError.missingPredecessors(blocked) }
        let listedHere = seen.filter { store.historyIncludesVersions(identifiedBy: [$0]) }
        try rememberRemoteVersions(listedHere, forgetting: page.isCompleteListing ? state.remoteHeads : nil, cursor: .some(page.cursor))
        return added
    }

    /// Adds `batches` in order, each with one `Store.addVersions` call, fetching the changes
    /// of each while the one before is added (a pipeline of two: a failed fetch stops after
    /// the batch before it is added), and reports after each.
    private func add(_ batches: [[Version]], reporting report: inout ExchangeProgress, progress: ExchangeProgressHandler?,
                     added: inout [Version.ID]) async throws {
        var fetched = batches.isEmpty ? nil : try await additions(of: batches[0])
        for index in batches.indices {
            guard let additions = fetched else { break }
            async let next = index + 1 < batches.count ? self.additions(of: batches[index + 1]) : nil
            // One durable write for the whole batch where the backend allows it.
            for (version, wasAdded) in zip(batches[index], try store.addVersions(additions, checkingMergeIdentifiers: checksMergeIdentifiers)) {
                if wasAdded { added.append(version.id) }
                report.completedVersionCount += 1
                report.completedByteCount = Self.saturatingSum(report.completedByteCount, Self.estimatedBytes(version))
            }
            progress?(report)
            fetched = try await next
        }
    }

    /// `batch` with each version's changes, fetched in one call.
    ///
    /// - Throws: ``ExchangeError/missingValueChanges(_:)`` for a version the other side gave
    ///   no changes for; what ``retrieveValueChanges(forVersionsIdentifiedBy:)`` throws.
    private func additions(of batch: [Version]) async throws -> [(version: Version, changes: [Value.Change])] {
        let changes = try await retrieveValueChanges(forVersionsIdentifiedBy: batch.map(\.id))
        var additions: [(version: Version, changes: [Value.Change])] = []
        additions.reserveCapacity(batch.count)
        for version in batch {
            guard let versionChanges = changes[version.id] else { throw ExchangeError.missingValueChanges(version.id) }
            additions.append((version, versionChanges))
        }
        return additions
    }

    /// Fetches version records in requests of at most 1,000 identifiers and checks that
    /// every one requested came back.
    private func retrieveVersionsInBatches(_ ids: [Version.ID]) async throws -> [Version] {
        var versions: [Version] = []
        versions.reserveCapacity(ids.count)
        var start = 0
        while start < ids.count {
            let slice = Array(ids[start..<min(start + 1_000, ids.count)])
            let fetched = try await retrieveVersions(identifiedBy: slice)
            let byId = Dictionary(fetched.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            for id in slice {
                guard let version = byId[id] else { throw ExchangeError.missingVersion(id) }
                versions.append(version)
            }
            start += slice.count
        }
        return versions
    }

    /// The bytes of value data a version carries, as it declares (64 KB when it does not).
    static func estimatedBytes(_ version: Version) -> Int64 {
        max(0, version.valueDataSize ?? 65_536)
    }

    /// The declared bytes of `versions` together, at most `Int64.max`.
    static func estimatedBytes(_ versions: some Sequence<Version>) -> Int64 {
        versions.reduce(0) { saturatingSum($0, estimatedBytes($1)) }
    }

    /// `a + b`, or `Int64.max` past it. The sizes added come from the other side (any
    /// 64-bit number a peer declares), and only batch and report; they never trap.
    static func saturatingSum(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? .max : .min) : sum
    }

    /// Consecutive runs of `items`, each within `byteLimit` bytes unless a single item is
    /// larger, as few as that allows and of about equal bytes (no small run left over at the
    /// end). With `first` (below `byteLimit`), the runs grow: the first is within `first`
    /// bytes and each next one within twice the one before, up to `byteLimit`; with `last`,
    /// they shrink towards the end, the last within `last` bytes and each one before it within
    /// half as much again as the one after it. The two ends take runs by turns, the smaller
    /// limit first, so with few items both still stay small. A pipeline that works on one run while it reads the next
    /// (``send(upTo:progress:)``) then waits little for its first run, little after it has
    /// read its last, and little between: while the runs shrink, each is about as much work
    /// as reading the next one.
    ///
    /// - Complexity: O(`items.count`).
    static func batches<T>(of items: [T], byteLimit: Int, growingFrom first: Int? = nil, shrinkingTo last: Int? = nil,
                           bytes: (T) -> Int64) -> [[T]] {
        let ceiling = Int64(max(1, byteLimit))
        let sizes = items.map { max(0, bytes($0)) }
        // Each limit grows towards the middle, up to the ceiling: the front's doubles, the
        // back's grows by half (a pipeline prepares each shrinking run while it reads the
        // next, smaller one: halving them left the preparing behind at every step).
        func doubled(_ limit: Int64) -> Int64 { limit > ceiling / 2 ? ceiling : limit * 2 }
        func halfAgain(_ limit: Int64) -> Int64 { limit > ceiling - limit / 2 ? ceiling : limit + max(1, limit / 2) }
        var frontLimit = first.map { min(ceiling, Int64(max(1, $0))) } ?? ceiling
        var backLimit = last.map { min(ceiling, Int64(max(1, $0))) } ?? ceiling
        var runs: [Range<Int>] = []
        var tail: [Range<Int>] = []
        var begin = sizes.startIndex
        var end = sizes.endIndex
        var remaining = sizes.reduce(Int64(0)) { saturatingSum($0, $1) }
        // The runs that grow from the front and shrink to the back, the smaller limit's first
        // (the front's on a tie), each end taking at least one, until the next runs of the
        // ends still growing could hold what is left (the next two when only one end grows).
        while begin < end {
            let growing = frontLimit < ceiling, shrinking = backLimit < ceiling
            let reach = growing && shrinking ? saturatingSum(frontLimit, backLimit)
                : saturatingSum(growing ? frontLimit : backLimit, growing ? frontLimit : backLimit)
            guard growing || shrinking, remaining > reach || (growing && runs.isEmpty) || (shrinking && tail.isEmpty) else { break }
            var total: Int64
            if frontLimit <= backLimit {
                var stop = begin + 1
                total = sizes[begin]
                while stop < end, saturatingSum(total, sizes[stop]) <= frontLimit {
                    total = saturatingSum(total, sizes[stop])
                    stop += 1
                }
                runs.append(begin..<stop)
                begin = stop
                frontLimit = doubled(frontLimit)
            } else {
                var start = end - 1
                total = sizes[start]
                while start > begin, saturatingSum(total, sizes[start - 1]) <= backLimit {
                    start -= 1
                    total = saturatingSum(total, sizes[start])
                }
                tail.append(start..<end)
                end = start
                backLimit = halfAgain(backLimit)
            }
            remaining = max(0, remaining - total)
        }
        // Between them, runs within the back's next limit while the runs shrink (half as much
        // again as the run after them), else within the front's (twice the run before them; the
        // ceiling once both have reached it), as few as it takes, each as near as it can be to
        // an equal share of what remains: no small run is left over where the ends meet.
        let middleLimit = backLimit < ceiling ? backLimit : frontLimit
        var start = begin
        var runBytes: Int64 = 0
        for index in begin..<end {
            let size = sizes[index]
            if index > start {
                let runsLeft = max(1, remaining / middleLimit + (remaining % middleLimit == 0 ? 0 : 1))
                let share = remaining / runsLeft
                let over = saturatingSum(runBytes, size) > middleLimit
                // Taking the item moves the run further from its share than stopping here.
                let further = saturatingSum(runBytes, size) - share > share - runBytes
                if over || further {
                    runs.append(start..<index)
                    remaining = max(0, remaining - runBytes)
                    start = index
                    runBytes = 0
                }
            }
            runBytes = saturatingSum(runBytes, size)
        }
        if start < end { runs.append(start..<end) }
        return (runs + tail.reversed()).map { Array(items[$0]) }
    }

    /// Records in ``restorationState`` that `ids` (all in the store) are on the other side,
    /// and, when given, the cursor to continue from, in one step
    /// (``updateRestorationState(_:)``), so progress another task records meanwhile is kept.
    /// After a complete listing, `forgetting` names what the state remembered when the
    /// listing began: those heads are dropped (the listing replaces them), while heads
    /// another task recorded since are kept.
    func rememberRemoteVersions<S: Sequence>(_ ids: S, forgetting stale: [Version.ID]? = nil, cursor: ExchangeCursor?? = nil) throws
    where S.Element == Version.ID {
        let ids = Array(ids)
        try updateRestorationState { (data) throws in
            var state = ExchangeState(restorationState: data)
            let kept = stale.map { stale in state.remoteHeads.filter { !stale.contains($0) } } ?? state.remoteHeads
            state.remoteHeads = try rememberedRemoteHeads(kept, adding: ids, restart: false)
            if let cursor { state.cursor = cursor }
            data = state.encoded
        }
    }

    /// The heads of the versions known to be on the other side, after learning of `ids`
    /// (all in the store). `restart` drops what was remembered (a complete listing replaces it).
    func rememberedRemoteHeads<S: Sequence>(_ remembered: [Version.ID], adding ids: S, restart: Bool) throws -> [Version.ID]
    where S.Element == Version.ID {
        let known = (restart ? [] : remembered.filter { store.historyIncludesVersions(identifiedBy: [$0]) }) + Array(ids)
        return try store.queryHistory { try $0.maximalVersions(of: Set(known)) }
    }
}

/// The order in which retrieved versions are added, planned as they arrive (in parts): each
/// after its predecessors, which are in the store or among the versions retrieved. A
/// version waits until its predecessors are placed, whichever part brings them; what still
/// waits once every part has arrived is ``blocked``.
struct AdditionPlan {
    /// The versions received and not placed yet, by identifier.
    private var waiting: [Version.ID: Version] = [:]
    /// How many predecessors each waiting version still waits for.
    private var waitingCount: [Version.ID: Int] = [:]
    /// The waiting versions that wait for each identifier.
    private var dependents: [Version.ID: [Version.ID]] = [:]
    /// The versions placed so far: they are added before any version placed later.
    private var placed: Set<Version.ID> = []

    /// Receives `versions` and returns those that can now be added, each after its
    /// predecessors: the new versions whose predecessors are in the store or placed, and the
    /// waiting ones whose last missing predecessor is among them. Ties go by timestamp, then
    /// identifier; a version received twice counts once.
    ///
    /// - Complexity: O(*n* log *n* + *p*) for *n* versions with *p* predecessors in all.
    mutating func place(_ versions: [Version], store: Store) -> [Version] {
        var received: [Version] = []
        received.reserveCapacity(versions.count)
        for version in versions where !placed.contains(version.id) && waiting[version.id] == nil {
            waiting[version.id] = version
            received.append(version)
        }
        var ready: [Version.ID] = []
        for version in received.sorted(by: { ($0.timestamp, $0.id) < ($1.timestamp, $1.id) }) {
            var count = 0
            for predecessor in version.predecessorIds
            where !placed.contains(predecessor) && !store.historyIncludesVersions(identifiedBy: [predecessor]) {
                count += 1
                dependents[predecessor, default: []].append(version.id)
            }
            if count == 0 { ready.append(version.id) } else { waitingCount[version.id] = count }
        }
        // Kahn's algorithm, carried on from part to part.
        var ordered: [Version] = []
        var index = 0
        while index < ready.count {
            let id = ready[index]
            index += 1
            guard let version = waiting.removeValue(forKey: id) else { continue }
            placed.insert(id)
            ordered.append(version)
            for dependent in dependents.removeValue(forKey: id) ?? [] {
                guard let count = waitingCount[dependent] else { continue }
                if count == 1 {
                    waitingCount[dependent] = nil
                    ready.append(dependent)
                } else {
                    waitingCount[dependent] = count - 1
                }
            }
        }
        return ordered
    }

    /// The versions that could not be placed, each with what it waits for: the predecessors
    /// that are nowhere (neither in the store nor received), or else the waiting ones it
    /// depends on (or a cycle among them, which the history would reject anyway).
    var blocked: [Version.ID: [Version.ID]] {
        var blocked: [Version.ID: [Version.ID]] = [:]
        for (id, version) in waiting {
            // A version waits for a predecessor exactly while it is among the predecessor's dependents.
            let unplaced = version.predecessorIds.filter { dependents[$0]?.contains(id) == true }
            let nowhere = unplaced.filter { waiting[$0] == nil }
            blocked[id] = nowhere.isEmpty ? unplaced : nowhere
        }
        return blocked
    }
}
