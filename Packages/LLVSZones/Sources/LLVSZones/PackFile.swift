import Crypto
import Foundation
import LLVSCore
import LLVSSupport

/// A pack: the items one `store` call wrote for one version, in one immutable file
/// (SPEC.md, "Pack files"). Layout:
///
/// ```
/// "LLVSPACK"  u8 format = 1  string version  varint n
/// n × (string key, varint data length)      — keys in UTF-8 byte order, unique
/// the n data blobs, in the same order
/// SHA-256 of every preceding byte (32 bytes)
/// ```
struct PackFile: Sendable {
    static let magic = Array("LLVSPACK".utf8)
    static let formatVersion: UInt8 = 1

    /// Where an item's key and data lie inside ``bytes``.
    struct Entry: Sendable {
        var keyStart: Int
        var keyCount: Int
        var dataStart: Int
        var dataCount: Int
    }

    /// The version the pack belongs to.
    let version: Version.ID
    /// The whole file.
    let bytes: Data
    /// One entry per item, in key order.
    let entries: [Entry]

    /// The number of items.
    var count: Int { entries.count }

    /// The heap the decoded pack occupies: its bytes, its entry table and their headers.
    var residentByteCount: Int { bytes.count + entries.count * MemoryLayout<Entry>.stride + 128 }

    /// Encodes items (any order; a repeated key keeps its last data) as a pack. The pack is
    /// allocated once at its exact size; the index goes in through a small buffer and the
    /// data blobs are copied once, straight into it (a bulk version's pack is hundreds of MB).
    static func encode(version: Version.ID, items: [(key: ZoneReference.Key, data: Data)]) -> Data {
        encode(version: version, keys: items.map(\.key)) { items[$0].data }
    }

    /// Encodes the items whose keys are `keys` and whose data `data` gives by position in
    /// `keys`, as ``encode(version:items:)`` does, without a list of the items made first.
    static func encode(version: Version.ID, keys: [ZoneReference.Key], data: (Int) -> Data) -> Data {
        let order = KeyOrder.positionsOfLastOccurrences(keys)
        var header = ByteWriter(capacity: min(headerPieceCount, 64 + order.count * 48))
        header.append(contentsOf: magic)
        header.append(formatVersion)
        header.appendIdentifier(version)
        header.appendVarint(UInt64(order.count))
        var size = header.bytes.count + SHA256.byteCount
        for index in order {
            let keyCount = keys[index].utf8Count, dataCount = data(index).count
            size += ByteWriter.varintByteCount(UInt64(keyCount)) + keyCount + ByteWriter.varintByteCount(UInt64(dataCount)) + dataCount
        }
        var pack = Data(capacity: size)
        for index in order {
            header.appendIdentifier(keys[index])
            header.appendVarint(UInt64(data(index).count))
            if header.bytes.count >= headerPieceCount {
                pack.append(contentsOf: header.bytes)
                header.removeAll()
            }
        }
        pack.append(contentsOf: header.bytes)
        for index in order { pack.append(data(index)) }
        pack.append(contentsOf: SHA256.hash(data: pack))
        return pack
    }

    /// The index of a pack is written into it in pieces of about this many bytes.
    private static let headerPieceCount = 1 << 16

    /// Enough leading bytes of a pack for ``versionSpan(inPrefix:)``.
    static let versionPrefixCount = magic.count + 1 + 10

    /// Where the version identifier lies in a pack that starts with `prefix` (at least
    /// ``versionPrefixCount`` bytes, or the whole pack when shorter), or nil when `prefix`
    /// does not start a pack of this format.
    static func versionSpan(inPrefix prefix: [UInt8]) -> Range<Int>? {
        guard prefix.count > magic.count, prefix.starts(with: magic), prefix[magic.count] == formatVersion else { return nil }
        var reader = ByteReader(Data(prefix[(magic.count + 1)...]))
        guard let length = try? reader.readVarint(), length <= UInt64(Int32.max) else { return nil }
        let start = magic.count + 1 + reader.offset
        return start..<(start + Int(length))
    }

