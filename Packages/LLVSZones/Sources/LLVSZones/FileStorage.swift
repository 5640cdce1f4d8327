import Foundation
import LLVSCore

/// The default storage: everything in files under the store's root directory
/// (SPEC.md, "File storage").
///
/// ```
/// <root>/llvs-store.json                     {"format":"llvs-file-store","formatVersion":4}
/// <root>/packs/<random>.seg                  value data, map nodes and version records: a segment per writer
/// <root>/versions/<random>.log               (formats 1 to 3, and restored snapshots) version records
/// <root>/values/segments/<random>.seg        (format 2, and restored snapshots) one zone's packs
/// <root>/maps/segments/<random>.seg          likewise
/// ```
///
/// Append-only (nothing written is changed afterwards), crash-safe (a version is visible
/// only once its commit record is durable, and its packs are durable with it) and safe for
/// several processes sharing the directory. A new version costs one append, to the
/// writer's pack segment, of its value pack, its map pack and its commit record, made
/// durable with one `fdatasync`: no file is created per version. Stores of format 3 (the
/// records in a log of their own), format 2 (a segment per zone) and format 1 (a file per
/// pack, `<zone>/<shard>/<name>.pack`) are read as they are and marked format 4 when
/// opened, after which versions of LLVS that wrote those formats cannot open them.
public struct FileStorage: Storage {
    /// The name of the marker file that identifies a store directory and its format.
    public static let markerFileName = "llvs-store.json"
    /// The format this version of LLVS writes. Formats 1 (a file per pack), 2 (a pack
    /// segment per zone) and 3 (pack segments shared by the zones, beside a version log)
    /// are still read.
    public static let formatVersion = 4
    /// The default ``cacheByteLimit``: 8 MiB of packs per zone.
    public static let defaultCacheByteLimit = 8 << 20

    struct Marker: Codable, Equatable {
        var format: String
        var formatVersion: Int
        static let current = Marker(format: "llvs-file-store", formatVersion: FileStorage.formatVersion)
        static let packFiles = Marker(format: "llvs-file-store", formatVersion: 1)
        static let zoneSegments = Marker(format: "llvs-file-store", formatVersion: 2)
        static let sharedSegments = Marker(format: "llvs-file-store", formatVersion: 3)
    }

    /// How many bytes of packs each of the two zones may keep in memory (counted as the
    /// packs' bytes plus their entry tables).
    public var cacheByteLimit: Int

    /// Creates the file backend, caching up to `cacheByteLimit` bytes of packs per zone.
    public init(cacheByteLimit: Int = FileStorage.defaultCacheByteLimit) {
        self.cacheByteLimit = cacheByteLimit
    }

    /// Opens (creating if needed) the file store at `rootDirectoryURL`, with its `packs`,
    /// `values`, `maps` and `versions` directories.
    ///
    /// - Throws: ``ZoneError/unsupportedFormat(path:found:)`` when the directory holds a
    ///   store of another kind or format, ``ZoneError/io(operation:path:reason:)`` when it
    ///   cannot be created or read.
    public func makeZones(rootDirectoryURL: URL) throws -> StoreZones {
        let root = rootDirectoryURL.standardizedFileURL
        do {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        } catch {
            throw ZoneError.io(operation: "create directory", path: root.path, reason: "\(error)")
        }
        try checkOrWriteMarker(in: root)
        // The three directories are made at open, as the reference's file zones make theirs,
        // so a store that cannot be written fails here rather than at its first version.
        for name in [PackSegment.sharedDirectoryName, "values", "maps", "versions"] {
            let directory = root.appendingPathComponent(name, isDirectory: true)
            _ = try POSIXFile.createDirectory(directory)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ZoneError.io(operation: "create directory", path: directory.path, reason: "a file that is not a directory is in the way")
            }
        }
        let shared = PackSegmentAppender(directoryURL: root.appendingPathComponent(PackSegment.sharedDirectoryName, isDirectory: true),
                                         layout: .committing)
        let values = FileZone(directoryURL: root.appendingPathComponent("values", isDirectory: true), cacheByteLimit: cacheByteLimit,
                              shared: (shared, .values))
        let maps = FileZone(directoryURL: root.appendingPathComponent("maps", isDirectory: true), cacheByteLimit: cacheByteLimit,
                            shared: (shared, .maps))
        let versions = SegmentVersionLog(earlierLog: FileVersionLog(directoryURL: root.appendingPathComponent("versions", isDirectory: true)),
                                         segments: shared)
        return StoreZones(
            values: values,
            maps: maps,
            versions: versions,
            committer: FileVersionCommitter(values: values, maps: maps, shared: shared),
            checkStoredBytes: { Self.checkStoredBytes(root: root) })
    }

    private func checkOrWriteMarker(in root: URL) throws {
        let url = root.appendingPathComponent(Self.markerFileName)
        if let data = FileManager.default.contents(atPath: url.path) {
            guard let marker = try? CanonicalJSON.decode(Marker.self, from: data) else {
                throw ZoneError.unsupportedFormat(path: root.path, found: "unreadable \(Self.markerFileName)")
            }
            guard [.current, .packFiles, .zoneSegments, .sharedSegments].contains(marker) else {
                throw ZoneError.unsupportedFormat(path: root.path, found: "\(marker.format) version \(marker.formatVersion)")
            }
            guard marker != .current else { return }
            // From now on versions are committed in pack segments, which LLVS of formats 1 to
            // 3 would not see.
        }
        do {
            try POSIXFile.writeAtomically(try CanonicalJSON.encode(Marker.current), to: url)
        } catch let error as ZoneError {
            throw error
        } catch {
            throw ZoneError.io(operation: "write", path: url.path, reason: "\(error)")
        }
    }
}

