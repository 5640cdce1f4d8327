import Foundation
import LLVSCore

/// The version log of a file store of format 4 (SPEC.md, "Version log"): the commit records
/// of the store's committing pack segments (``PackSegment/Layout/committing``), after the
/// records of the version log segments that earlier formats wrote in `<root>/versions/`,
/// which are still read. A version's packs and its record reach the disk with one write and
/// one `fdatasync`. Each segment's commit index (``PackSegment/CommitIndex``) gives the
/// records of its commits without reading the packs between them; what the index lacks is
/// read from the segment.
final class SegmentVersionLog: VersionLog {
    /// The log segments of formats 1 to 3, read only.
    let earlierLog: FileVersionLog
    /// The store's pack segments, where this log appends.
    let segments: PackSegmentAppender

    /// The prefix of a pack segment's position in a ``VersionLogCursor`` (the earlier log's
    /// segments are named bare).
    static let cursorPrefix = "packs/"

    init(earlierLog: FileVersionLog, segments: PackSegmentAppender) {
        self.earlierLog = earlierLog
        self.segments = segments
    }

    /// Appends a commit record of `records` to this writer's pack segment, making it and the
    /// packs appended before it durable with one `fdatasync`.
    ///
    /// - Throws: ``ZoneError/io(operation:path:reason:)`` when the segment cannot be written.
    func append(_ records: [Data]) throws {
        guard !records.isEmpty else { return }
        _ = try segments.commit([], versionRecords: records)
    }

    /// The records of the earlier log's segments, then those of each pack segment's commit
    /// records, after `cursor`.
    ///
    /// - Throws: ``ZoneError`` when a segment cannot be read, or holds a damaged record that
    ///   is not its torn final write.
    func records(after cursor: VersionLogCursor) throws -> (records: [Data], cursor: VersionLogCursor) {
        let (records, next) = try earlierLog.records(after: cursor)
        return try Self.commitRecords(inSegmentsAt: segments.directoryURL, after: next, adding: records)
    }

    /// `records` followed by the version records of the commit records in the pack segments
    /// of `directory` after `cursor`, and the cursor past them.
    ///
    /// - Throws: ``ZoneError`` when a segment cannot be read, or holds a damaged record that
    ///   is not its torn final write.
    static func commitRecords(inSegmentsAt directory: URL, after cursor: VersionLogCursor,
                              adding records: [Data] = []) throws -> (records: [Data], cursor: VersionLogCursor) {
        var (records, next) = (records, cursor)
        guard FileManager.default.fileExists(atPath: directory.path) else { return (records, next) }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter(PackSegment.isSegmentName).sorted()
        } catch {
            throw ZoneError.io(operation: "list", path: directory.path, reason: "\(error)")
        }
        for name in names {
            let key = cursorPrefix + name
            let indexKey = key + PackSegment.CommitIndex.fileSuffix
            let path = directory.appendingPathComponent(name).path
            // What the segment's commit index holds, then the rest from the segment itself.
            var position = cursor.positions[key] ?? 0
            let indexPath = path + PackSegment.CommitIndex.fileSuffix
            if FileManager.default.fileExists(atPath: indexPath) {
                let start = max(position, PackSegment.Layout.committing.magic.count)
                let indexed = PackSegment.CommitIndex.records(indexPath: indexPath, from: cursor.positions[indexKey] ?? 0, position: start)
                records += indexed.records
                if indexed.position > start { position = indexed.position }
                next.positions[indexKey] = indexed.indexEnd
            }
            let scan = try PackSegment.scanCommits(path: path, from: position)
            records += scan.records
            next.positions[key] = scan.end
        }
        return (records, next)
    }
}
