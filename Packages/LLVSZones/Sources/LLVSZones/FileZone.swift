import Foundation
import LLVSCore
import LLVSSupport

/// A zone in a directory (SPEC.md, "File storage"). Each `store` call appends its packs,
/// one per version, to a pack segment of this writer's (`PackSegment`) with one write and
/// one `fdatasync`, and never changes a pack afterwards; several processes may share the
/// directory, each appending to segments of its own. The zones of a ``FileStorage`` share
/// one segment, in the store's `packs` directory, so that a commit writes both zones' packs
/// with one sync; a zone made on its own appends to a segment in its directory.
///
/// Readers keep an index of where each version's packs lie, built from the segments'
/// record headers on first use and extended when a version is not found (another process
/// may have written it since), and keep packs in a cache bounded by bytes. Stores written
/// before segments existed (format 1) keep a pack per version in
/// `<zone>/<shard>/<name>.pack` (and `<name>~<random>.pack` for a later batch); those are
/// still read.
public final class FileZone: Zone {
    /// The zone's directory.
    public let directoryURL: URL

    private let cache: Locked<PackCache>
    private let index = Locked(SegmentIndex())
    /// Where this zone appends its packs: its store's shared segment, or one of its own.
    private let appender: PackSegmentAppender
    /// The zone byte of this zone's records in a shared segment.
    private let tag: PackSegment.ZoneTag

    /// Creates a zone in `directoryURL` (created on first write), caching up to
    /// `cacheByteLimit` bytes of packs in memory.
    public convenience init(directoryURL: URL, cacheByteLimit: Int = FileStorage.defaultCacheByteLimit) {
        self.init(directoryURL: directoryURL, cacheByteLimit: cacheByteLimit, shared: nil)
    }

    /// A zone of a file store, appending to (and reading the `tag` records of) the shared
    /// segments of `shared`'s appender; with nil, a zone with a segment of its own.
    init(directoryURL: URL, cacheByteLimit: Int, shared: (appender: PackSegmentAppender, tag: PackSegment.ZoneTag)?) {
        self.directoryURL = directoryURL
        let segmentsURL = directoryURL.appendingPathComponent(PackSegment.directoryName, isDirectory: true)
        self.segmentsURL = segmentsURL
        self.cache = Locked(PackCache(byteLimit: cacheByteLimit))
        self.appender = shared?.appender ?? PackSegmentAppender(directoryURL: segmentsURL, layout: .zone)
        self.tag = shared?.tag ?? .values
    }

    private let segmentsURL: URL

    /// Appends one pack per version group to this zone's segment, with one write and one
    /// `fdatasync` for the whole call; keys already stored for a version are skipped.
    ///
    /// - Throws: ``ZoneError`` when the segment cannot be created or written; nothing of
    ///   the call is readable then.
    /// - Complexity: O(n log n) in the number of items, plus one append and one sync.
    public func store(_ items: [ZoneItem]) throws {
        try store(items, waitingForTheDisk: true)
    }

    /// Makes every pack appended without waiting for the disk durable (one `fdatasync` of
    /// the segment written, if anything is pending).
    ///
    /// - Throws: ``ZoneError/io(operation:path:reason:)``; the segment is given up then.
    func makeDurable() throws {
        try appender.makeDurable()
    }

    /// ``store(_:)``, optionally returning before the packs are durable (``makeDurable()``
    /// then makes them so). Items of more than ``PackSegment/largeWriteCount`` bytes are
    /// appended in pieces (``appendInPieces(_:waitingForTheDisk:isPart:)``).
    func store(_ items: [ZoneItem], waitingForTheDisk: Bool) throws {
        if Self.byteCount(of: items) > PackSegment.largeWriteCount {
            try appendInPieces(items, waitingForTheDisk: waitingForTheDisk)
        } else {
            try append(try newPacks(for: items), waitingForTheDisk: waitingForTheDisk)
        }
    }

