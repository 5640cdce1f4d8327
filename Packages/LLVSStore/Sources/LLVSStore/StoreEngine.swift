import Foundation
import LLVSCore
import LLVSHistory
import LLVSMap
import LLVSSupport
import LLVSZones

/// The state one opened store shares between its `Store` and that store's merge views:
/// storage, the map index, and the in-memory history with each version's map root.
final class StoreEngine: Sendable {
    struct State: Sendable {
        var history = History()
        /// The map root of each version, by its position in the history (nil for an empty
        /// map): an array beside the history rather than a dictionary keyed by identifier,
        /// which would hold a second copy of every identifier and twice the slots.
        private(set) var roots: [NodeReference?] = []
        /// Records read from the log whose predecessors are not known yet (another writer's
        /// record can be read before the record it builds on); retried on every reload.
        var deferred: [Version.ID: VersionRecord] = [:]
    }

    let zones: StoreZones
    let map: Map
    let state = Locked(State())
    /// Value data read recently (half the store's cache budget at most).
    let valueCache: Locked<ValueDataCache>
    /// The map roots of versions read lately, under a lock of their own, so that reads at a
    /// version do not take the state lock a commit takes.
    let readRoots = RecentRoots()
    /// The log position read so far; its lock also serializes reloads.
    private let cursor = Locked(VersionLogCursor.start)
    /// Held by each commit, and by a batch for its whole run (``addInBatch(_:)``), so that
    /// no version is logged while a batch's versions are in the history but not yet in the
    /// log (a version built on one of them would be logged before its predecessor).
    /// (A bare lock: a `Locked<Void>` made the thread sanitizer report a Swift access race on
    /// its empty state.)
    private let commitGate = NSLock()

    /// The records of a batch's versions, appended to the log when the batch ends.
    final class Batch: @unchecked Sendable {
        // Unchecked: used by one thread, the one running the batch, under the commit gate.
        var records: [Data] = []
    }

    /// About how many bytes of heap the caches may hold (half for map nodes, half for values).
    let cacheByteLimit: Int
    /// About how many bytes of a large version's items or map nodes are stored in one part
    /// ahead of its commit (``VersionWriter``).
    let partByteCount: Int

    init(zones: StoreZones, cacheByteLimit: Int = Store.defaultCacheByteLimit, partByteCount: Int = VersionWriter.partByteCount) throws(StoreError) {
        self.zones = zones
        self.cacheByteLimit = cacheByteLimit
        self.partByteCount = partByteCount
        self.map = Map(zone: zones.maps, cacheByteLimit: cacheByteLimit / 2)
        self.valueCache = Locked(ValueDataCache(byteLimit: cacheByteLimit / 2))
        try reload()
    }

    /// Reads the records appended to the log since the last reload — by this process or any
    /// other — and adds their versions to the history.
    func reload() throws(StoreError) {
        try cursor.withLock { (cursor) throws(StoreError) in
            let (decoded, next) = try decodedRecords(after: cursor)
            try state.withLock { (state) throws(StoreError) in try state.integrate(decoded) }
            cursor = next
        }
    }

    /// Stores a new version's value items and map nodes, then appends its record and adds
    /// it to the history, unless a version with its identifier is already there. Returns
    /// whether it was added.
    ///
    /// The one commit path of every backend: the backend's committer writes the items and
    /// the record with the log-cursor lock held (so no reload reads the record before the
    /// history has it), never the state lock, so readers do not wait for the disk.
    func commit(_ record: VersionRecord, values: [ZoneItem] = [], mapUpdate: MapUpdate? = nil, batch: Batch? = nil) throws(StoreError) -> Bool {
        if let batch { return try commit(record, values: values, mapUpdate: mapUpdate, into: batch) }
        commitGate.lock()
        defer { commitGate.unlock() }
        let added = try cursor.withLock { (_) throws(StoreError) -> Bool in
            guard try state.withLock({ (state) throws(StoreError) in try state.accepts(record.version) }) else { return false }
            try StoreError.wrapping { try zones.committer.commit(values: values, maps: mapUpdate?.zoneItems ?? [], records: [record.encoded()]) }
            try state.withLock { (state) throws(StoreError) in try state.add(record) }
            return true
        }
        if added, let mapUpdate { map.remember(mapUpdate) }
        return added
    }

