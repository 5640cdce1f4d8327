import Crypto
import LLVSCore
import Foundation
import LLVSSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A version log in a directory of segment files (SPEC.md, "Version log"). Each
/// `FileVersionLog` instance appends only to a segment of its own, created on its first
/// append, so writers in different processes never interleave; readers read every segment.
///
/// Segment layout: `"LLVSLOG1"`, then records of `u32 little-endian length`, the payload,
/// and the first 8 bytes of the payload's SHA-256; in a preallocating log, zeros follow the
/// last record. A process killed during an append leaves at most a torn final record,
/// which readers ignore; a bad record followed by a good one is reported as corruption.
public final class FileVersionLog: VersionLog {
    static let magic = Array("LLVSLOG1".utf8)
    static let checksumCount = 8

    /// The directory of segment files.
    public let directoryURL: URL
    /// Whether appends go into space preallocated (zeros written and synced in steps of
    /// 256 KiB), so that each append's sync writes only its data, not the file's size.
    /// Readers stop at a zero length followed by a zero checksum, which no record has (the
    /// empty record's checksum is not zero); LLVS before preallocation existed reads such a
    /// segment as damaged, so only logs of stores and directories of newer formats use it.
    public let preallocates: Bool

    private struct Segment {
        var descriptor: Int32
        var path: String
        var end: Int
        var allocated: Int
    }

    private let segment = Locked<Segment?>(nil)
    static let preallocationStep = 256 << 10
    /// A zero length and a zero checksum: where preallocated space starts.
    static let endMarkerCount = 4 + checksumCount

    /// Creates a log in `directoryURL` (created on first append).
    ///
    /// - Parameters:
    ///   - directoryURL: The log's directory.
    ///   - preallocating: See ``preallocates``.
    public init(directoryURL: URL, preallocating: Bool = false) {
        self.directoryURL = directoryURL
        self.preallocates = preallocating
    }

    deinit {
        segment.withLock { segment in
            if let descriptor = segment?.descriptor { _ = close(descriptor) }
        }
    }

    /// Appends records to this instance's segment and fsyncs it.
    ///
    /// - Throws: ``ZoneError/io(operation:path:reason:)`` when the segment cannot be
    ///   created or written.
    public func append(_ records: [Data]) throws {
        guard !records.isEmpty else { return }
        let bytes = Self.encodeRecords(records)
        try segment.withLock { segment in
            if segment == nil { segment = try createSegment() }
            guard var current = segment else { return }
            do {
                if preallocates {
                    current.allocated = try POSIXFile.preallocate(current.descriptor, path: current.path, allocated: current.allocated,
                                                                  through: current.end + bytes.count + Self.endMarkerCount,
                                                                  step: Self.preallocationStep)
                }
                try POSIXFile.writeAll(bytes, to: current.descriptor, path: current.path, at: current.end)
                try POSIXFile.syncData(current.descriptor, path: current.path)
            } catch {
                // A failed write may leave a torn record: later appends go to a new segment.
                _ = close(current.descriptor)
                segment = nil
                throw error
            }
            current.end += bytes.count
            current.allocated = max(current.allocated, current.end)
            segment = current
        }
    }