    /// Decodes and verifies a pack read from `path`.
    ///
    /// - Throws: ``ZoneError/corrupt(path:reason:)`` for a bad magic, format, checksum,
    ///   truncation, unsorted keys or trailing bytes.
    ///   `checkingChecksum: false` is only for bytes ``encode(version:items:)`` has just made.
    init(decoding bytes: Data, path: String, checkingChecksum: Bool = true) throws {
        // Entry offsets are relative to the start; make sure that is index 0.
        let bytes = bytes.startIndex == 0 ? bytes : Data(bytes)
        let minimum = Self.magic.count + 1 + SHA256.byteCount
        guard bytes.count >= minimum else {
            throw ZoneError.corrupt(path: path, reason: "pack of \(bytes.count) bytes is shorter than the minimum \(minimum)")
        }
        let bodyCount = bytes.count - SHA256.byteCount
        guard !checkingChecksum || Data(SHA256.hash(data: bytes[0..<bodyCount])) == bytes[bodyCount...] else {
            throw ZoneError.corrupt(path: path, reason: "pack checksum does not match its contents")
        }
        var reader = ByteReader(bytes[0..<bodyCount])
        do {
            guard Array(try reader.readBytes(Self.magic.count)) == Self.magic else {
                throw ZoneError.corrupt(path: path, reason: "not a pack file (bad magic)")
            }
            let format = try reader.readByte()
            guard format == Self.formatVersion else {
                throw ZoneError.corrupt(path: path, reason: "unsupported pack format \(format)")
            }
            version = try reader.readIdentifier(Version.ID.self)
            let count = try reader.readCount(limit: reader.remainingCount)
            var entries: [Entry] = []
            entries.reserveCapacity(count)
            var dataLengths: [Int] = []
            dataLengths.reserveCapacity(count)
            for _ in 0..<count {
                let keyLength = try reader.readCount(limit: reader.remainingCount)
                let keyStart = reader.offset
                _ = try reader.readBytes(keyLength)
                entries.append(Entry(keyStart: keyStart, keyCount: keyLength, dataStart: 0, dataCount: 0))
                dataLengths.append(try reader.readCount(limit: reader.remainingCount))
            }
            for index in entries.indices {
                entries[index].dataStart = reader.offset
                entries[index].dataCount = dataLengths[index]
                _ = try reader.readBytes(dataLengths[index])
            }
            guard reader.isAtEnd else {
                throw ZoneError.corrupt(path: path, reason: "\(reader.remainingCount) unexpected bytes after the last item")
            }
            self.bytes = bytes
            self.entries = entries
        } catch let error as ByteReader.Error {
            throw ZoneError.corrupt(path: path, reason: error.description)
        }
        for (previous, next) in zip(entries, entries.dropFirst()) where compare(previous, next) >= 0 {
            throw ZoneError.corrupt(path: path, reason: "keys are not in strictly increasing byte order")
        }
    }

    /// The data stored under `key`, or nil. Binary search over the sorted keys.
    func data(for key: ZoneReference.Key) -> Data? {
        key.withUTF8 { wanted in data(forKeyBytes: wanted) }
    }

    private func data(forKeyBytes wanted: UnsafeRawBufferPointer) -> Data? {
        var low = 0, high = entries.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let order = compare(entries[middle], wanted)
            if order == 0 {
                let entry = entries[middle]
                return bytes[entry.dataStart..<(entry.dataStart + entry.dataCount)]
            }
            if order < 0 { low = middle + 1 } else { high = middle - 1 }
        }
        return nil
    }

    /// Byte-wise comparison of an entry's key with `key`: negative, zero or positive.
    private func compare(_ entry: Entry, _ key: UnsafeRawBufferPointer) -> Int {
        bytes.withUnsafeBytes { raw in
            compareBytes(UnsafeRawBufferPointer(rebasing: raw[entry.keyStart..<(entry.keyStart + entry.keyCount)]), key)
        }
    }

    private func compare(_ a: Entry, _ b: Entry) -> Int {
        bytes.withUnsafeBytes { raw in
            compareBytes(UnsafeRawBufferPointer(rebasing: raw[a.keyStart..<(a.keyStart + a.keyCount)]),
                         UnsafeRawBufferPointer(rebasing: raw[b.keyStart..<(b.keyStart + b.keyCount)]))
        }
    }
}