    /// Appends packs made by ``newPacks(for:isPart:)`` with one write (and, when
    /// `waitingForTheDisk`, one `fdatasync`), and indexes them (and caches them, when
    /// `caching`).
    ///
    /// - Throws: ``ZoneError`` when the segment cannot be created or written.
    func append(_ packs: [(version: Version.ID, bytes: Data)], waitingForTheDisk: Bool, caching: Bool = true) throws {
        guard !packs.isEmpty else { return }
        let (path, offsets) = try appender.append(packs.map { PackSegment.Record(zone: tag, pack: $0.bytes) }, syncing: waitingForTheDisk)
        try didAppend(packs, toSegmentAt: path, offsets: offsets, caching: caching)
    }

    /// The packs that storing `items` appends: one per version, of the keys not already
    /// stored for it (of every key, without looking, for a part of a large version: see
    /// ``VersionCommitting/storePart(values:maps:)``).
    ///
    /// - Throws: ``ZoneError`` when a version's packs cannot be read.
    func newPacks(for items: [ZoneItem], isPart: Bool = false) throws -> [(version: Version.ID, bytes: Data)] {
        try missingItems(of: items, lookingForStoredKeys: !isPart).map { (version, missing) in
            (version, PackFile.encode(version: version, keys: missing.map { items[$0].reference.key }) { items[missing[$0]].data })
        }
    }

    /// Appends the packs of a large store (a bulk import) one piece at a time: each
    /// version's new items in key order, cut into packs of about ``pieceByteCount`` bytes
    /// that hold disjoint ranges of keys, each encoded, appended without waiting for the
    /// disk and let go before the next is made, so that a million items never sit in memory
    /// as one pack. Then one `fdatasync` when `waitingForTheDisk`. Keys already stored for
    /// a version are skipped, except in a part of a large version (`isPart`: its earlier
    /// parts would have to be read back), whose packs are not cached either.
    ///
    /// - Throws: ``ZoneError`` when a version's packs cannot be read or the segment cannot
    ///   be written; the pieces appended before are unreferenced then.
    /// - Complexity: O(n log n) in the number of items; one write per piece.
    func appendInPieces(_ items: [ZoneItem], waitingForTheDisk: Bool, isPart: Bool = false) throws {
        for (version, missing) in try missingItems(of: items, lookingForStoredKeys: !isPart) {
            let keys = missing.map { items[$0].reference.key }
            // Sorted, with only the last of a repeated key: the pieces' key ranges are disjoint.
            let order = KeyOrder.positionsOfLastOccurrences(keys)
            var start = order.startIndex
            while start < order.endIndex {
                var end = start, byteCount = 0
                repeat {
                    byteCount += keys[order[end]].utf8Count + items[missing[order[end]]].data.count
                    end += 1
                } while end < order.endIndex && byteCount < Self.pieceByteCount
                let piece = order[start..<end]
                let pack = PackFile.encode(version: version, keys: piece.map { keys[$0] }) { items[missing[piece[piece.startIndex + $0]]].data }
                try append([(version, pack)], waitingForTheDisk: false, caching: !isPart)
                start = end
            }
        }
        if waitingForTheDisk { try makeDurable() }
    }

    /// About how many bytes of keys and data one piece of a large store holds.
    static let pieceByteCount = 8 << 20

    /// The bytes of data `items` hold.
    static func byteCount(of items: [ZoneItem]) -> Int {
        items.reduce(0) { $0 + $1.data.count }
    }

    /// The positions in `items` of the items not already stored, grouped by version (of
    /// every item, unless `lookingForStoredKeys`).
    ///
    /// - Throws: ``ZoneError`` when a version's packs cannot be read.
    private func missingItems(of items: [ZoneItem], lookingForStoredKeys: Bool) throws -> [(version: Version.ID, positions: [Int])] {
        var result: [(version: Version.ID, positions: [Int])] = []
        for (version, group) in ZoneItem.positionsByVersion(in: items) {
            let existing = lookingForStoredKeys ? try self.packs(of: version, lookingForLaterPacks: false) : []
            let missing = existing.isEmpty ? group : group.filter { index in !existing.contains { $0.data(for: items[index].reference.key) != nil } }
            if !missing.isEmpty { result.append((version, missing)) }
        }
        return result
    }

