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
    /// Set by a backend that can write all of a new version in one step; nil means the
    /// store writes the two zones and then the log, in that order.
    public var committer: (any VersionCommitting)?
    /// Set by a backend whose zone writes each wait for the disk and can instead wait once
    /// for a run of them (the file backend: one `fdatasync` of its shared pack segment). The
    /// store writes each version's value items and map nodes through it and waits once, and
    /// adds many versions at once with it (``BatchWriting``); nil means the store writes the
    /// two zones one after the other.
    public var batchWriting: (any BatchWriting)?
    /// Set by a backend that holds connections to release (SQLite): releases them, leaving
    /// the files complete on their own. Nil when there is nothing to release.
    public var close: (@Sendable () throws -> Void)?

    /// Set by a backend that can check every stored byte in one pass (SQLite: every row's
    /// checksum and the database's structure): reads everything stored, referenced or not,
    /// and returns what is damaged (empty when nothing is). `Store.verify` reports each.
    public var checkStoredBytes: (@Sendable () -> [StorageDamage])?

    /// Groups the parts of a store's storage.
    public init(values: any Zone, maps: any Zone, versions: any VersionLog, committer: (any VersionCommitting)? = nil,
                batchWriting: (any BatchWriting)? = nil,
                close: (@Sendable () throws -> Void)? = nil, checkStoredBytes: (@Sendable () -> [StorageDamage])? = nil) {
        self.values = values
        self.maps = maps
        self.versions = versions
        self.committer = committer
        self.batchWriting = batchWriting
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
    /// Whether this is the unfinished final pack of a pack segment: it fails its checksum
    /// or runs short, and only space never written follows it. A writer killed during its
    /// write leaves one; its version's log record is appended only after the pack is
    /// synced, so it is harmless unless that version is in the store (then reading the
    /// version finds the damage too).
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

/// A backend that writes a new version's value items, map items and log record in one
/// atomic, durable step (the SQLite backend: one transaction and one WAL sync instead of
/// three).
public protocol VersionCommitting: Sendable {
    /// Stores `values` and `maps` in their zones, with the semantics of ``Zone/store(_:)``,
    /// and appends `record` to the version log: all of it, or none of it.
    ///
    /// - Throws: ``ZoneError`` when the step fails; then nothing of it is visible.
    func commitVersion(values: [ZoneItem], maps: [ZoneItem], record: Data) throws

    /// Stores one part of a large version ahead of the ``commitVersion(values:maps:record:)``
    /// that logs it, with the semantics of ``Zone/store(_:)``; unreferenced until then. The
    /// backend may leave work the parts cause to that commit (SQLite copies its write-ahead
    /// log into the database once, after the commit, not after each part).
    ///
    /// - Throws: ``ZoneError`` when the part cannot be stored; then nothing of it is visible.
    func storePart(values: [ZoneItem], maps: [ZoneItem]) throws
}

/// Zone writes that need not be durable one by one: a run of versions is stored with
/// ``storeWithoutWaiting(values:maps:)``, then made durable together with
/// ``makeDurable()``, before their records are appended to the log. Readers of this process
/// see the items at once; a crash before ``makeDurable()`` returns may lose them, which is
/// harmless as long as no record refers to them yet.
public protocol BatchWriting: Sendable {
    /// Stores items in the two zones with the semantics of ``Zone/store(_:)``, except that
    /// they need not be durable yet.
    ///
    /// - Throws: ``ZoneError`` when the items cannot be written.
    func storeWithoutWaiting(values: [ZoneItem], maps: [ZoneItem]) throws

    /// Stores one part of a large version written in several parts ahead of its record,
    /// as ``storeWithoutWaiting(values:maps:)`` does, except that the zones do not look
    /// for keys of that version stored before. The writer guarantees that no log record
    /// refers to the version yet and that no key repeats across its parts; looking would
    /// mean reading the earlier parts back. The parts are not kept in a cache for reads.
    ///
    /// - Throws: ``ZoneError`` when the items cannot be written.
    func storePartWithoutWaiting(values: [ZoneItem], maps: [ZoneItem]) throws

    /// Makes every item stored with ``storeWithoutWaiting(values:maps:)`` durable.
    ///
    /// - Throws: ``ZoneError`` when the disk reports a failure; then none of those items
    ///   may be relied on.
    func makeDurable() throws
}
