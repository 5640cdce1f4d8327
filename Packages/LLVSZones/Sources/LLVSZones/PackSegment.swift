import Foundation
import LLVSCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Pack segments: the append-only files a file zone writes its packs into, one per writer
/// (SPEC.md, "Pack segments"), as the version log has a segment per writer.
///
/// Layout: `"LLVSPSG1"`, then records of `u64 little-endian length` followed by that many
/// bytes of one pack (the ``PackFile`` layout, which names its version and ends with its
/// own SHA-256). A writer appends a whole `store` call with one write and one `fdatasync`;
/// a process killed meanwhile leaves at most a torn final record, which no version refers
/// to (its log record is appended only after the sync), and which readers skip.
enum PackSegment {
    static let magic = Array("LLVSPSG1".utf8)
    /// The folder of segments inside a zone directory.
    static let directoryName = "segments"
    static let fileExtension = ".seg"
    /// The length prefix of a record.
    static let lengthCount = 8

    /// Whether `name` is a segment file name (not a temporary or hidden file).
    static func isSegmentName(_ name: String) -> Bool {
        name.hasSuffix(fileExtension) && !name.hasPrefix(".")
    }

    /// A record found by ``scan(path:from:)``: the version its pack belongs to and where the
    /// pack's bytes lie in the segment.
    struct Entry: Sendable, Equatable {
        var version: Version.ID
        var offset: Int
        var count: Int
    }

    /// What a scan found: the complete records after the starting point, the offset after
    /// the last of them, and, when a record before the last is not a pack, why (damage: the
    /// pack it held cannot be found; the records after it are read).
    struct ScanResult: Sendable {
        var entries: [Entry] = []
        var end: Int
        var damage: String?
    }

    /// Writes larger than this (1 MiB) put each pack's length and bytes in place separately
    /// instead of copying them into one buffer.
    static let largeWriteCount = 1 << 20

    /// The bytes that frame `packs` as records following a segment's magic.
    static func encodeRecords(_ packs: [Data]) -> Data {
        var bytes = Data(capacity: packs.reduce(0) { $0 + $1.count + lengthCount })
        for pack in packs {
            bytes.append(lengthPrefix(of: pack))
            bytes.append(pack)
        }
        return bytes
    }

    /// The record length that precedes `pack`.
    static func lengthPrefix(of pack: Data) -> Data {
        withUnsafeBytes(of: UInt64(pack.count).littleEndian) { Data($0) }
    }

    /// Reads the records of the segment at `path` from byte `start` (0: the segment's
    /// start, before its magic), reading only each record's length and its pack's header.
    /// A record that runs past the end of the file is torn or still being written: the
    /// scan stops before it and a later scan continues there. A complete record whose
    /// header is not a pack's is damage, unless it is the last one (a crash can leave a
    /// final record whose bytes never reached the disk).
    ///
    /// - Throws: ``ZoneError/io(operation:path:reason:)`` when the file cannot be read,
    ///   ``ZoneError/corrupt(path:reason:)`` for a file that is not a pack segment.
    /// - Complexity: One read of the headers, in 256 KiB pieces; pack bodies larger than a
    ///   piece are skipped without reading.
    static func scan(path: String, from start: Int) throws -> ScanResult {
        let descriptor = try POSIXFile.openFile(path, flags: O_RDONLY, operation: "open segment")
        defer { _ = close(descriptor) }
        let size = try POSIXFile.size(of: descriptor, path: path)
        var reader = PieceReader(descriptor: descriptor, path: path, size: size)
        var offset = start
        if offset == 0 {
            guard size >= magic.count else { return ScanResult(end: 0) } // still being created
            guard try reader.bytes(at: 0, count: magic.count).elementsEqual(magic) else {
                throw ZoneError.corrupt(path: path, reason: "not a pack segment (bad magic)")
            }
            offset = magic.count
        }
        var result = ScanResult(end: offset)
        while let (version, count) = try record(at: offset, size: size, reader: &reader) {
            let packStart = offset + lengthCount
            guard let version else {
                // A record that is not a pack is a torn one (a crash) or one still being
                // written, unless a pack follows it: then it is damage, and the scan goes on
                // after it (its length still frames it).
                guard packStart + count < size, try record(at: packStart + count, size: size, reader: &reader)?.version != nil else { break }
                result.damage = result.damage ?? "the record at offset \(offset) is not a pack"
                offset = packStart + count
                result.end = offset
                continue
            }
            result.entries.append(Entry(version: version, offset: packStart, count: count))
            offset = packStart + count
            result.end = offset
        }
        return result
    }

