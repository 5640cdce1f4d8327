import LLVSCore
import Foundation

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

/// A zone in memory: a dictionary guarded by a mutex.
public final class MemoryZone: Zone {
    private let items = Locked<[ZoneReference: Data]>([:])

    /// Creates an empty zone.
    public init() {}

    /// Stores items; a reference that already holds data keeps it (append-only), and a
    /// reference repeated within the batch gets its last data.
    public func store(_ items: [ZoneItem]) throws {
        self.items.withLock { stored in
            if stored.capacity < stored.count + items.count {
                // Grow geometrically: reserving the exact size on every batch would rehash
                // the whole dictionary each time.
                stored.reserveCapacity(max(2 * stored.count, stored.count + items.count))
            }
            // Newest first, inserting only where nothing is stored: the last item of a
            // repeated reference goes in, and data stored before this batch stays.
            for item in items.reversed() where stored[item.reference] == nil {
                stored[item.reference] = item.data
            }
        }
    }

    /// The data of each reference, or nil.
    public func data(for references: [ZoneReference]) throws -> [Data?] {
        items.withLock { stored in references.map { stored[$0] } }
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
