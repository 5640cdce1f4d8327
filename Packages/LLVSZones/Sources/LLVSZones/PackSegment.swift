import Crypto
import Foundation
import LLVSCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Pack segments: the append-only files the file zones write their packs into, one per
/// writer (SPEC.md, "File storage"), as the version log has a segment per writer.
///
/// Three layouts (``Layout``). A committing segment (`"LLVSPSG3"`, `<root>/packs/`, format
/// 4) holds the packs of both zones and the version records that commit them: records of
/// `u64 little-endian length`, a tag byte (0 values, 1 maps, 2 version records) and that
/// many bytes: one pack (the ``PackFile`` layout, which names its version and ends with its
/// own SHA-256), or, for tag 2, a commit record: a `u32 little-endian` count of version
/// records, then the records framed as in a version log segment (``FileVersionLog``). A commit appends its packs and its commit record with one
/// write and one `fdatasync`. A shared segment (`"LLVSPSG2"`, format 3) is the same without
/// commit records (format 3 logged versions in `<root>/versions/`). A zone segment
/// (`"LLVSPSG1"`, `<zone>/segments/`, format 2 and restored snapshots) holds one zone's
/// packs, without the tag byte. A process killed during a write leaves at most a torn final
/// write, which readers skip: a commit record that ends a segment counts only once every
/// pack written since the commit record before it passes its checksum
/// (``scanCommits(path:from:)``).
enum PackSegment {
    /// The magic of a zone segment.
    static let magic = Layout.zone.magic
    /// The folder of zone segments inside a zone directory.
    static let directoryName = "segments"
    /// The folder of shared segments inside a store directory.
    static let sharedDirectoryName = "packs"
    static let fileExtension = ".seg"
    /// The length prefix of a record.
    static let lengthCount = 8

    /// How a segment frames its records.
    struct Layout: Sendable, Equatable {
        let magic: [UInt8]
        /// Whether a zone byte follows each record's length (a segment shared by both zones).
        let tagsZones: Bool
        /// Whether the segment holds commit records (tag 2) after the packs they commit.
        var holdsCommits = false

        /// The bytes before a record's pack: its length and, when tagged, its zone.
        var headerCount: Int { PackSegment.lengthCount + (tagsZones ? 1 : 0) }

        /// One zone's segment (`<zone>/segments/`).
        static let zone = Layout(magic: Array("LLVSPSG1".utf8), tagsZones: false)
        /// A segment of both zones' packs (`<root>/packs/`, format 3).
        static let shared = Layout(magic: Array("LLVSPSG2".utf8), tagsZones: true)
        /// A segment of both zones' packs and the commit records of their versions
        /// (`<root>/packs/`, format 4).
        static let committing = Layout(magic: Array("LLVSPSG3".utf8), tagsZones: true, holdsCommits: true)

        /// The layout whose magic `bytes` start with, or nil.
        static func of(magic bytes: some Collection<UInt8>) -> Layout? {
            [zone, shared, committing].first { bytes.elementsEqual($0.magic) }
        }
    }

    /// The tag byte of a shared or committing segment's record.
    enum ZoneTag: UInt8, Sendable {
        case values = 0
        case maps = 1
        /// A commit record (committing segments only).
        case versions = 2
    }

    /// A pack to append, with the zone it belongs to (ignored by a zone segment).
    struct Record: Sendable {
        var zone: ZoneTag
        var pack: Data
    }

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

    /// The bytes that frame `records` as records of a segment of `layout`, following its magic.
    static func encodeRecords(_ records: [Record], layout: Layout) -> Data {
        var bytes = Data(capacity: records.reduce(0) { $0 + $1.pack.count + layout.headerCount })
        for record in records {
            bytes.append(header(of: record, layout: layout))
            bytes.append(record.pack)
        }
        return bytes
    }

    /// The header that precedes a record's pack: its length, then (when tagged) its zone.
    static func header(of record: Record, layout: Layout) -> Data {
        var header = withUnsafeBytes(of: UInt64(record.pack.count).littleEndian) { Data($0) }
        if layout.tagsZones { header.append(record.zone.rawValue) }
        return header
    }