    /// The record at `offset`: nil at the end of the records (the end of the file, a zero
    /// length, which is where preallocated space starts, or a length running past the end of
    /// the file); otherwise its length and its pack's version, nil when it is not a pack.
    private static func record(at offset: Int, size: Int, reader: inout PieceReader) throws -> (version: Version.ID?, count: Int)? {
        guard size - offset >= lengthCount else { return nil }
        let lengthBytes = try reader.bytes(at: offset, count: lengthCount)
        let length = lengthBytes.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let packStart = offset + lengthCount
        guard length > 0, length <= UInt64(size - packStart) else { return nil }
        let count = Int(length)
        guard let span = PackFile.versionSpan(inPrefix: Array(try reader.bytes(at: packStart, count: min(count, PackFile.versionPrefixCount)))),
              span.upperBound <= count else { return (nil, count) }
        let bytes = try reader.bytes(at: packStart + span.lowerBound, count: span.count)
        return (String(validating: bytes, as: UTF8.self).map(Version.ID.init), count)
    }

    /// Checks a whole segment: every record must be complete and hold a pack that passes
    /// its checksum. Returns what is damaged, naming the version where the pack's header
    /// still tells it. A torn final record is reported too (a crash leaves one, whose
    /// version was never acknowledged; damage to the last record looks the same).
    ///
    /// - Complexity: One pass over `bytes`, hashing every pack.
    static func check(_ bytes: Data, path: String) -> [StorageDamage] {
        let bytes = bytes.startIndex == 0 ? bytes : Data(bytes)
        guard bytes.count > 0 else { return [] }
        guard bytes.count >= magic.count, Array(bytes.prefix(magic.count)) == magic else {
            return [StorageDamage(reason: "\(path) is not a pack segment (bad magic)")]
        }
        var damage: [StorageDamage] = []
        var offset = magic.count
        while offset < bytes.count {
            guard bytes.count - offset >= lengthCount else {
                damage.append(StorageDamage(reason: "\(path): the final record, at offset \(offset), is incomplete (a write cut short by a crash leaves this too; the version it carried is not in the store)"))
                break
            }
            let length = bytes[offset..<(offset + lengthCount)].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let packStart = offset + lengthCount
            if length == 0 {
                // Preallocated space: zeros to the end, or a write cut short.
                if bytes[offset...].contains(where: { $0 != 0 }) {
                    damage.append(StorageDamage(reason: "\(path): the record at offset \(offset) is incomplete (a write cut short by a crash leaves this too; the version it carried is not in the store)"))
                }
                break
            }
            guard length <= UInt64(bytes.count - packStart) else {
                damage.append(StorageDamage(reason: "\(path): the final record, at offset \(offset), is incomplete (a write cut short by a crash leaves this too; the version it carried is not in the store)"))
                break
            }
            let pack = bytes[packStart..<(packStart + Int(length))]
            do {
                _ = try PackFile(decoding: pack, path: "\(path) at offset \(packStart)")
            } catch {
                let version = PackFile.versionSpan(inPrefix: Array(pack.prefix(PackFile.versionPrefixCount))).flatMap { span -> String? in
                    guard span.upperBound <= pack.count else { return nil }
                    return String(validating: pack.dropFirst(span.lowerBound).prefix(span.count), as: UTF8.self)
                }
                damage.append(StorageDamage(version: version, reason: "\(error)"))
            }
            offset = packStart + Int(length)
        }
        return damage
    }

    /// The bytes of the pack at `offset` in the segment at `path`.
    ///
    /// - Throws: ``ZoneError/io(operation:path:reason:)`` when they cannot be read.
    static func readPack(path: String, offset: Int, count: Int) throws -> Data {
        let descriptor = try POSIXFile.openFile(path, flags: O_RDONLY, operation: "open segment")
        defer { _ = close(descriptor) }
        return try POSIXFile.read(descriptor, path: path, offset: offset, count: count)
    }

    /// Reads a file in pieces, keeping the last piece read.
    private struct PieceReader {
        let descriptor: Int32
        let path: String
        let size: Int
        var pieceStart = 0
        var piece: [UInt8] = []
        static let pieceSize = 256 << 10

        init(descriptor: Int32, path: String, size: Int) {
            self.descriptor = descriptor
            self.path = path
            self.size = size
        }

        /// `count` bytes at `offset` (within the file, as the caller has checked).
        mutating func bytes(at offset: Int, count: Int) throws -> ArraySlice<UInt8> {
            if offset < pieceStart || offset + count > pieceStart + piece.count {
                pieceStart = offset
                let data = try POSIXFile.read(descriptor, path: path, offset: offset, count: min(max(count, Self.pieceSize), size - offset))
                piece = [UInt8](data)
                guard piece.count >= count else {
                    throw ZoneError.io(operation: "read", path: path, reason: "the file ended at offset \(offset + piece.count) while being read")
                }
            }
            let start = offset - pieceStart
            return piece[start..<(start + count)]
        }
    }