    /// Runs `body`, which commits versions with the batch it is given: their items are
    /// stored ahead without waiting for the disk and their records kept back; then one
    /// commit makes the items durable and appends the records. Other commits wait
    /// meanwhile. If the end fails, the history is read again from the log, so that it
    /// holds none of the batch's versions.
    ///
    /// - Throws: What `body` throws, or the storage's error at the end.
    func addInBatch<T>(_ body: (Batch) throws(StoreError) -> T) throws(StoreError) -> T {
        commitGate.lock()
        defer { commitGate.unlock() }
        let batch = Batch()
        let result: T
        do throws(StoreError) {
            result = try body(batch)
            if !batch.records.isEmpty {
                try cursor.withLock { (_) throws(StoreError) in
                    try StoreError.wrapping { try zones.committer.commit(values: [], maps: [], records: batch.records) }
                }
            }
        } catch {
            if !batch.records.isEmpty { try rereadHistory() }
            throw error
        }
        return result
    }

    /// The records of the log after `cursor`, decoded, and the cursor past them.
    private func decodedRecords(after cursor: VersionLogCursor) throws(StoreError) -> (DecodedRecords, VersionLogCursor) {
        let (records, next) = try StoreError.wrapping { try zones.versions.records(after: cursor) }
        return (try DecodedRecords(decoding: records), next)
    }

    /// Forgets the history and reads it again from the log (after a batch whose versions
    /// were added to the history but not logged).
    private func rereadHistory() throws(StoreError) {
        try cursor.withLock { (cursor) throws(StoreError) in
            let (decoded, next) = try decodedRecords(after: .start)
            var fresh = State()
            try fresh.integrate(decoded)
            state.withLock { $0 = fresh }
            readRoots.forgetAll()
            cursor = next
        }
    }

    /// A commit of a batch: items stored ahead, the version added to the history, its
    /// record kept for the end of the batch.
    private func commit(_ record: VersionRecord, values: [ZoneItem], mapUpdate: MapUpdate?, into batch: Batch) throws(StoreError) -> Bool {
        guard try state.withLock({ (state) throws(StoreError) in try state.accepts(record.version) }) else { return false }
        try StoreError.wrapping { try zones.committer.storeAhead(values: values, maps: mapUpdate?.zoneItems ?? []) }
        let added = try state.withLock { (state) throws(StoreError) -> Bool in
            guard try state.accepts(record.version) else { return false }
            try state.add(record)
            return true
        }
        if added {
            batch.records.append(record.encoded())
            if let mapUpdate { map.remember(mapUpdate) }
        }
        return added
    }
}

extension StoreEngine {
    /// Stores one part of a large version's value items or map nodes ahead of its commit,
    /// which makes them durable before the record is logged (``VersionCommitting/storePart(values:maps:)``).
    /// Until the record is appended they are unreferenced.
    ///
    /// - Throws: ``StoreError`` wrapping the storage's error.
    func storePart(values: [ZoneItem], maps: [ZoneItem]) throws(StoreError) {
        try StoreError.wrapping { try zones.committer.storePart(values: values, maps: maps) }
    }
}

/// Where the parts of a parallel decoding put their records: the storage of two arrays being
/// made, each part initializing its own range of indices.
private struct DecodingDestination: @unchecked Sendable {
    // Unchecked: the parts write disjoint ranges, and the arrays are not used until every
    // part has finished.
    let versions: UnsafeMutableBufferPointer<Version>
    let roots: UnsafeMutableBufferPointer<NodeReference?>