    /// Reads the records of the segment at `path` from byte `start` (0: the segment's
    /// start, before its magic), reading only each record's header and its pack's header,
    /// and returns those of `zone` (every record, in a zone segment). The directory tells
    /// the `layout`; the magic must agree.
    /// A record that runs past the end of the file is torn or still being written: the
    /// scan stops before it and a later scan continues there. A complete record whose
    /// header is not a pack's is damage, unless it is the last one (a crash can leave a
    /// final record whose bytes never reached the disk).
    ///
    /// - Throws: ``ZoneError/io(operation:path:reason:)`` when the file cannot be read,
    ///   ``ZoneError/corrupt(path:reason:)`` for a file that is not a pack segment.
    /// - Complexity: One read of the headers, in 256 KiB pieces; pack bodies larger than a
    ///   piece are skipped without reading.
    static func scan(path: String, from start: Int, layout: Layout, zone: ZoneTag) throws -> ScanResult {
        let descriptor = try POSIXFile.openFile(path, flags: O_RDONLY, operation: "open segment")
        defer { _ = close(descriptor) }
        let size = try POSIXFile.size(of: descriptor, path: path)
        var reader = PieceReader(descriptor: descriptor, path: path, size: size)
        var offset = start
        if offset == 0 {
            guard size >= layout.magic.count else { return ScanResult(end: 0) } // still being created
            // A shared segment of either format (with or without commit records).
            guard let found = Layout.of(magic: try reader.bytes(at: 0, count: layout.magic.count)),
                  found.tagsZones == layout.tagsZones else {
                throw ZoneError.corrupt(path: path, reason: "not a pack segment (bad magic)")
            }
            offset = layout.magic.count
        }
        var result = ScanResult(end: offset)
        while let found = try record(at: offset, size: size, layout: layout, reader: &reader) {
            let packStart = offset + layout.headerCount
            let next = packStart + found.count
            if found.zone == .versions {
                // A commit record: the version log's (``scanCommits(path:from:)``).
                offset = next
                result.end = offset
                continue
            }
            guard let version = found.version else {
                // A record that is not a pack is a torn one (a crash) or one still being
                // written, unless a pack or commit record follows it: then it is damage, and
                // the scan goes on after it (its length still frames it).
                guard next < size, let following = try record(at: next, size: size, layout: layout, reader: &reader),
                      following.version != nil || following.zone == .versions else { break }
                result.damage = result.damage ?? "the record at offset \(offset) is not a pack"
                offset = next
                result.end = offset
                continue
            }
            if found.zone == zone || !layout.tagsZones {
                result.entries.append(Entry(version: version, offset: packStart, count: found.count))
            }
            offset = next
            result.end = offset
        }
        return result
    }

    /// The body of a commit record of `records`: their `u32 little-endian` count, then the
    /// records framed as in a version log segment (``FileVersionLog``).
    static func commitBody(_ records: [Data]) -> Data {
        withUnsafeBytes(of: UInt32(clamping: records.count).littleEndian) { Data($0) } + FileVersionLog.encodeRecords(records)
    }

    /// The version records of a commit record's `body`, at offset `base` of the segment at
    /// `path`.
    ///
    /// - Throws: ``ZoneError/corrupt(path:reason:)`` when the body is not a count and that
    ///   many whole records, each passing its checksum, with nothing after them.
    static func versionRecords(inCommitBody body: Data, path: String, base: Int) throws -> [Data] {
        guard body.count >= 4 else {
            throw ZoneError.corrupt(path: path, reason: "the commit record at offset \(base) is shorter than its count")
        }
        let count = body.prefix(4).reversed().reduce(0) { $0 << 8 | Int($1) }
        let records = try FileVersionLog.parseWholeRecords(Data(body.dropFirst(4)), path: path, base: base + 4)
        guard records.count == count else {
            throw ZoneError.corrupt(path: path, reason: "the commit record at offset \(base) counts \(count) version records and holds \(records.count)")
        }
        return records
    }

    /// What ``scanCommits(path:from:)`` found: the version records of the commit records
    /// after the starting point, and the offset after the last commit record counted.
    struct CommitScan: Sendable {
        var records: [Data] = []
        var end: Int
    }

