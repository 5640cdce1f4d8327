import Foundation

/// A storage backend: makes the zones and the version log of a store rooted at a directory.
/// `FileStorage` (the default) keeps everything in files under that directory;
/// `MemoryStorage` keeps it in memory; an SQLite backend keeps it in one database file.
public protocol Storage: Sendable {
    /// Opens (creating if needed) the storage of the store rooted at `rootDirectoryURL`.
    ///
    /// - Throws: ``ZoneError`` when the location cannot be used, for example because it
    ///   holds a store of another format.
    func makeZones(rootDirectoryURL: URL) throws -> StoreZones
}

/// The parts of a store's storage.
public struct StoreZones: Sendable {
    /// Value data, keyed by value identifier and storing version.
    public var values: any Zone
    /// Map index nodes, keyed by node hash and storing version.
    public var maps: any Zone
    /// The version records.
    public var versions: any VersionLog
    /// Writes new versions: their value items and map nodes, then their records. Every
    /// backend has one: the one it set, or else a ``ZoneCommitter`` over the zones and log
    /// above as they are now (so a wrapper that replaces a zone is written through).
    public var committer: any VersionCommitting {
        get { backendCommitter ?? ZoneCommitter(values: values, maps: maps, versions: versions) }
        set { backendCommitter = newValue }
    }
    private var backendCommitter: (any VersionCommitting)?
    /// Set by a backend that holds connections to release (SQLite): releases them, leaving
    /// the files complete on their own. Nil when there is nothing to release.
    public var close: (@Sendable () throws -> Void)?

    /// Set by a backend that can check every stored byte in one pass (SQLite: every row's
    /// checksum and the database's structure): reads everything stored, referenced or not,
    /// and returns what is damaged (empty when nothing is). `Store.verify` reports each.
    public var checkStoredBytes: (@Sendable () -> [StorageDamage])?

    /// Groups the parts of a store's storage.
    public init(values: any Zone, maps: any Zone, versions: any VersionLog, committer: (any VersionCommitting)? = nil,
                close: (@Sendable () throws -> Void)? = nil, checkStoredBytes: (@Sendable () -> [StorageDamage])? = nil) {
        self.values = values
        self.maps = maps
        self.versions = versions
        self.backendCommitter = committer
        self.close = close
        self.checkStoredBytes = checkStoredBytes
    }
}

/// Damage found by ``StoreZones/checkStoredBytes``: a stored item or record that fails its
/// checksum, or a part of the storage that cannot be read.
public struct StorageDamage: Hashable, Sendable, CustomStringConvertible {
    /// The version that stored the damaged item or record, when it can be told.
    public var version: String?
    /// The value identifier of a damaged value item, when it can be told.
    public var valueId: String?
    /// What is wrong, naming the item, record or file.
    public var reason: String
    /// Whether this is in the unfinished final write of a pack segment: a pack or commit
    /// record that fails its checksum or runs short, with only space never written after
    /// it, or (in a committing segment) in a final write (the records after the last commit
    /// record that anything follows) that ends cut short into unwritten space, with no whole
    /// commit record at its end. A writer killed during its write leaves one; its versions
    /// were never acknowledged, so it is harmless unless its version is in the store (then
    /// reading the version finds the damage too).
    public var isUnfinishedFinalPack: Bool

    /// Creates a finding.
    public init(version: String? = nil, valueId: String? = nil, reason: String, isUnfinishedFinalPack: Bool = false) {
        self.version = version
        self.valueId = valueId
        self.reason = reason
        self.isUnfinishedFinalPack = isUnfinishedFinalPack
    }

    /// The reason.
    public var description: String { reason }
}

/// How a backend writes new versions: the one path every version takes to the disk. The
/// store calls it with its log-cursor lock held (so calls never overlap within a store),
/// never with the lock its readers take, so a commit's disk syncs never hold up a read.
///
/// A record appended by ``commit(values:maps:records:)`` makes its version visible, so the
/// items that version refers to must be durable before, or together with, its record.
/// Items stored ahead of a commit (``storePart(values:maps:)``,
/// ``storeAhead(values:maps:)``) stay unreferenced until it.
public protocol VersionCommitting: Sendable {
    /// Stores `values` and `maps` in their zones, with the semantics of ``Zone/store(_:)``,
    /// makes them and every item stored ahead since the last commit durable, and then
    /// appends `records` to the version log, durably. A crash may leave the items without
    /// the records, never a record without its items. `records` may be empty (then only the
    /// items are made durable), and so may the items (a batch's end).
    ///
    /// - Throws: ``ZoneError`` when the step fails; then no record of it is visible.
    func commit(values: [ZoneItem], maps: [ZoneItem], records: [Data]) throws

    /// Stores one part of a large version ahead of the commit that logs it, with the
    /// semantics of ``Zone/store(_:)`` except that the zones need not look for keys of that
    /// version stored before: the writer guarantees that no record refers to the version
    /// yet and that no key repeats across its parts. The part need not be durable before
    /// that commit returns, nor kept in a cache for reads.
    ///
    /// - Throws: ``ZoneError`` when the part cannot be stored.
    func storePart(values: [ZoneItem], maps: [ZoneItem]) throws

    /// Stores one version's items, with the semantics of ``Zone/store(_:)``, ahead of the
    /// commit that logs it with others (a batch of versions, ended by one commit). Readers
    /// of this process see the items at once; they need not be durable before that commit
    /// returns.
    ///
    /// - Throws: ``ZoneError`` when the items cannot be stored.
    func storeAhead(values: [ZoneItem], maps: [ZoneItem]) throws
}

extension VersionCommitting {
    /// Commits one version: its items and its record (``commit(values:maps:records:)``).
    ///
    /// - Throws: ``ZoneError`` when the step fails; then its record is not visible.
    public func commitVersion(values: [ZoneItem], maps: [ZoneItem], record: Data) throws {
        try commit(values: values, maps: maps, records: [record])
    }
}

/// The committer of a backend that brings only its zones and log (memory, or one of your
/// own): stores the values, then the map nodes, each durably as their zone stores, then
/// appends the records.
public struct ZoneCommitter: VersionCommitting {
    /// Where value data goes.
    public let values: any Zone
    /// Where map nodes go.
    public let maps: any Zone
    /// Where the records go.
    public let versions: any VersionLog

    /// A committer writing to these zones and this log.
    public init(values: any Zone, maps: any Zone, versions: any VersionLog) {
        self.values = values
        self.maps = maps
        self.versions = versions
    }

    /// Stores the items in their zones, then appends the records.
    ///
    /// - Throws: The zones' or the log's ``ZoneError``.
    public func commit(values valueItems: [ZoneItem], maps mapItems: [ZoneItem], records: [Data]) throws {
        try storeAhead(values: valueItems, maps: mapItems)
        if !records.isEmpty { try versions.append(records) }
    }

    /// Stores the items in their zones.
    ///
    /// - Throws: The zones' ``ZoneError``.
    public func storePart(values valueItems: [ZoneItem], maps mapItems: [ZoneItem]) throws {
        try storeAhead(values: valueItems, maps: mapItems)
    }

    /// Stores the items in their zones.
    ///
    /// - Throws: The zones' ``ZoneError``.
    public func storeAhead(values valueItems: [ZoneItem], maps mapItems: [ZoneItem]) throws {
        if !valueItems.isEmpty { try values.store(valueItems) }
        if !mapItems.isEmpty { try maps.store(mapItems) }
    }
}
