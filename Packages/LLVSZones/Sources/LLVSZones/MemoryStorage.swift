import LLVSCore
import Foundation
import LLVSSupport

/// Keeps stores in memory: nothing touches the disk, and everything is gone when the
/// `MemoryStorage` instance is released. Opening the same root directory URL twice with
/// one instance opens the same store, so tests can "reopen" a memory store.
public final class MemoryStorage: Storage {
    private let stores = Locked<[String: StoreZones]>([:])

    /// Creates an empty in-memory backend.
    public init() {}

    /// The zones of the store at `rootDirectoryURL`, created empty on first use.
    public func makeZones(rootDirectoryURL: URL) throws -> StoreZones {
        let key = rootDirectoryURL.standardizedFileURL.path
        return stores.withLock { stores in
            if let existing = stores[key] { return existing }
            let zones = StoreZones(values: MemoryZone(), maps: MemoryZone(), versions: MemoryVersionLog())
            stores[key] = zones
            return zones
        }
    }
}

/// A zone in memory: each version's items in runs sorted by key, guarded by a mutex. A
/// version's items take about 40 bytes each beside their data (a key and a reference to the
/// data), where one dictionary of every item took about 170 (a million items of one
/// version: 40 against 168 MB).
public final class MemoryZone: Zone {
    private let versions = Locked<[Version.ID: SortedRuns]>([:])

    /// Creates an empty zone.
    public init() {}

    /// Stores items; a reference that already holds data keeps it (append-only), and a
    /// reference repeated within the batch gets its last data.
    ///
    /// - Complexity: O(n log n) in the number of items, plus the lookups of their keys in
    ///   what their versions already hold.
    public func store(_ items: [ZoneItem]) throws {
        for (version, positions) in ZoneItem.positionsByVersion(in: items) {
            let keys = positions.map { items[$0].reference.key }
            // In key order, with only the last of a repeated key.
            let order = KeyOrder.positionsOfLastOccurrences(keys)
            versions.withLock { stored in
                var runs = stored.removeValue(forKey: version) ?? SortedRuns()
                runs.add(order.lazy.map { (keys[$0], items[positions[$0]].data) })
                stored[version] = runs
            }
        }
    }

    /// The data of each reference, or nil.
    public func data(for references: [ZoneReference]) throws -> [Data?] {
        versions.withLock { stored in references.map { stored[$0.version]?.data(for: $0.key) } }
    }
}

/// One version's items: runs of keys in UTF-8 byte order with their data, no key in two
/// runs. Runs are merged as they come (a run is merged into the one before it while that
/// one is at most twice as long), so a version stored piece by piece keeps O(log n) runs.
/// A large run whose keys all follow the last run's (a bulk version stored in parts in
/// ascending order) stays a run of its own instead: merging would copy, and for a moment
/// hold twice, everything stored before. Lookups skip the runs whose key range cannot hold
/// the key.
struct SortedRuns {
    private var runs: [(keys: [ZoneReference.Key], data: [Data])] = []

    /// How many runs the items are in.
    var runCount: Int { runs.count }

    /// The data of `key`, or nil.
    /// - Complexity: O(log n) per run.
    func data(for key: ZoneReference.Key) -> Data? {
        for run in runs {
            guard let first = run.keys.first, let last = run.keys.last, first <= key, key <= last else { continue }
            if let index = Self.index(of: key, in: run.keys) { return run.data[index] }
        }
        return nil
    }

    /// How many items a run must hold to stay apart from the runs before it when its keys
    /// all follow theirs.
    static let separateRunCount = 4_096

    /// Adds `items`, sorted by key without repeats, except those whose keys are held
    /// already (they keep their data).
    mutating func add(_ items: some Collection<(ZoneReference.Key, Data)>) {
        var keys: [ZoneReference.Key] = [], data: [Data] = []
        keys.reserveCapacity(items.count)
        data.reserveCapacity(items.count)
        for (key, itemData) in items where self.data(for: key) == nil {
            keys.append(key)
            data.append(itemData)
        }
        guard !keys.isEmpty else { return }
        if keys.count >= Self.separateRunCount, let last = runs.last?.keys.last, last < keys[0] {
            runs.append((keys, data))
            return
        }
        runs.append((keys, data))
        while runs.count >= 2, runs[runs.count - 2].keys.count <= 2 * runs[runs.count - 1].keys.count {
            let last = runs.removeLast()
            runs[runs.count - 1] = Self.merge(runs[runs.count - 1], last)
        }
    }

    /// Two runs of disjoint keys as one.
    private static func merge(_ a: (keys: [ZoneReference.Key], data: [Data]),
                              _ b: (keys: [ZoneReference.Key], data: [Data])) -> (keys: [ZoneReference.Key], data: [Data]) {
        var keys: [ZoneReference.Key] = [], data: [Data] = []
        keys.reserveCapacity(a.keys.count + b.keys.count)
        data.reserveCapacity(a.keys.count + b.keys.count)
        var i = 0, j = 0
        while i < a.keys.count || j < b.keys.count {
            if j == b.keys.count || (i < a.keys.count && a.keys[i] < b.keys[j]) {
                keys.append(a.keys[i])
                data.append(a.data[i])
                i += 1
            } else {
                keys.append(b.keys[j])
                data.append(b.data[j])
                j += 1
            }
        }
        return (keys, data)
    }

    private static func index(of key: ZoneReference.Key, in keys: [ZoneReference.Key]) -> Int? {
        var low = 0, high = keys.count
        while low < high {
            let middle = low + (high - low) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < keys.count && keys[low] == key ? low : nil
    }
}

/// A version log in memory: one array, read by index.
public final class MemoryVersionLog: VersionLog {
    private let records = Locked<[Data]>([])
    private static let segment = "memory"

    /// Creates an empty log.
    public init() {}

    /// Appends records.
    public func append(_ records: [Data]) throws {
        self.records.withLock { $0.append(contentsOf: records) }
    }

    /// The records after `cursor`.
    public func records(after cursor: VersionLogCursor) throws -> (records: [Data], cursor: VersionLogCursor) {
        records.withLock { all in
            let start = min(cursor.positions[Self.segment] ?? 0, all.count)
            return (Array(all[start...]), VersionLogCursor(positions: [Self.segment: all.count]))
        }
    }
}
