import Foundation
import LLVSCore
import LLVSSupport

/// Where one writer appends packs: a segment of its own in a directory, created on the first
/// append and replaced after a failed one. The zones of a file store share one, in the
/// store's `packs` directory (``PackSegment/Layout/shared``, format 3), so that a version's
/// value pack and map pack reach the disk with one write and one `fdatasync`; a `FileZone`
/// made on its own has one of its own in `<zone>/segments` (``PackSegment/Layout/zone``).
///
/// The zones add the packs they append to their indexes as they append them, and never scan
/// the segments this object wrote; other writers' segments they scan.
final class PackSegmentAppender: Sendable {
    /// The directory of the segments.
    let directoryURL: URL
    /// How the segments frame their records.
    let layout: PackSegment.Layout
    private let writer = Locked<PackSegment.Writer?>(nil)
    private let writtenPaths = Locked<Set<String>>([])

    init(directoryURL: URL, layout: PackSegment.Layout) {
        self.directoryURL = directoryURL
        self.layout = layout
    }

    /// Whether this object wrote the segment at `path` (its zones never scan it).
    func wrote(_ path: String) -> Bool {
        writtenPaths.withLock { $0.contains(path) }
    }

    /// Appends `records` with one write and, when `syncing`, one `fdatasync`, creating the
    /// segment on the first write; returns the segment's path and each pack's offset.
    ///
    /// - Throws: ``ZoneError/io(operation:path:reason:)``; the next append starts a new
    ///   segment then (a failed write may leave a torn record, which must stay the last).
    func append(_ records: [PackSegment.Record], syncing: Bool) throws -> (path: String, offsets: [Int]) {
        try withWriter { current in (current.path, try current.append(records, syncing: syncing)) }
    }

    /// Appends `packs` and then a commit record of `versionRecords` (a committing segment,
    /// ``PackSegment/Layout/committing``) and makes them and every pack appended before
    /// durable: one write and one `fdatasync`. When the packs not yet committed come to more
    /// than ``PackSegment/largeWriteCount`` bytes, they are made durable first, ended by an
    /// empty commit record, so that a reader checks at most that many bytes of packs behind
    /// a segment's final commit record (``PackSegment/scanCommits(path:from:)``). Returns the
    /// segment's path and each pack's offset.
    ///
    /// - Throws: ``ZoneError/io(operation:path:reason:)``; the segment is given up then, and
    ///   no version of the call is readable.
    func commit(_ packs: [PackSegment.Record], versionRecords: [Data]) throws -> (path: String, offsets: [Int]) {
        let commitRecord = PackSegment.Record(zone: .versions, pack: PackSegment.commitBody(versionRecords))
        return try withWriter { current in
            let packBytes = packs.reduce(current.bytesSinceCommit) { $0 + current.layout.headerCount + $1.pack.count }
            if packBytes > PackSegment.largeWriteCount {
                let offsets = try current.append(packs + [PackSegment.Record(zone: .versions, pack: PackSegment.commitBody([]))], syncing: true)
                _ = try current.append([commitRecord], syncing: true)
                return (current.path, Array(offsets.dropLast()))
            }
            return (current.path, Array(try current.append(packs + [commitRecord], syncing: true).dropLast()))
        }
    }

    /// Runs `body` with the current segment's writer, creating the segment first if there is
    /// none; a failure gives the segment up.
    private func withWriter<T>(_ body: (PackSegment.Writer) throws -> T) throws -> T {
        try writer.withLock { writer in
            let current: PackSegment.Writer
            if let existing = writer {
                current = existing
            } else {
                current = try PackSegment.Writer(in: directoryURL, layout: layout)
                writtenPaths.withLock { _ = $0.insert(current.path) }
                writer = current
            }
            do {
                return try body(current)
            } catch {
                writer = nil
                throw error
            }
        }
    }

    /// Makes every record appended without syncing durable (one `fdatasync`, if any is
    /// pending).
    ///
    /// - Throws: ``ZoneError/io(operation:path:reason:)``; the segment is given up then.
    func makeDurable() throws {
        try writer.withLock { writer in
            guard let current = writer, current.hasUnsyncedWrites else { return }
            do {
                try current.sync()
            } catch {
                writer = nil
                throw error
            }
        }
    }
}