    func initialize(at index: Int, with record: VersionRecord) {
        versions.initializeElement(at: index, to: record.version)
        roots.initializeElement(at: index, to: record.root)
    }

    func deinitialize(_ range: Range<Int>) {
        _ = versions.extracting(range).deinitialize()
        _ = roots.extracting(range).deinitialize()
    }
}

/// Records read from the log, decoded into two arrays in log order: the versions (handed to
/// the history as they are) and their map roots.
struct DecodedRecords {
    var versions: [Version] = []
    var roots: [NodeReference?] = []

    /// Logs at least this long (opening a store) are decoded in parallel parts.
    static let parallelRecordCount = 8_192

    init() {}

    /// Decodes `records`, a long log in parts on every core.
    ///
    /// - Throws: ``StoreError/corruptVersionRecord(reason:)`` for the first record (in log
    ///   order) that does not decode.
    init(decoding records: [Data]) throws(StoreError) {
        // An empty log makes empty arrays without `unsafeUninitializedCapacity`: for a
        // capacity of 0 it writes the count of the standard library's one shared empty-array
        // storage, and stores opened on two threads at once race there (the thread sanitizer
        // failed CI on it).
        guard !records.isEmpty else { return }
        // Each part decodes straight into its range of the two arrays: parts of their own,
        // made on other threads, would be freed into those threads' heaps and stay resident.
        // Failures and decoded counts are keyed by where their part starts.
        let failures = Locked<[Int: StoreError]>([:])
        var decodedRoots: [NodeReference?] = []
        versions = [Version](unsafeUninitializedCapacity: records.count) { versionBuffer, versionCount in
            decodedRoots = [NodeReference?](unsafeUninitializedCapacity: records.count) { rootBuffer, rootCount in
                let destination = DecodingDestination(versions: versionBuffer, roots: rootBuffer)
                let decoded = Locked<[Int: Int]>([:])
                ParallelParts.forEach(in: records.count, parallelFrom: Self.parallelRecordCount) { range in
                    var index = range.lowerBound
                    do throws(StoreError) {
                        while index < range.upperBound {
                            destination.initialize(at: index, with: try VersionRecord.decode(records[index]))
                            index += 1
                        }
                    } catch {
                        failures.withLock { $0[range.lowerBound] = error }
                    }
                    decoded.withLock { $0[range.lowerBound] = index - range.lowerBound }
                }
                if failures.withLock({ $0.isEmpty }) {
                    (versionCount, rootCount) = (records.count, records.count)
                } else {
                    // Nothing is kept: release what the parts decoded.
                    for (start, count) in decoded.withLock({ $0 }) { destination.deinitialize(start..<(start + count)) }
                    (versionCount, rootCount) = (0, 0)
                }
            }
        }
        roots = decodedRoots
        if let (_, failure) = failures.withLock({ $0 }).min(by: { $0.key < $1.key }) { throw failure }
    }
}

extension StoreEngine.State {
    /// The usual case of a reload (opening a store above all): every record is new, appears
    /// once, and builds on versions known or among the records. Then they go into the history
    /// in one batch. Returns false, having changed nothing, for anything else; then
    /// ``integrate(_:)`` takes the careful path.
    private mutating func addInOneBatch(_ records: DecodedRecords) -> Bool {
        if history.isEmpty {
            // Opening a store: the versions go in as decoded, without another copy.
            guard (try? history.add(contentsOf: records.versions)) != nil else { return false }
            roots.append(contentsOf: records.roots)
            return true
        }
        let fresh = records.versions.indices.filter { !history.contains(records.versions[$0].id) }
        guard (try? history.add(contentsOf: fresh.lazy.map { records.versions[$0] })) != nil else { return false }
        roots.append(contentsOf: fresh.lazy.map { records.roots[$0] })
        return true
    }

    /// The map root of a version in the history (nil for an empty map or an unknown version).
    func root(of id: Version.ID) -> NodeReference? {
        history.position(of: id).flatMap { roots[$0] }
    }