    /// A segment written whole before it is moved into place (a restored snapshot): packs
    /// are appended without syncing, and ``finish()`` makes the file durable once.
    final class StagingFile {
        let url: URL
        private let descriptor: Int32

        /// Creates the file, with the segment magic, in `directory`.
        ///
        /// - Throws: ``ZoneError/io(operation:path:reason:)``.
        init(in directory: URL) throws {
            url = directory.appendingPathComponent(".tmp-\(POSIXFile.uniqueName())")
            descriptor = try POSIXFile.openFile(url.path, flags: O_WRONLY | O_CREAT | O_EXCL | O_APPEND, operation: "create segment")
            try append(raw: Data(PackSegment.magic))
        }

        deinit {
            _ = close(descriptor)
        }

        /// Appends one pack as a record.
        ///
        /// - Throws: ``ZoneError/io(operation:path:reason:)``.
        func append(_ pack: Data) throws {
            try append(raw: PackSegment.encodeRecords([pack]))
        }

        private func append(raw bytes: Data) throws {
            try POSIXFile.writeAll(bytes, to: descriptor, path: url.path)
        }

        /// Makes everything appended durable.
        ///
        /// - Throws: ``ZoneError/io(operation:path:reason:)``.
        func finish() throws {
            try POSIXFile.syncData(descriptor, path: url.path)
        }
    }

    /// The segment a zone appends to: created on its first write, given up after a failed
    /// write (whose torn tail then stays the segment's last record).
    ///
    /// Space is preallocated in steps of ``preallocationStep`` by writing zeros and syncing
    /// them once, so that a commit overwrites blocks the file already has: its `fdatasync`
    /// then writes the data and flushes, without also writing the file's size and block map
    /// (which on this project's ext4 costs a second write and wait per sync). Readers take a
    /// zero length for the end of the records.
    final class Writer: @unchecked Sendable {
        // Unchecked: used only under the owning zone's writer lock.
        let name: String
        let path: String
        private let descriptor: Int32
        private(set) var end: Int
        private var allocated: Int
        static let preallocationStep = 1 << 20

        /// Creates a new segment in `directory` (created, with its parent made durable, if
        /// missing) and makes its magic and name durable.
        ///
        /// - Throws: ``ZoneError/io(operation:path:reason:)``.
        init(in directory: URL) throws {
            name = POSIXFile.uniqueName() + PackSegment.fileExtension
            (descriptor, path) = try POSIXFile.createSegmentFile(named: name, in: directory, magic: PackSegment.magic)
            end = PackSegment.magic.count
            allocated = end
        }

        deinit {
            _ = close(descriptor)
        }

        /// Writes `packs` at the end of the records with one write and (unless `syncing` is
        /// false) makes them durable with one `fdatasync`; returns the offset of each pack's
        /// bytes.
        ///
        /// - Throws: ``ZoneError/io(operation:path:reason:)``; the segment must not be
        ///   written again then.
        func append(_ packs: [Data], syncing: Bool = true) throws -> [Int] {
            var offsets: [Int] = []
            offsets.reserveCapacity(packs.count)
            var position = end
            for pack in packs {
                offsets.append(position + PackSegment.lengthCount)
                position += PackSegment.lengthCount + pack.count
            }
            if position - end <= PackSegment.largeWriteCount {
                try preallocate(through: position)
                try POSIXFile.writeAll(PackSegment.encodeRecords(packs), to: descriptor, path: path, at: end)
            } else {
                // A large write (a bulk import) is not preallocated: zeros written first would
                // double its I/O, and one metadata write is nothing beside it. Its packs are
                // written where they go, not copied into one buffer first.
                for (pack, offset) in zip(packs, offsets) {
                    try POSIXFile.writeAll(PackSegment.lengthPrefix(of: pack),
                                           to: descriptor, path: path, at: offset - PackSegment.lengthCount)
                    try POSIXFile.writeAll(pack, to: descriptor, path: path, at: offset)
                }
            }
            end = position
            allocated = max(allocated, position)
            if syncing { try sync() } else { hasUnsyncedWrites = true }
            return offsets
        }

        /// Whether packs were appended without syncing since the last sync.
        private(set) var hasUnsyncedWrites = false

        /// Makes everything appended durable with one `fdatasync`.
        ///
        /// - Throws: ``ZoneError/io(operation:path:reason:)``.
        func sync() throws {
            try POSIXFile.syncData(descriptor, path: path)
            hasUnsyncedWrites = false
        }

        /// Makes sure the file has written, durable blocks up to `needed` bytes (and a zero
        /// length after them, where readers stop).
        private func preallocate(through needed: Int) throws {
            allocated = try POSIXFile.preallocate(descriptor, path: path, allocated: allocated,
                                                  through: needed + PackSegment.lengthCount, step: Self.preallocationStep)
        }
    }
}
