import Foundation
import LLVSCore
import Synchronization

/// A zone in a directory: each `store` call writes one pack file per version
/// (`<zone>/<shard>/<version>/<random>.pack`), atomically and durably, and never changes a
/// pack afterwards. Reads binary-search packs kept in a bounded in-memory cache. Several
/// processes may write and read the same directory: packs have unique names, and a read
/// that misses rescans the version's directory for packs written since.
public final class FileZone: Zone {
    /// The zone's directory.
    public let directoryURL: URL

    private let cache: Mutex<PackCache>

    /// Creates a zone in `directoryURL` (created on first write), caching up to
    /// `cacheByteLimit` bytes of pack data in memory.
    public init(directoryURL: URL, cacheByteLimit: Int = 256 << 20) {
        self.directoryURL = directoryURL
        self.cache = Mutex(PackCache(byteLimit: cacheByteLimit))
    }

    /// Writes one pack per version group; keys already stored for the version are skipped.
    ///
    /// - Throws: ``ZoneError`` when a directory or pack cannot be written.
    public func store(_ items: [ZoneItem]) throws {
        var groups: [Version.ID: [(key: ZoneReference.Key, data: Data)]] = [:]
        for item in items {
            groups[item.reference.version, default: []].append((item.reference.key, item.data))
        }
        for (version, group) in groups {
            let existing = try packs(of: version, rescan: true)
            let missing = group.filter { item in !existing.contains { $0.data(for: item.key) != nil } }
            guard !missing.isEmpty else { continue }
            let directory = versionDirectory(version)
            try createDirectoryDurably(directory)
            let bytes = PackFile.encode(version: version, items: missing)
            let url = directory.appendingPathComponent("\(UUID().uuidString).pack")
            try POSIXFile.writeAtomically(bytes, to: url)
            let pack = try PackFile(decoding: bytes, path: url.path)
            cache.withLock { $0.add(pack, named: url.lastPathComponent, to: version) }
        }
    }

    /// The data of each reference, or nil.
    ///
    /// - Throws: ``ZoneError`` when a pack cannot be read or is corrupt.
    public func data(for references: [ZoneReference]) throws -> [Data?] {
        var results: [Data?] = []
        results.reserveCapacity(references.count)
        for reference in references {
            if let found = try packs(of: reference.version, rescan: false).lazy.compactMap({ $0.data(for: reference.key) }).first {
                results.append(found)
            } else {
                // Another process may have added a pack since the directory was scanned.
                results.append(try packs(of: reference.version, rescan: true).lazy.compactMap { $0.data(for: reference.key) }.first)
            }
        }
        return results
    }

    // MARK: Packs on disk

    private func versionDirectory(_ version: Version.ID) -> URL {
        directoryURL
            .appendingPathComponent(FileNaming.shardName(for: version), isDirectory: true)
            .appendingPathComponent(FileNaming.directoryName(for: version), isDirectory: true)
    }

    /// The packs of `version`: from the cache, or loaded from disk; with `rescan`, the
    /// directory is listed again and packs not yet known are loaded.
    private func packs(of version: Version.ID, rescan: Bool) throws -> [PackFile] {
        if !rescan, let cached = cache.withLock({ $0.packs(of: version) }) {
            return cached
        }
        let directory = versionDirectory(version)
        let names = try packNames(in: directory)
        let known = cache.withLock { $0.packNames(of: version) }
        for name in names where !known.contains(name) {
            let url = directory.appendingPathComponent(name)
            let bytes: Data
            do {
                bytes = try Data(contentsOf: url)
            } catch {
                throw ZoneError.io(operation: "read pack", path: url.path, reason: "\(error)")
            }
            let pack = try PackFile(decoding: bytes, path: url.path)
            // Directory names can coincide on case-insensitive file systems: keep only
            // this version's packs.
            guard pack.version == version else { continue }
            cache.withLock { $0.add(pack, named: name, to: version) }
        }
        return cache.withLock { $0.markScanned(version) }
    }

    private func packNames(in directory: URL) throws -> [String] {
        guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
        do {
            return try FileManager.default.contentsOfDirectory(atPath: directory.path)
                .filter { $0.hasSuffix(".pack") && !$0.hasPrefix(".") }
                .sorted()
        } catch {
            throw ZoneError.io(operation: "list", path: directory.path, reason: "\(error)")
        }
    }

    /// Creates `directory` and its parents, fsyncing each parent whose entries changed.
    private func createDirectoryDurably(_ directory: URL) throws {
        var missing: [URL] = []
        var candidate = directory
        while !FileManager.default.fileExists(atPath: candidate.path) {
            missing.append(candidate)
            candidate = candidate.deletingLastPathComponent()
        }
        guard !missing.isEmpty else { return }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw ZoneError.io(operation: "create directory", path: directory.path, reason: "\(error)")
        }
        for created in missing.reversed() {
            try POSIXFile.syncDirectory(created.deletingLastPathComponent())
        }
    }
}

/// The packs a zone has loaded, bounded by bytes: when the current generation outgrows half
/// the limit it becomes the previous one and the older generation is dropped; a version
/// found in the previous generation moves back to the current one.
struct PackCache: Sendable {
    struct VersionPacks: Sendable {
        var names: Set<String> = []
        var packs: [PackFile] = []
        var bytes: Int = 0
        var scanned = false
    }

    let byteLimit: Int
    private var current: [Version.ID: VersionPacks] = [:]
    private var previous: [Version.ID: VersionPacks] = [:]
    private var currentBytes = 0

    init(byteLimit: Int) {
        self.byteLimit = byteLimit
    }

    /// The packs of a version whose directory has been scanned, or nil.
    mutating func packs(of version: Version.ID) -> [PackFile]? {
        guard let entry = entry(of: version), entry.scanned else { return nil }
        return entry.packs
    }

    mutating func packNames(of version: Version.ID) -> Set<String> {
        entry(of: version)?.names ?? []
    }

    mutating func add(_ pack: PackFile, named name: String, to version: Version.ID) {
        var entry = self.entry(of: version) ?? VersionPacks()
        guard entry.names.insert(name).inserted else { return }
        entry.packs.append(pack)
        entry.bytes += pack.bytes.count
        insert(entry, for: version)
    }

    /// Records that the version's directory was scanned, returning its packs.
    mutating func markScanned(_ version: Version.ID) -> [PackFile] {
        var entry = self.entry(of: version) ?? VersionPacks()
        entry.scanned = true
        insert(entry, for: version)
        return entry.packs
    }

    /// The version's entry, promoted to the current generation if found in the previous one.
    private mutating func entry(of version: Version.ID) -> VersionPacks? {
        if let entry = current[version] { return entry }
        guard let entry = previous[version] else { return nil }
        insert(entry, for: version)
        return entry
    }

    /// Puts an entry in the current generation, first retiring the current generation if
    /// the entry would take it past half the byte limit.
    private mutating func insert(_ entry: VersionPacks, for version: Version.ID) {
        if let old = current.removeValue(forKey: version) { currentBytes -= old.bytes }
        if currentBytes + entry.bytes > byteLimit / 2, !current.isEmpty {
            previous = current
            current = [:]
            currentBytes = 0
        }
        previous[version] = nil
        current[version] = entry
        currentBytes += entry.bytes
    }
}
