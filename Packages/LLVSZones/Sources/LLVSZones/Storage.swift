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

    /// Groups the parts of a store's storage.
    public init(values: any Zone, maps: any Zone, versions: any VersionLog) {
        self.values = values
        self.maps = maps
        self.versions = versions
    }
}