/// The file backend's ``VersionCommitting``: both zones' packs and the versions' commit
/// record appended to the store's pack segment with one write, made durable with one
/// `fdatasync` (format 4; ``PackSegmentAppender/commit(_:versionRecords:)``).
struct FileVersionCommitter: VersionCommitting {
    let values: FileZone
    let maps: FileZone
    let shared: PackSegmentAppender

    func commit(values valueItems: [ZoneItem], maps mapItems: [ZoneItem], records: [Data]) throws {
        let packs = try store(values: valueItems, maps: mapItems, isPart: false, committing: !records.isEmpty)
        guard !records.isEmpty else {
            try shared.makeDurable()
            return
        }
        let (path, offsets) = try shared.commit(packs.records, versionRecords: records)
        try packs.didAppend(path, offsets)
    }

    func storeAhead(values valueItems: [ZoneItem], maps mapItems: [ZoneItem]) throws {
        _ = try store(values: valueItems, maps: mapItems, isPart: false, committing: false)
    }

    func storePart(values valueItems: [ZoneItem], maps mapItems: [ZoneItem]) throws {
        _ = try store(values: valueItems, maps: mapItems, isPart: true, committing: false)
    }

    /// The small packs of a store, still to be written with a commit record, and what to do
    /// once they are (index them in their zones).
    private struct PendingPacks {
        var records: [PackSegment.Record] = []
        var didAppend: (String, [Int]) throws -> Void = { _, _ in }
    }

    /// Appends the packs of `valueItems` and `mapItems` without `fdatasync`: a large zone's
    /// in pieces, the small ones in one write, or, when `committing`, handed back to go in
    /// the commit's write.
    private func store(values valueItems: [ZoneItem], maps mapItems: [ZoneItem], isPart: Bool, committing: Bool) throws -> PendingPacks {
        // A bulk version's packs are written in pieces, each let go before the next is
        // made, values first; a small version's two packs go in one write.
        var valuePacks: [(version: Version.ID, bytes: Data)] = []
        if FileZone.byteCount(of: valueItems) > PackSegment.largeWriteCount {
            try values.appendInPieces(valueItems, waitingForTheDisk: false, isPart: isPart)
        } else {
            valuePacks = try values.newPacks(for: valueItems, isPart: isPart)
        }
        var mapPacks: [(version: Version.ID, bytes: Data)] = []
        if FileZone.byteCount(of: mapItems) > PackSegment.largeWriteCount {
            try maps.appendInPieces(mapItems, waitingForTheDisk: false, isPart: isPart)
        } else {
            mapPacks = try maps.newPacks(for: mapItems, isPart: isPart)
        }
        // Usually one write for both zones.
        let records = valuePacks.map { PackSegment.Record(zone: .values, pack: $0.bytes) }
            + mapPacks.map { PackSegment.Record(zone: .maps, pack: $0.bytes) }
        let pending = PendingPacks(records: records) { [values, maps] path, offsets in
            try values.didAppend(valuePacks, toSegmentAt: path, offsets: Array(offsets.prefix(valuePacks.count)), caching: !isPart)
            try maps.didAppend(mapPacks, toSegmentAt: path, offsets: Array(offsets.dropFirst(valuePacks.count)), caching: !isPart)
        }
        guard !committing, !records.isEmpty else { return pending }
        let (path, offsets) = try shared.append(records, syncing: false)
        try pending.didAppend(path, offsets)
        return PendingPacks()
    }
}