    /// Indexes packs this zone's writer appended to the segment at `path` (at `offsets`),
    /// and, when `caching`, keeps them at hand for reads.
    ///
    /// - Throws: ``ZoneError`` if a pack just encoded does not decode (a bug).
    func didAppend(_ packs: [(version: Version.ID, bytes: Data)], toSegmentAt path: String, offsets: [Int], caching: Bool = true) throws {
        let cacheLimit = cache.withLock { $0.byteLimit } / 8
        for ((version, bytes), offset) in zip(packs, offsets) {
            let location = index.withLock { $0.add(version, segment: path, offset: offset, count: bytes.count) }
            // Keep a new pack at hand for reads, unless it is so large that it would push
            // out most of the cache (a bulk import); such a pack is read back when needed.
            if caching, bytes.count <= cacheLimit {
                let pack = try PackFile(decoding: bytes, path: "\(path) at offset \(offset)", checkingChecksum: false)
                cache.withLock { $0.add(pack, named: location.cacheName, to: version) }
            }
        }
    }

    /// The data of each reference, or nil.
    ///
    /// - Throws: ``ZoneError`` when a pack cannot be read or is corrupt, or when a
    ///   reference is found nowhere and a segment is damaged (it may have been there).
    public func data(for references: [ZoneReference]) throws -> [Data?] {
        var results: [Data?] = []
        results.reserveCapacity(references.count)
        for reference in references {
            if let found = try packs(of: reference.version, lookingForLaterPacks: false).lazy.compactMap({ $0.data(for: reference.key) }).first {
                results.append(found)
            } else {
                // Another process may have added a later pack for this version.
                let found = try packs(of: reference.version, lookingForLaterPacks: true).lazy.compactMap { $0.data(for: reference.key) }.first
                if found == nil, let (path, reason) = index.withLock({ $0.damage.min { $0.key < $1.key } }) {
                    throw ZoneError.corrupt(path: path, reason: reason)
                }
                results.append(found)
            }
        }
        return results
    }

    /// Where the packs of `version` lie in this zone's segments (file path, byte offset and
    /// length of each), for tools and tests that examine a store's files. Packs written
    /// before segments existed are separate files and are not listed.
    ///
    /// - Throws: ``ZoneError`` when a segment cannot be read.
    public func segmentLocations(of version: Version.ID) throws -> [(path: String, offset: Int, count: Int)] {
        try refreshIndex()
        return index.withLock { index in
            index.locations(of: version).map { location in (index.segmentPaths[Int(location.segment)], location.offset, location.count) }
        }
    }

    /// Whether this zone holds a pack with exactly `pack`'s bytes (restoring a snapshot
    /// twice adds nothing).
    ///
    /// - Throws: ``ZoneError`` when a pack cannot be read.
    func holdsPack(identicalTo pack: PackFile) throws -> Bool {
        try packs(of: pack.version, lookingForLaterPacks: true).contains { $0.bytes == pack.bytes }
    }

    // MARK: Packs on disk

    /// Reads the records appended to segments since the last scan (all of them the first
    /// time), by this process's other zone objects or other processes: the zone's own
    /// segments (format 2 and restored snapshots), then the shared ones.
    private func refreshIndex() throws {
        let zone = directoryURL
        try index.withLock { index in
            if !index.isLoaded {
                index.hasLegacyPacks = ((try? FileManager.default.contentsOfDirectory(atPath: zone.path)) ?? [])
                    .contains { $0 != PackSegment.directoryName && !$0.hasPrefix(".") }
                index.isLoaded = true
            }
            try scanSegments(in: segmentsURL, layout: .zone, into: &index)
            if appender.layout.tagsZones {
                try scanSegments(in: appender.directoryURL, layout: .shared, into: &index)
            }
        }
    }

    /// Scans the segments in `directory` (except those this zone's appender wrote, whose
    /// packs are indexed as written) from where the last scan stopped, adding this zone's
    /// records.
    private func scanSegments(in directory: URL, layout: PackSegment.Layout, into index: inout SegmentIndex) throws {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names.sorted() where PackSegment.isSegmentName(name) {
            let path = directory.appendingPathComponent(name).path
            guard !appender.wrote(path) else { continue }
            let scanned = try PackSegment.scan(path: path, from: index.scannedTo[path] ?? 0, layout: layout, zone: tag)
            for entry in scanned.entries {
                index.add(entry.version, segment: path, offset: entry.offset, count: entry.count)
            }
            index.scannedTo[path] = scanned.end
            if let damage = scanned.damage, index.damage[path] == nil { index.damage[path] = damage }
        }
    }