    /// Reads the commit records of the committing segment at `path` from byte `start` (0:
    /// the segment's start, before its magic) and returns their version records in order.
    /// A segment of an earlier layout holds none (its size is returned as the end).
    ///
    /// A commit record that ends the segment's records (nothing complete follows it) may be
    /// the last write of a machine that lost power before its `fdatasync` returned, whose
    /// sectors reach the disk in any order: it does not count when a pack written since the
    /// commit record before it fails its checksum and holds a block never written (zeros,
    /// ``holdsAnUnwrittenBlock(_:at:)``); the scan stops before those packs then (a later
    /// scan looks again). A pack that fails otherwise is damage, reported when it is read. A
    /// commit record followed by anything was durable before that was written. A commit
    /// record that does not parse is a torn write when it ends the records, and damage
    /// otherwise.
    ///
    /// - Throws: ``ZoneError/io(operation:path:reason:)`` when the file cannot be read,
    ///   ``ZoneError/corrupt(path:reason:)`` for a bad magic or a damaged commit record
    ///   that is not the last record.
    /// - Complexity: One read of the record headers and commit records after `start`, and
    ///   of the packs of a final commit (at most about ``largeWriteCount`` bytes: a larger
    ///   commit makes its packs durable before its commit record is written).
    static func scanCommits(path: String, from start: Int) throws -> CommitScan {
        let descriptor = try POSIXFile.openFile(path, flags: O_RDONLY, operation: "open segment")
        defer { _ = close(descriptor) }
        let size = try POSIXFile.size(of: descriptor, path: path)
        var reader = PieceReader(descriptor: descriptor, path: path, size: size)
        let layout = Layout.committing
        var offset = start
        if offset == 0 {
            guard size >= layout.magic.count else { return CommitScan(end: 0) } // still being created
            let magic = try reader.bytes(at: 0, count: layout.magic.count)
            guard magic.elementsEqual(layout.magic) else {
                guard Layout.of(magic: magic) != nil else {
                    throw ZoneError.corrupt(path: path, reason: "not a pack segment (bad magic)")
                }
                return CommitScan(end: size) // an earlier layout: no commit records
            }
            offset = layout.magic.count
        }
        var scan = CommitScan(end: offset)
        var groupStart = offset
        while let found = try header(at: offset, size: size, reader: &reader) {
            let bodyStart = offset + layout.headerCount
            let next = bodyStart + found.count
            guard found.tag == ZoneTag.versions.rawValue else {
                offset = next
                continue
            }
            let isLast = try header(at: next, size: size, reader: &reader) == nil
            let records: [Data]
            do {
                records = try versionRecords(inCommitBody: Data(try reader.bytes(at: bodyStart, count: found.count)),
                                             path: path, base: bodyStart)
            } catch {
                if isLast { break }
                throw error
            }
            if isLast, try packsShowATornWrite(from: groupStart, to: offset, size: size, path: path, reader: &reader) { break }
            scan.records += records
            scan.end = next
            groupStart = next
            offset = next
        }
        return scan
    }

    /// The length and tag of the record at `offset` of a committing segment, or nil where
    /// the records end (as ``record(at:size:layout:reader:)`` tells), reading nothing else.
    private static func header(at offset: Int, size: Int, reader: inout PieceReader) throws -> (count: Int, tag: UInt8)? {
        let headerCount = Layout.committing.headerCount
        guard size - offset >= headerCount else { return nil }
        let bytes = try reader.bytes(at: offset, count: headerCount)
        let length = bytes.prefix(lengthCount).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard length > 0, length <= UInt64(size - offset - headerCount) else { return nil }
        return (Int(length), bytes[bytes.startIndex + lengthCount])
    }

    /// A committing segment's commit index, `<segment name>.idx` beside it: `"LLVSPSX1"`, then
    /// entries framed as version log records (``FileVersionLog``), each `u64 from`, `u64 to`
    /// (little-endian) and a commit record's body: the commit records between segment offsets
    /// `from` and `to` hold exactly these version records. The writer appends an entry, without
    /// syncing, after each commit's `fdatasync`, so an entry never names a commit that is not
    /// durable; the index is a cache that spares readers the segment's packs. Readers use the
    /// entries that chain from where they are and then scan the segment from the last one; an
    /// entry that is missing, fails its checksum or does not chain ends its use (a crash may
    /// leave any of these), never an error.
    enum CommitIndex {
        static let magic = Array("LLVSPSX1".utf8)
        static let fileSuffix = ".idx"

        static func entry(from: Int, to: Int, body: Data) -> Data {
            var bytes = Data(capacity: 16 + body.count)
            withUnsafeBytes(of: UInt64(from).littleEndian) { bytes.append(contentsOf: $0) }
            withUnsafeBytes(of: UInt64(to).littleEndian) { bytes.append(contentsOf: $0) }
            bytes.append(body)
            return bytes
        }

