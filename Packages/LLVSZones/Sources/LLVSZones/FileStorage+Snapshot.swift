import Crypto
import Foundation
import LLVSCore
import LLVSSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension FileStorage: SnapshotCapable {
    /// `"llvs-file-store-archive-1"`: the archive of `SnapshotArchive`.
    public var snapshotFormat: String { "llvs-file-store-archive-1" }

    /// Writes every pack and the complete records of every log segment as one archive; the
    /// commit records of pack segments go in as one more log segment. The log is read
    /// first, so every pack a listed version needs is already in place (packs are written
    /// before records); packs of versions still being written may be included too, which is
    /// harmless.
    ///
    /// - Throws: ``ZoneError`` when a file cannot be read, or what `sink` throws.
    public func writeSnapshot(ofStoreAt rootDirectoryURL: URL, to sink: (Data) throws -> Void) throws -> SnapshotArchiveSummary {
        let root = rootDirectoryURL.standardizedFileURL
        let logDirectory = root.appendingPathComponent("versions", isDirectory: true)
        let earlierLog = FileVersionLog(directoryURL: logDirectory)
        let (earlierRecords, cursor) = try earlierLog.records(after: .start)
        let sharedSegments = root.appendingPathComponent(PackSegment.sharedDirectoryName, isDirectory: true)
        let committedRecords = try SegmentVersionLog.commitRecords(inSegmentsAt: sharedSegments, after: .start).records
        let records = earlierRecords + committedRecords
        var entryCount = 0
        var byteCount = Int64(SnapshotArchive.magic.count)
        try sink(Data(SnapshotArchive.magic))
        func emit(_ path: String, _ data: Data) throws {
            var writer = ByteWriter(capacity: data.count + path.utf8.count + 44)
            SnapshotArchive.encodeEntry(path: path, data: data, into: &writer)
            byteCount += Int64(writer.bytes.count)
            entryCount += 1
            try sink(writer.data)
        }
        for (zone, tag) in [("values", PackSegment.ZoneTag.values), ("maps", .maps)] {
            let zoneDirectory = root.appendingPathComponent(zone, isDirectory: true)
            // Packs in segments go into the archive as packs of their own, each under the
            // name a format-1 store gives it (later packs of a version numbered after it):
            // the zone's own segments first, then its records in the shared ones.
            var emittedNames: Set<String> = []
            let zoneSegments = zoneDirectory.appendingPathComponent(PackSegment.directoryName, isDirectory: true)
            let segments = try Self.listing(of: zoneSegments).filter(PackSegment.isSegmentName).map { (zoneSegments, $0, PackSegment.Layout.zone) }
                + Self.listing(of: sharedSegments).filter(PackSegment.isSegmentName).map { (sharedSegments, $0, PackSegment.Layout.shared) }
            for (directory, name, layout) in segments {
                let path = directory.appendingPathComponent(name).path
                let scan = try PackSegment.scan(path: path, from: 0, layout: layout, zone: tag)
                if let damage = scan.damage { throw ZoneError.corrupt(path: path, reason: damage) }
                for entry in scan.entries {
                    let base = "\(zone)/\(FileNaming.shardName(for: entry.version))/\(FileNaming.directoryName(for: entry.version))"
                    var archivePath = base + ".pack"
                    var number = 1
                    while !emittedNames.insert(archivePath).inserted {
                        number += 1
                        archivePath = "\(base)~\(number).pack"
                    }
                    try emit(archivePath, try PackSegment.readPack(path: path, offset: entry.offset, count: entry.count))
                }
            }
            for shard in try Self.listing(of: zoneDirectory) where SnapshotArchive.target(of: "\(zone)/\(shard)/x.pack") != nil {
                let shardDirectory = zoneDirectory.appendingPathComponent(shard, isDirectory: true)
                for name in try Self.listing(of: shardDirectory) {
                    let path = "\(zone)/\(shard)/\(name)"
                    guard SnapshotArchive.target(of: path) != nil else { continue }
                    try emit(path, try Self.contents(of: shardDirectory.appendingPathComponent(name), limit: nil))
                }
            }
        }
        for (name, end) in cursor.positions.sorted(by: { $0.key < $1.key }) where end > FileVersionLog.magic.count {
            try emit("versions/\(name)", try Self.contents(of: logDirectory.appendingPathComponent(name), limit: end))
        }
        if !committedRecords.isEmpty {
            try emit("versions/\(POSIXFile.uniqueName()).log", Data(FileVersionLog.magic) + FileVersionLog.encodeRecords(committedRecords))
        }
        let end = SnapshotArchive.encodeEnd(entryCount: entryCount)
        byteCount += Int64(end.count)
        try sink(end)
        return SnapshotArchiveSummary(versionRecordCount: records.count, entryCount: entryCount, byteCount: byteCount)
    }

    /// Reads and checks the whole archive into a staging directory inside the store (the
    /// packs of each zone appended to one new pack segment there), makes the two segments
    /// durable and moves them into place, and finally writes all version records as one new
    /// log segment, which appears atomically: either every restored version becomes visible
    /// or none does. Packs the store already holds byte for byte are skipped, so restoring
    /// an archive again adds nothing.
    ///
    /// - Throws: ``ZoneError/corrupt(path:reason:)`` naming the archive entry that is
    ///   malformed, truncated, fails its checksum or has a path outside the store layout;
    ///   what `checkRecords` throws; ``ZoneError/io(operation:path:reason:)``. The store is
    ///   untouched when either is thrown before the first segment is moved into place,
    ///   which covers every archive defect.
    /// - Complexity: One pass over the archive; three `fdatasync`s and three directory syncs.
    public func restoreSnapshot(intoStoreAt rootDirectoryURL: URL, from source: () throws -> Data?,
                                checkingRecords checkRecords: ([Data]) throws -> Void) throws -> SnapshotArchiveSummary {
        let root = rootDirectoryURL.standardizedFileURL
        let zones = try makeZones(rootDirectoryURL: root) // creates the directory and checks its marker
        let staging = root.appendingPathComponent(".snapshot-restore-\(POSIXFile.uniqueName())", isDirectory: true)
        try POSIXFile.createDirectory(staging, syncingParent: false)
        defer { try? FileManager.default.removeItem(at: staging) }

        let existing: [String: FileZone] = ["values": zones.values, "maps": zones.maps].compactMapValues { $0 as? FileZone }
        let archive = try withoutActuallyEscaping(source) { source in
            try Self.readArchive(from: PieceReader(source: source), stagingIn: staging, existing: existing)
        }
        try checkRecords(archive.records)
        for (zone, segment) in archive.segments.sorted(by: { $0.key < $1.key }) {
            try segment.finish()
            let directory = root.appendingPathComponent(zone, isDirectory: true)
                .appendingPathComponent(PackSegment.directoryName, isDirectory: true)
            try POSIXFile.createDirectory(directory)
            guard try POSIXFile.linkWithoutReplacing(segment.url, in: directory, candidates: [POSIXFile.uniqueName() + PackSegment.fileExtension]) != nil else {
                throw ZoneError.io(operation: "link into place", path: directory.path, reason: "the segment name is taken")
            }
        }
        if !archive.records.isEmpty {
            let logDirectory = root.appendingPathComponent("versions", isDirectory: true)
            try POSIXFile.createDirectory(logDirectory)
            let segment = Data(FileVersionLog.magic) + FileVersionLog.encodeRecords(archive.records)
            let file = try POSIXFile.writeTemporaryFile(segment, in: staging)
            guard try POSIXFile.linkWithoutReplacing(file, in: logDirectory, candidates: ["\(POSIXFile.uniqueName()).log"]) != nil else {
                throw ZoneError.io(operation: "link into place", path: logDirectory.path, reason: "the segment name is taken")
            }
        }
        return archive.summary
    }

    /// The checked content of an archive: a staged pack segment per zone and the version
    /// records.
    private struct StagedArchive {
        var segments: [String: PackSegment.StagingFile] = [:]
        var records: [Data] = []
        var summary = SnapshotArchiveSummary(versionRecordCount: 0, entryCount: 0, byteCount: 0)
    }

    private static func readArchive(from reader: PieceReader, stagingIn staging: URL, existing: [String: FileZone]) throws -> StagedArchive {
        var reader = reader
        var staged = StagedArchive()
        func corrupt(_ reason: String) -> ZoneError {
            .corrupt(path: "snapshot archive (entry \(staged.summary.entryCount + 1), byte \(reader.offset))", reason: reason)
        }
        guard let magic = try reader.read(SnapshotArchive.magic.count), Array(magic) == SnapshotArchive.magic else {
            throw corrupt("not an LLVS file-store snapshot archive (bad magic)")
        }
        while true {
            guard let pathLength = try reader.readInteger(byteCount: 4) else { throw corrupt("truncated: the end marker is missing") }
            if pathLength == 0 {
                guard let count = try reader.readInteger(byteCount: 8) else { throw corrupt("truncated end marker") }
                guard count == UInt64(staged.summary.entryCount) else {
                    throw corrupt("the end marker counts \(count) entries, the archive holds \(staged.summary.entryCount)")
                }
                guard try reader.isAtEnd() else { throw corrupt("bytes follow the end marker") }
                break
            }
            guard pathLength <= UInt64(SnapshotArchive.maximumPathLength) else { throw corrupt("path length \(pathLength) is too long") }
            guard let pathBytes = try reader.read(Int(pathLength)) else { throw corrupt("truncated path") }
            guard let path = String(data: pathBytes, encoding: .utf8), let target = SnapshotArchive.target(of: path) else {
                throw corrupt("path \(String(decoding: pathBytes, as: UTF8.self).debugDescription) is not a pack or log segment of a store")
            }
            guard let length = try reader.readInteger(byteCount: 8), length <= UInt64(Int32.max) * 64 else {
                throw corrupt("\(path): truncated or impossible data length")
            }
            guard let data = try reader.read(Int(length)) else { throw corrupt("\(path): truncated data") }
            guard let checksum = try reader.read(32) else { throw corrupt("\(path): truncated checksum") }
            let header = SnapshotArchive.entryHeader(path: Array(pathBytes), dataCount: data.count)
            guard Array(checksum) == SnapshotArchive.checksum(header: header, data: data) else {
                throw corrupt("\(path): the entry fails its SHA-256 checksum")
            }
            switch target {
            case .pack(let zone, _, _):
                let pack = try PackFile(decoding: data, path: "snapshot archive entry \(path)")
                if try existing[zone]?.holdsPack(identicalTo: pack) == true { break }
                if staged.segments[zone] == nil { staged.segments[zone] = try PackSegment.StagingFile(in: staging) }
                try staged.segments[zone]?.append(pack.bytes)
            case .logSegment:
                staged.records += try FileVersionLog.parseCompleteSegment(data, path: "snapshot archive entry \(path)")
            }
            staged.summary.entryCount += 1
        }
        staged.summary.versionRecordCount = staged.records.count
        staged.summary.byteCount = reader.offset
        return staged
    }

    private static func listing(of directory: URL) throws -> [String] {
        guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
        do {
            return try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") }.sorted()
        } catch {
            throw ZoneError.io(operation: "list", path: directory.path, reason: "\(error)")
        }
    }

    private static func contents(of url: URL, limit: Int?) throws -> Data {
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            throw ZoneError.io(operation: "open", path: url.path, reason: "cannot open for reading")
        }
        defer { try? handle.close() }
        do {
            let data = try (limit.map { try handle.read(upToCount: $0) } ?? handle.readToEnd()) ?? Data()
            if let limit, data.count < limit {
                throw ZoneError.corrupt(path: url.path, reason: "shorter (\(data.count) bytes) than its complete records (\(limit))")
            }
            return data
        } catch let error as ZoneError {
            throw error
        } catch {
            throw ZoneError.io(operation: "read", path: url.path, reason: "\(error)")
        }
    }
}