    /// The packs of `version`: from the cache, or read from disk. With
    /// `lookingForLaterPacks`, the segments are scanned for records written since the last
    /// scan, and a format-1 zone's shard is listed for later pack files.
    private func packs(of version: Version.ID, lookingForLaterPacks: Bool) throws -> [PackFile] {
        if !lookingForLaterPacks, let cached = cache.withLock({ $0.packs(of: version) }) {
            return cached
        }
        if lookingForLaterPacks || !index.withLock({ $0.isLoaded }) { try refreshIndex() }
        let (locations, hasLegacyPacks, paths) = index.withLock { index in
            (index.locations(of: version), index.hasLegacyPacks, index.segmentPaths)
        }
        let known = cache.withLock { $0.packNames(of: version) }
        if hasLegacyPacks {
            let shard = directoryURL.appendingPathComponent(FileNaming.shardName(for: version), isDirectory: true)
            let name = FileNaming.directoryName(for: version)
            var fileNames = ["\(name).pack"]
            if lookingForLaterPacks { fileNames += try laterPackNames(in: shard, baseName: name) }
            for fileName in fileNames where !known.contains(fileName) {
                let url = shard.appendingPathComponent(fileName)
                guard let bytes = try Self.contents(of: url) else { continue }
                try cacheIfOfVersion(try PackFile(decoding: bytes, path: url.path), named: fileName, version: version)
            }
        }
        for location in locations where !known.contains(location.cacheName) {
            let path = paths[Int(location.segment)]
            let bytes = try PackSegment.readPack(path: path, offset: location.offset, count: location.count)
            guard bytes.count == location.count else {
                throw ZoneError.corrupt(path: path, reason: "the pack at offset \(location.offset) is cut short")
            }
            try cacheIfOfVersion(try PackFile(decoding: bytes, path: "\(path) at offset \(location.offset)"), named: location.cacheName, version: version)
        }
        return cache.withLock { $0.markScanned(version) }
    }

    /// Caches `pack` among the packs of `version`, if it is one of them (file names can
    /// coincide on case-insensitive file systems).
    private func cacheIfOfVersion(_ pack: PackFile, named name: String, version: Version.ID) throws {
        guard pack.version == version else { return }
        cache.withLock { $0.add(pack, named: name, to: version) }
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

/// Where each version's packs lie in a zone's segments (named by their paths).
struct SegmentIndex: Sendable {
    /// A pack's place: segment number (into ``segmentPaths``), offset and length.
    struct Location: Sendable, Hashable {
        var segment: Int32
        var offset: Int
        var count: Int
        /// The pack's name in the ``PackCache``.
        var cacheName: String { "\(segment)@\(offset)" }
    }

    var isLoaded = false
    /// Whether the zone holds format-1 pack files (written before segments).
    var hasLegacyPacks = false
    var segmentPaths: [String] = []
    private var numbers: [String: Int32] = [:]
    /// How far each other writer's segment has been scanned.
    var scannedTo: [String: Int] = [:]
    /// Segments whose scan stopped at a damaged record, with why.
    var damage: [String: String] = [:]
    /// The first pack of each version; the rare later ones in ``laterLocations``.
    private var firstLocations: [Version.ID: Location] = [:]
    private var laterLocations: [Version.ID: [Location]] = [:]

    /// The packs of `version`, first written first.
    func locations(of version: Version.ID) -> [Location] {
        guard let first = firstLocations[version] else { return [] }
        return [first] + (laterLocations[version] ?? [])
    }

    /// Records a pack of `version` in the segment at `path` and returns its location.
    @discardableResult
    mutating func add(_ version: Version.ID, segment path: String, offset: Int, count: Int) -> Location {
        let number: Int32
        if let known = numbers[path] {
            number = known
        } else {
            number = Int32(truncatingIfNeeded: segmentPaths.count)
            segmentPaths.append(path)
            numbers[path] = number
        }
        let location = Location(segment: number, offset: offset, count: count)
        if firstLocations[version] == nil {
            firstLocations[version] = location
        } else {
            laterLocations[version, default: []].append(location)
        }
        return location
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
        entry.bytes += pack.residentByteCount
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