        /// The version records of the entries at `indexPath` from byte `start` (0: before the
        /// magic) that chain from segment offset `position`, the segment offset after them and
        /// the index offset to continue from. Entries ending at or before `position` are passed
        /// over; anything unreadable ends the entries.
        /// - Complexity: One read of the index from `start` and one SHA-256 per entry; the
        ///   records are slices of what was read.
        static func records(indexPath: String, from start: Int, position: Int) -> (records: [Data], position: Int, indexEnd: Int) {
            guard let bytes = try? FileVersionLog.readFile(path: indexPath, from: start) else { return ([], position, start) }
            let skip = start == 0 ? magic.count : 0
            guard bytes.count >= skip, start > 0 || bytes.prefix(magic.count).elementsEqual(magic) else { return ([], position, start) }
            var position = position
            var consumed = skip
            let ranges = bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> [Range<Int>] in
                func integer(_ offset: Int, _ count: Int) -> Int {
                    (0..<count).reversed().reduce(0) { $0 << 8 | Int(raw[offset + $1]) }
                }
                var ranges: [Range<Int>] = []
                var offset = skip
                entries: while raw.count - offset >= 4 {
                    let length = integer(offset, 4)
                    let payloadEnd = offset + 4 + length
                    guard length >= 20, payloadEnd + FileVersionLog.checksumCount <= raw.count else { break }
                    let payload = UnsafeRawBufferPointer(rebasing: raw[(offset + 4)..<payloadEnd])
                    let checks = SHA256.hash(data: payload).withUnsafeBytes { digest in
                        digest.prefix(FileVersionLog.checksumCount).elementsEqual(raw[payloadEnd..<(payloadEnd + FileVersionLog.checksumCount)])
                    }
                    guard checks else { break }
                    let from = integer(offset + 4, 8), to = integer(offset + 12, 8)
                    let next = payloadEnd + FileVersionLog.checksumCount
                    if to <= position {
                        offset = next
                        consumed = next
                        continue
                    }
                    guard from == position else { break }
                    // The body: a count, then records framed as in a log (checksums not
                    // computed again: the entry's covers them).
                    var cursor = offset + 20
                    var found: [Range<Int>] = []
                    let count = integer(offset + 20, 4)
                    cursor += 4
                    for _ in 0..<count {
                        guard payloadEnd - cursor >= 4 else { break entries }
                        let recordLength = integer(cursor, 4)
                        let recordEnd = cursor + 4 + recordLength
                        guard recordLength >= 0, recordEnd + FileVersionLog.checksumCount <= payloadEnd else { break entries }
                        found.append((cursor + 4)..<recordEnd)
                        cursor = recordEnd + FileVersionLog.checksumCount
                    }
                    guard cursor == payloadEnd else { break }
                    ranges += found
                    position = to
                    offset = next
                    consumed = next
                }
                return ranges
            }
            let base = bytes.startIndex
            return (ranges.map { bytes[(base + $0.lowerBound)..<(base + $0.upperBound)] }, position, start + consumed)
        }
    }

    /// The size of the blocks a torn write leaves unwritten: a disk writes whole sectors.
    static let unwrittenBlockCount = 512

    /// Whether `bytes`, which start at offset `start` of a segment, hold a block of
    /// ``unwrittenBlockCount`` zero bytes at an offset that is a multiple of it: space a
    /// write that was cut short never reached (a segment's space is preallocated with zeros).
    static func holdsAnUnwrittenBlock(_ bytes: some Collection<UInt8>, at start: Int) -> Bool {
        let block = unwrittenBlockCount
        var index = bytes.startIndex
        var offset = start
        // Skip to the first aligned offset.
        let skip = (block - start % block) % block
        guard bytes.count >= skip + block else { return false }
        index = bytes.index(index, offsetBy: skip)
        offset += skip
        var zeros = 0
        while index != bytes.endIndex {
            zeros = bytes[index] == 0 ? zeros + 1 : 0
            if zeros == block { return true }
            index = bytes.index(after: index)
            offset += 1
            if offset % block == 0 { zeros = 0 }
        }
        return false
    }

    /// Whether the records from `start` to `end` of a committing segment (the packs written
    /// with a final commit record) show a write cut short: a record that is not a pack or
    /// fails its checksum, holding a block never written (``holdsAnUnwrittenBlock(_:at:)``).
    /// A pack that fails otherwise is damage, which a read of it reports.
    private static func packsShowATornWrite(from start: Int, to end: Int, size: Int, path: String,
                                            reader: inout PieceReader) throws -> Bool {
        var offset = start
        while offset < end {
            guard let found = try record(at: offset, size: size, layout: .committing, reader: &reader) else { return true }
            let packStart = offset + Layout.committing.headerCount
            let bytes = try reader.bytes(at: packStart, count: found.count)
            if found.version == nil || (try? PackFile(decoding: Data(bytes), path: path)) == nil,
               holdsAnUnwrittenBlock(bytes, at: packStart) {
                return true
            }
            offset = packStart + found.count
        }
        return false
    }

    /// The record at `offset`: nil at the end of the records (the end of the file, a zero
    /// length, which is where preallocated space starts, or a length running past the end of
    /// the file); otherwise its pack's length, zone (of a shared segment) and version, the
    /// version nil when the record is not a pack (or names no zone).
    private static func record(at offset: Int, size: Int, layout: Layout,
                               reader: inout PieceReader) throws -> (version: Version.ID?, zone: ZoneTag?, count: Int)? {
        guard size - offset >= layout.headerCount else { return nil }
        let lengthBytes = try reader.bytes(at: offset, count: lengthCount)
        let length = lengthBytes.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let packStart = offset + layout.headerCount
        guard length > 0, length <= UInt64(size - packStart) else { return nil }
        let count = Int(length)
        var zone: ZoneTag?
        if layout.tagsZones {
            zone = try reader.bytes(at: offset + lengthCount, count: 1).first.flatMap(ZoneTag.init(rawValue:))
            guard zone != nil else { return (nil, nil, count) }
            if zone == .versions { return (nil, .versions, count) }
        }
        guard let span = PackFile.versionSpan(inPrefix: Array(try reader.bytes(at: packStart, count: min(count, PackFile.versionPrefixCount)))),
              span.upperBound <= count else { return (nil, zone, count) }
        let bytes = try reader.bytes(at: packStart + span.lowerBound, count: span.count)
        return (String(validating: bytes, as: UTF8.self).map(Version.ID.init), zone, count)
    }

    /// Checks a whole segment: every record must be complete and hold a pack that passes
    /// its checksum, or (in a committing segment) a commit record whose version records
    /// pass theirs. Returns what is damaged, naming the version where the pack's header
    /// still tells it. Damage in what a killed writer leaves is reported too, marked as such
    /// (``StorageDamage/isUnfinishedFinalPack``: its versions were never acknowledged, and
    /// damage there looks the same): a segment's final write (the records after the last
    /// commit record that anything follows) cut short into unwritten space with no whole
    /// commit record at its end, or one whose commit record readers do not count
    /// (``scanCommits(path:from:)``).
    ///
    /// - Complexity: One pass over `bytes`, hashing every pack and record.
    static func check(_ bytes: Data, path: String) -> [StorageDamage] {
        let bytes = bytes.startIndex == 0 ? bytes : Data(bytes)
        guard bytes.count > 0 else { return [] }
        guard bytes.count >= magic.count, let layout = Layout.of(magic: bytes.prefix(magic.count)) else {
            return [StorageDamage(reason: "\(path) is not a pack segment (bad magic)")]
        }
        /// The records' bounds and tags, up to where they end, and the offset where that is.
        var framed: [(offset: Int, tag: UInt8?, pack: Range<Int>)] = []
        var offset = magic.count
        var ending: String?
        /// Whether `ending` is a final record cut short (a length running past the end).
        var endingIsCutShort = true
        while offset < bytes.count {
            guard bytes.count - offset >= lengthCount else {
                ending = "\(path): the final record, at offset \(offset), is incomplete"
                break
            }
            let length = bytes[offset..<(offset + lengthCount)].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let packStart = offset + layout.headerCount
            if length == 0 {
                // Preallocated space: zeros to the end, or a write cut short.
                if bytes[offset...].contains(where: { $0 != 0 }) {
                    ending = "\(path): the record at offset \(offset) is incomplete"
                    endingIsCutShort = false
                }
                break
            }
            guard packStart <= bytes.count, length <= UInt64(bytes.count - packStart) else {
                ending = "\(path): the final record, at offset \(offset), is incomplete"
                break
            }
            framed.append((offset, layout.tagsZones ? bytes[offset + lengthCount] : nil, packStart..<(packStart + Int(length))))
            offset = packStart + Int(length)
        }
        // The final write of a committing segment: the records after the last commit record
        // that anything follows (it was durable before that was written). A killed writer
        // leaves a prefix of it, cut short into unwritten space (zeros); a power loss during
        // its sync, any of its sectors unwritten. Damage there is that unfinished write when
        // the write ends cut short without a whole commit record, or when readers do not
        // count its whole commit record (a pack behind it fails and holds an unwritten
        // block); otherwise it is damage to a write that finished.
        let finalWriteStart = (framed.indices.last { index in
            framed[index].tag == ZoneTag.versions.rawValue && (index < framed.count - 1 || ending != nil)
        }).map { $0 + 1 } ?? 0
        let endsWithWholeCommit = framed.last.map { last in
            last.tag == ZoneTag.versions.rawValue
                && (try? versionRecords(inCommitBody: Data(bytes[last.pack]), path: path, base: last.pack.lowerBound)) != nil
        } ?? false
        let endsCutShort = ending != nil || (framed.last.map { bytes[$0.pack].suffix(8).allSatisfy { $0 == 0 } } ?? false)
        // Behind a whole final commit record, what readers take for a write cut short.
        let tornBehindItsCommit = endsWithWholeCommit && framed[finalWriteStart..<max(finalWriteStart, framed.count - 1)].contains { record in
            (try? PackFile(decoding: Data(bytes[record.pack]), path: path)) == nil && holdsAnUnwrittenBlock(bytes[record.pack], at: record.pack.lowerBound)
        }
        let finalWriteIsUnfinished = (!endsWithWholeCommit && endsCutShort) || tornBehindItsCommit
        let unfinished = " (a write cut short by a crash leaves this too; the version it carried is not in the store)"
        var damage: [StorageDamage] = []
        for (index, record) in framed.enumerated() {
            // Without commit records, only a record that nothing was written after.
            let isFinal = layout.holdsCommits
                ? index >= finalWriteStart && finalWriteIsUnfinished
                : !bytes[record.pack.upperBound...].contains { $0 != 0 }
            let pack = bytes[record.pack]
            switch record.tag.map({ ZoneTag(rawValue: $0) }) {
            case .some(.versions) where layout.holdsCommits:
                do {
                    _ = try versionRecords(inCommitBody: Data(pack), path: path, base: record.pack.lowerBound)
                } catch {
                    damage.append(StorageDamage(reason: "\(error)" + (isFinal ? unfinished : ""), isUnfinishedFinalPack: isFinal))
                }
            case .some(.some(.versions)), .some(.none):
                damage.append(StorageDamage(reason: "\(path): the record at offset \(record.offset) names no zone (byte \(record.tag ?? 0))"))
            default:
                do {
                    _ = try PackFile(decoding: pack, path: "\(path) at offset \(record.pack.lowerBound)")
                } catch {
                    let version = PackFile.versionSpan(inPrefix: Array(pack.prefix(PackFile.versionPrefixCount))).flatMap { span -> String? in
                        guard span.upperBound <= pack.count else { return nil }
                        return String(validating: pack.dropFirst(span.lowerBound).prefix(span.count), as: UTF8.self)
                    }
                    damage.append(StorageDamage(version: version, reason: "\(error)", isUnfinishedFinalPack: isFinal))
                }
            }
        }
        if let ending {
            damage.append(StorageDamage(reason: ending + unfinished, isUnfinishedFinalPack: endingIsCutShort))
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
            try append(raw: Data(Layout.zone.magic))
        }

        deinit {
            _ = close(descriptor)
        }

        /// Appends one pack as a record.
        ///
        /// - Throws: ``ZoneError/io(operation:path:reason:)``.
        func append(_ pack: Data) throws {
            try append(raw: PackSegment.encodeRecords([Record(zone: .values, pack: pack)], layout: .zone))
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

    /// The segment a writer appends to: created on its first write, given up after a failed
    /// write (whose torn tail then stays the segment's last record).
    ///
    /// Space is preallocated in steps of ``preallocationStep`` by writing zeros and syncing
    /// them once, so that a commit overwrites blocks the file already has: its `fdatasync`
    /// then writes the data and flushes, without also writing the file's size and block map
    /// (which on this project's ext4 costs a second write and wait per sync). Readers take a
    /// zero length for the end of the records.
    final class Writer: @unchecked Sendable {
        // Unchecked: used only under its owner's writer lock.
        let name: String
        let path: String
        let layout: Layout
        private let descriptor: Int32
        private(set) var end: Int
        private var allocated: Int
        static let preallocationStep = 1 << 20

        /// Creates a new segment of `layout` in `directory` (created, with its parent made
        /// durable, if missing) and makes its magic and name durable.
        ///
        /// - Throws: ``ZoneError/io(operation:path:reason:)``.
        init(in directory: URL, layout: Layout) throws {
            name = POSIXFile.uniqueName() + PackSegment.fileExtension
            self.layout = layout
            (descriptor, path) = try POSIXFile.createSegmentFile(named: name, in: directory, magic: layout.magic)
            end = layout.magic.count
            allocated = end
            indexedTo = end
            if layout.holdsCommits {
                index = try? POSIXFile.createSegmentFile(named: name + CommitIndex.fileSuffix, in: directory, magic: CommitIndex.magic)
            }
        }

        deinit {
            _ = close(descriptor)
            if let index { _ = close(index.descriptor) }
        }

        /// The segment's commit index (``CommitIndex``), while it can be written.
        private var index: (descriptor: Int32, path: String)?
        private var indexEnd = CommitIndex.magic.count
        /// The offset after the last commit record the index holds.
        private var indexedTo: Int

        /// Appends to the commit index one entry per commit record of `records`, written
        /// at `offsets` and now durable. Never throws: a failed write gives the index up
        /// (readers then scan the segment itself from its last entry).
        private func index(_ records: [Record], at offsets: [Int]) {
            guard let current = index else { return }
            var entries = Data()
            for (record, offset) in zip(records, offsets) where record.zone == .versions {
                let recordEnd = offset + record.pack.count
                entries += FileVersionLog.encodeRecords([CommitIndex.entry(from: indexedTo, to: recordEnd, body: record.pack)])
                indexedTo = recordEnd
            }
            guard !entries.isEmpty else { return }
            do {
                try POSIXFile.writeAll(entries, to: current.descriptor, path: current.path, at: indexEnd)
                indexEnd += entries.count
            } catch {
                _ = close(current.descriptor)
                index = nil
            }
        }

        /// Writes `records` at the end of the records with one write and (unless `syncing`
        /// is false) makes them durable with one `fdatasync`; returns the offset of each
        /// pack's bytes.
        ///
        /// - Throws: ``ZoneError/io(operation:path:reason:)``; the segment must not be
        ///   written again then.
        func append(_ records: [Record], syncing: Bool = true) throws -> [Int] {
            var offsets: [Int] = []
            offsets.reserveCapacity(records.count)
            var position = end
            for record in records {
                offsets.append(position + layout.headerCount)
                position += layout.headerCount + record.pack.count
            }
            if position - end <= PackSegment.largeWriteCount {
                try preallocate(through: position)
                try POSIXFile.writeAll(PackSegment.encodeRecords(records, layout: layout), to: descriptor, path: path, at: end)
            } else {
                // A large write (a bulk import) is not preallocated: zeros written first would
                // double its I/O, and one metadata write is nothing beside it. Its packs are
                // written where they go, not copied into one buffer first.
                for (record, offset) in zip(records, offsets) {
                    try POSIXFile.writeAll(PackSegment.header(of: record, layout: layout),
                                           to: descriptor, path: path, at: offset - layout.headerCount)
                    try POSIXFile.writeAll(record.pack, to: descriptor, path: path, at: offset)
                }
            }
            end = position
            allocated = max(allocated, position)
            for record in records {
                bytesSinceCommit = record.zone == .versions ? 0 : bytesSinceCommit + layout.headerCount + record.pack.count
            }
            if syncing {
                try sync()
                index(records, at: offsets)
            } else {
                hasUnsyncedWrites = true
                // An index entry must follow its commit's sync: none for this segment now.
                if records.contains(where: { $0.zone == .versions }), let current = index {
                    _ = close(current.descriptor)
                    index = nil
                }
            }
            return offsets
        }

        /// The bytes of packs appended since the last commit record (or the magic).
        private(set) var bytesSinceCommit = 0

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
                                                  through: needed + layout.headerCount, step: Self.preallocationStep)
        }
    }
}