    /// Reads the records appended to any segment after `cursor`.
    ///
    /// - Throws: ``ZoneError`` when a segment cannot be read, or holds a bad record that is
    ///   not its torn final record.
    public func records(after cursor: VersionLogCursor) throws -> (records: [Data], cursor: VersionLogCursor) {
        guard FileManager.default.fileExists(atPath: directoryURL.path) else { return ([], cursor) }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directoryURL.path)
                .filter { $0.hasSuffix(".log") && !$0.hasPrefix(".") }
                .sorted()
        } catch {
            throw ZoneError.io(operation: "list", path: directoryURL.path, reason: "\(error)")
        }
        var records: [Data] = []
        var next = cursor
        for name in names {
            let path = directoryURL.appendingPathComponent(name).path
            let start = cursor.positions[name] ?? 0
            let (found, end) = try Self.readRecords(path: path, from: start)
            records.append(contentsOf: found)
            next.positions[name] = end
        }
        return (records, next)
    }

    /// The bytes a new segment starts with.
    public static var segmentHeader: Data { Data(magic) }

    /// The bytes of `records` as they follow a segment's magic (or its earlier records).
    public static func encodeRecords(_ records: [Data]) -> Data {
        var writer = ByteWriter(capacity: records.reduce(0) { $0 + $1.count + 12 })
        for record in records {
            let length = UInt32(clamping: record.count)
            withUnsafeBytes(of: length.littleEndian) { writer.append(contentsOf: $0) }
            writer.append(contentsOf: record)
            writer.append(contentsOf: SHA256.hash(data: record).prefix(Self.checksumCount))
        }
        return writer.data
    }

    /// The records of a whole segment that must be complete (as in a snapshot archive).
    ///
    /// - Throws: ``ZoneError/corrupt(path:reason:)`` naming `path` for a bad magic, a bad
    ///   checksum or a truncated record.
    static func parseCompleteSegment(_ bytes: Data, path: String) throws -> [Data] {
        guard bytes.count >= magic.count, Array(bytes.prefix(magic.count)) == magic else {
            throw ZoneError.corrupt(path: path, reason: "not a version log segment (bad magic)")
        }
        let (records, end) = try parseRecords(bytes.dropFirst(magic.count), path: path, base: magic.count)
        guard end == bytes.count - magic.count || bytes.dropFirst(magic.count + end).allSatisfy({ $0 == 0 }) else {
            throw ZoneError.corrupt(path: path, reason: "the segment's final record, at offset \(magic.count + end), is incomplete or fails its checksum")
        }
        return records
    }

    /// The records of `bytes`, which must be whole records with nothing after them (a
    /// commit record's, ``PackSegment``); `base` is their offset in the file at `path`.
    ///
    /// - Throws: ``ZoneError/corrupt(path:reason:)`` when a record is cut short or fails
    ///   its checksum.
    static func parseWholeRecords(_ bytes: Data, path: String, base: Int) throws -> [Data] {
        let (records, end) = try parseRecords(bytes, path: path, base: base)
        guard end == bytes.count else {
            throw ZoneError.corrupt(path: path, reason: "the record at offset \(base + end) is incomplete or fails its checksum")
        }
        return records
    }

    /// Parses complete records from `bytes` (which start at offset `base` of the segment);
    /// returns them and the offset in `bytes` after the last complete record.
    private static func parseRecords(_ bytes: Data, path: String, base: Int) throws -> (records: [Data], end: Int) {
        // Each record is a slice of `bytes` (sharing its storage, not a copy of its own).
        let (ranges, end) = try bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws -> (records: [Range<Int>], end: Int) in
            /// The record at `offset`: nil where the records end (the end of the bytes, a
            /// length running past it, or preallocated zeros), else its end and whether it
            /// passes its checksum.
            func record(at offset: Int) -> (end: Int, payload: UnsafeRawBufferPointer, matches: Bool)? {
                guard raw.count - offset >= 4 else { return nil }
                let length = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
                let recordEnd = offset + 4 + length + checksumCount
                guard recordEnd <= raw.count else { return nil } // torn (or still being written) final record
                let payload = UnsafeRawBufferPointer(rebasing: raw[(offset + 4)..<(offset + 4 + length)])
                let stored = UnsafeRawBufferPointer(rebasing: raw[(offset + 4 + length)..<recordEnd])
                if length == 0, stored.allSatisfy({ $0 == 0 }) { return nil } // preallocated space
                let matches = SHA256.hash(data: payload).withUnsafeBytes { digest in
                    digest.prefix(checksumCount).elementsEqual(stored)
                }
                return (recordEnd, payload, matches)
            }
            var offset = 0
            var records: [Range<Int>] = []
            while let (recordEnd, payload, matches) = record(at: offset) {
                guard matches else {
                    // A torn final record (or one still being written), unless a good record
                    // follows it: then it is damage.
                    if let next = record(at: recordEnd), next.matches {
                        throw ZoneError.corrupt(path: path, reason: "record at offset \(base + offset) fails its checksum")
                    }
                    break
                }
                records.append((offset + 4)..<(offset + 4 + payload.count))
                offset = recordEnd
            }
            return (records, offset)
        }
        let start = bytes.startIndex
        return (ranges.map { bytes[(start + $0.lowerBound)..<(start + $0.upperBound)] }, end)
    }

    /// Parses the complete records of a segment from byte `start`; returns them and the
    /// offset after the last complete record.
    static func readRecords(path: String, from start: Int) throws -> (records: [Data], end: Int) {
        try records(inSegmentBytes: try readFile(path: path, from: start), from: start, path: path)
    }

    /// The complete records of a segment whose bytes from offset `start` on are `bytes`
    /// (the segment read elsewhere, as over WebDAV), and the offset after the last of them.
    ///
    /// - Throws: ``ZoneError/corrupt(path:reason:)`` naming `path` for a bad magic or a bad
    ///   record that is not the final one.
    public static func records(inSegmentBytes bytes: Data, from start: Int, path: String) throws -> (records: [Data], end: Int) {
        var offset = 0
        if start == 0 {
            guard bytes.count >= magic.count else { return ([], 0) } // header still being written
            guard Array(bytes.prefix(magic.count)) == magic else {
                throw ZoneError.corrupt(path: path, reason: "not a version log segment (bad magic)")
            }
            offset = magic.count
        }
        let (records, end) = try parseRecords(bytes.dropFirst(offset), path: path, base: start + offset)
        return (records, start + offset + end)
    }

    /// The bytes of the file at `path` from byte `start` to its end.
    static func readFile(path: String, from start: Int) throws -> Data {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ZoneError.io(operation: "open", path: path, reason: "cannot open for reading")
        }
        defer { try? handle.close() }
        do {
            try handle.seek(toOffset: UInt64(start))
            return try handle.readToEnd() ?? Data()
        } catch {
            throw ZoneError.io(operation: "read", path: path, reason: "\(error)")
        }
    }

    private func createSegment() throws -> Segment {
        let (descriptor, path) = try POSIXFile.createSegmentFile(named: "\(POSIXFile.uniqueName()).log", in: directoryURL, magic: Self.magic)
        return Segment(descriptor: descriptor, path: path, end: Self.magic.count, allocated: Self.magic.count)
    }
}