    /// Whether `version` can be added: false if the history has it already.
    ///
    /// - Throws: ``StoreError/unknownPredecessor(_:of:)`` for a predecessor not in the history.
    func accepts(_ version: Version) throws(StoreError) -> Bool {
        guard !history.contains(version.id) else { return false }
        for predecessor in version.predecessorIds where !history.contains(predecessor) {
            throw .unknownPredecessor(predecessor, of: version.id)
        }
        return true
    }

    /// Adds a committed record's version to the history.
    mutating func add(_ record: VersionRecord) throws(StoreError) {
        try StoreError.wrapping { try history.add(record.version) }
        roots.append(record.root)
    }

    /// Adds every record whose predecessors are known (in the history or among the records),
    /// in any order; the rest wait in ``deferred``. Linear in the number of records when, as
    /// usual, none has to wait.
    mutating func integrate(_ decoded: DecodedRecords) throws(StoreError) {
        if deferred.isEmpty, addInOneBatch(decoded) { return }
        let records = zip(decoded.versions, decoded.roots).map { VersionRecord(version: $0, root: $1) }
        var pending = Array(deferred.values)
        deferred = [:]
        var pendingIds = Set(pending.map(\.version.id))
        pending.reserveCapacity(pending.count + records.count)
        for record in records where !history.contains(record.version.id) && pendingIds.insert(record.version.id).inserted {
            pending.append(record)
        }
        guard !pending.isEmpty else { return }

        // A record waits when a predecessor is neither in the history nor a pending record
        // that can be added; repeat until no more records start waiting.
        var waiting: Set<Version.ID> = []
        var changed = true
        while changed {
            changed = false
            for record in pending where !waiting.contains(record.version.id) {
                let blocked = record.version.predecessorIds.contains { predecessor in
                    !history.contains(predecessor) && (!pendingIds.contains(predecessor) || waiting.contains(predecessor))
                }
                if blocked {
                    waiting.insert(record.version.id)
                    changed = true
                }
            }
        }
        let ready = waiting.isEmpty ? pending : pending.filter { !waiting.contains($0.version.id) }
        try StoreError.wrapping { try history.add(contentsOf: ready.lazy.map(\.version)) }
        roots.append(contentsOf: ready.lazy.map(\.root))
        for record in pending where waiting.contains(record.version.id) {
            deferred[record.version.id] = record
        }
    }
}

/// The map roots of versions read lately, for reads that should not wait for the state lock
/// a commit takes (W14 of `llvs-bench`). A version's root never changes once it is in the
/// history; the only way out of the history, a batch whose end failed, forgets them all and
/// starts a new generation, so a root read from the state before that is not remembered.
final class RecentRoots: Sendable {
    /// How many roots are kept; past it, all are forgotten and the next reads fill it again.
    static let capacity = 256
    private struct Contents {
        var roots: [Version.ID: NodeReference?] = [:]
        var generation = 0
    }
    private let contents = Locked(Contents())

    /// The root of `versionId` if it was remembered (`.some(nil)` for an empty map), and
    /// the generation to pass to ``remember(_:of:generation:)`` when it was not.
    func root(of versionId: Version.ID) -> (root: NodeReference??, generation: Int) {
        contents.withLock { ($0.roots[versionId], $0.generation) }
    }

    /// Remembers the root of a version of the history, read from the state after
    /// ``root(of:)`` gave `generation`, unless the roots were forgotten since.
    func remember(_ root: NodeReference?, of versionId: Version.ID, generation: Int) {
        contents.withLock { contents in
            guard contents.generation == generation else { return }
            if contents.roots.count >= Self.capacity { contents.roots.removeAll(keepingCapacity: true) }
            contents.roots[versionId] = .some(root)
        }
    }

    /// Forgets every root (the history was read again).
    func forgetAll() {
        contents.withLock { contents in
            contents.roots.removeAll()
            contents.generation &+= 1
        }
    }
}
