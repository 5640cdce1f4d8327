import Foundation
import LLVSCore

/// A zone in a directory: each `store` call writes one pack file per version, atomically
/// and durably, and never changes a pack afterwards (SPEC.md, "File storage").
///
/// A version's first pack is `<zone>/<shard>/<name>.pack`; a later batch for the same
/// version (rare: a write retried after a crash, or two processes adding the same version)
/// goes to `<name>~<random>.pack` beside it. Packs are created with a hard link, which
/// cannot replace a file another process created first. Reads open the first pack directly
/// and keep packs in a bounded in-memory cache; only a key missing from the known packs
/// makes the zone look for later ones. Several processes may share the directory.
public final class FileZone: Zone {
    /// The zone's directory.
    public let directoryURL: URL

    private let cache: Locked<PackCache>
    /// The shard directories known to exist (the zone directory exists once one does).
    private let createdShards = Locked(Set<String>())

    /// Creates a zone in `directoryURL` (created on first write), caching up to
    /// `cacheByteLimit` bytes of pack data in memory.
    public init(directoryURL: URL, cacheByteLimit: Int = 256 << 20) {
        self.directoryURL = directoryURL
        self.cache = Locked(PackCache(byteLimit: cacheByteLimit))
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
            let existing = try packs(of: version, lookingForLaterPacks: false)
            let missing = existing.isEmpty ? group : group.filter { item in !existing.contains { $0.data(for: item.key) != nil } }
            guard !missing.isEmpty else { continue }
            let shard = try shardDirectory(for: version, creating: true)
            let name = FileNaming.directoryName(for: version)
            let bytes = PackFile.encode(version: version, items: missing)
            guard let fileName = try POSIXFile.writeAtomicallyWithoutReplacing(
                bytes, in: shard, candidates: ["\(name).pack", "\(name)~\(POSIXFile.uniqueName()).pack"])
            else {
                throw ZoneError.io(operation: "link into place", path: shard.path, reason: "every candidate pack name is taken")
            }
            // Keep a new pack at hand for reads, unless it is so large that it would push
            // out most of the cache (a bulk import); such a pack is read back when needed.
            if bytes.count <= cache.withLock({ $0.byteLimit }) / 8 {
                let pack = try PackFile(decoding: bytes, path: shard.appendingPathComponent(fileName).path)
                cache.withLock { $0.add(pack, named: fileName, to: version) }
            }
        }
    }

    /// The data of each reference, or nil.
    ///
    /// - Throws: ``ZoneError`` when a pack cannot be read or is corrupt.
    public func data(for references: [ZoneReference]) throws -> [Data?] {
        var results: [Data?] = []
        results.reserveCapacity(references.count)
        for reference in references {
            if let found = try packs(of: reference.version, lookingForLaterPacks: false).lazy.compactMap({ $0.data(for: reference.key) }).first {
                results.append(found)
            } else {
                // Another process may have added a later pack for this version.
                results.append(try packs(of: reference.version, lookingForLaterPacks: true).lazy.compactMap { $0.data(for: reference.key) }.first)
            }
        }
        return results
    }

    // MARK: Packs on disk

    private func shardDirectory(for version: Version.ID, creating: Bool) throws -> URL {
        let name = FileNaming.shardName(for: version)
        let shard = directoryURL.appendingPathComponent(name, isDirectory: true)
        if creating { try createShard(shard, named: name) }
        return shard
    }

    /// Creates the zone directory the first time anything is written, and each shard
    /// directory the first time a pack goes into it (as Git creates `objects/xx`), each
    /// made durable with a fsync of its parent. A store with few versions makes few
    /// directories.
    private func createShard(_ shard: URL, named name: String) throws {
        try createdShards.withLock { created in
            guard !created.contains(name) else { return }
            if created.isEmpty {
                try POSIXFile.createDirectory(directoryURL.deletingLastPathComponent())
                try POSIXFile.createDirectory(directoryURL)
            }
            try POSIXFile.createDirectory(shard)
            created.insert(name)
        }
    }

    /// The packs of `version`: from the cache, or read from disk. The first pack is opened
    /// by name; with `lookingForLaterPacks`, the shard is listed for later ones not yet
    /// known.
    private func packs(of version: Version.ID, lookingForLaterPacks: Bool) throws -> [PackFile] {
        if !lookingForLaterPacks, let cached = cache.withLock({ $0.packs(of: version) }) {
            return cached
        }
        let shard = try shardDirectory(for: version, creating: false)
        let name = FileNaming.directoryName(for: version)
        var names = ["\(name).pack"]
        if lookingForLaterPacks {
            names += try laterPackNames(in: shard, baseName: name)
        }
        let known = cache.withLock { $0.packNames(of: version) }
        for fileName in names where !known.contains(fileName) {
            let url = shard.appendingPathComponent(fileName)
            guard let bytes = try Self.contents(of: url) else { continue }
            let pack = try PackFile(decoding: bytes, path: url.path)
            // Names can coincide on case-insensitive file systems: keep this version's packs.
            guard pack.version == version else { continue }
            cache.withLock { $0.add(pack, named: fileName, to: version) }
        }
        return cache.withLock { $0.markScanned(version) }
    }

    private func laterPackNames(in shard: URL, baseName: String) throws -> [String] {
        guard FileManager.default.fileExists(atPath: shard.path) else { return [] }
        do {
            return try FileManager.default.contentsOfDirectory(atPath: shard.path)
                .filter { $0.hasPrefix(baseName + "~") && $0.hasSuffix(".pack") }
                .sorted()
        } catch {
            throw ZoneError.io(operation: "list", path: shard.path, reason: "\(error)")
        }
    }

    /// The whole file, or nil if it does not exist.
    private static func contents(of url: URL) throws -> Data? {
        do {
            return try Data(contentsOf: url)
        } catch CocoaError.fileReadNoSuchFile {
            return nil
        } catch {
            if !FileManager.default.fileExists(atPath: url.path) { return nil }
            throw ZoneError.io(operation: "read pack", path: url.path, reason: "\(error)")
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

    /// The packs of a version read from disk at least once, or nil.
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
        // Keep the first pack first: it is the one every reader consults first.
        if name.hasSuffix(".pack"), !name.contains("~") { entry.packs.insert(pack, at: 0) } else { entry.packs.append(pack) }
        entry.bytes += pack.bytes.count
        insert(entry, for: version)
    }

    /// Records that the version's packs were looked for on disk, returning them.
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
