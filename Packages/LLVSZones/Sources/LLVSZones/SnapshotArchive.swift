import Crypto
import Foundation
import LLVSCore
import LLVSSupport

/// The file backend's snapshot archive (SPEC.md, "Snapshot archive"):
///
/// ```
/// "LLVSSNP1"
/// entry*:   u32 LE path length (1...4096), path (UTF-8), u64 LE data length, data,
///           SHA-256 of the entry's bytes so far (length, path, length, data; 32 bytes)
/// end:      u32 LE 0, u64 LE entry count
/// ```
///
/// Paths are relative to the store directory: `values/<shard>/<name>.pack`,
/// `maps/<shard>/<name>.pack` and `versions/<name>.log` (a version log segment, cut at its
/// last complete record). Nothing may follow the end marker.
enum SnapshotArchive {
    static let magic = Array("LLVSSNP1".utf8)
    static let maximumPathLength = 4096

    /// Appends an entry's bytes to `writer`.
    static func encodeEntry(path: String, data: Data, into writer: inout ByteWriter) {
        let header = entryHeader(path: Array(path.utf8), dataCount: data.count)
        writer.append(contentsOf: header)
        writer.append(contentsOf: data)
        writer.append(contentsOf: checksum(header: header, data: data))
    }

    /// The bytes of an entry before its data.
    static func entryHeader(path: [UInt8], dataCount: Int) -> [UInt8] {
        var header: [UInt8] = []
        header.reserveCapacity(path.count + 12)
        withUnsafeBytes(of: UInt32(path.count).littleEndian) { header.append(contentsOf: $0) }
        header.append(contentsOf: path)
        withUnsafeBytes(of: UInt64(dataCount).littleEndian) { header.append(contentsOf: $0) }
        return header
    }

    /// The checksum of an entry: SHA-256 of its header and data, so a damaged path is
    /// caught as surely as damaged data.
    static func checksum(header: [UInt8], data: Data) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: header)
        hasher.update(data: data)
        return Array(hasher.finalize())
    }

    /// The end marker for an archive of `entryCount` entries.
    static func encodeEnd(entryCount: Int) -> Data {
        var writer = ByteWriter(capacity: 12)
        withUnsafeBytes(of: UInt32(0).littleEndian) { writer.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt64(entryCount).littleEndian) { writer.append(contentsOf: $0) }
        return writer.data
    }

    /// What an archive path names inside a store.
    enum Target: Equatable {
        /// A pack of the `zone` directory (`values` or `maps`), in `shard`, named `name`.
        case pack(zone: String, shard: String, name: String)
        /// A version log segment.
        case logSegment(name: String)
    }

    /// Parses and checks an archive path; nil for anything that is not a pack or a log
    /// segment in its expected place (so no path can leave the store directory).
    static func target(of path: String) -> Target? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        func isSafeName(_ name: String, suffix: String) -> Bool {
            name.count > suffix.count && name.count <= 255 && name.hasSuffix(suffix) && !name.hasPrefix(".")
                && !name.contains("/") && !name.contains("\0")
        }
        if parts.count == 3, ["values", "maps"].contains(parts[0]),
           parts[1].count == 2, parts[1].allSatisfy(\.isHexDigit), parts[1] == parts[1].lowercased(),
           isSafeName(parts[2], suffix: ".pack") {
            return .pack(zone: parts[0], shard: parts[1], name: parts[2])
        }
        if parts.count == 2, parts[0] == "versions", isSafeName(parts[1], suffix: ".log") {
            return .logSegment(name: parts[1])
        }
        return nil
    }
}

/// Reads exact byte counts from an archive handed over in pieces of any size.
struct PieceReader {
    private let source: () throws -> Data?
    private var buffer = Data()
    private var position = 0
    /// Bytes consumed so far.
    private(set) var offset: Int64 = 0

    init(source: @escaping () throws -> Data?) {
        self.source = source
    }

    /// The next `count` bytes, or nil if the archive ends first.
    mutating func read(_ count: Int) throws -> Data? {
        var result = Data()
        result.reserveCapacity(count)
        while result.count < count {
            if position == buffer.count {
                guard let next = try source() else { return nil }
                buffer = next
                position = 0
                continue
            }
            let take = min(count - result.count, buffer.count - position)
            result.append(buffer[buffer.startIndex + position ..< buffer.startIndex + position + take])
            position += take
        }
        offset += Int64(count)
        return result
    }

    /// True when no byte is left.
    mutating func isAtEnd() throws -> Bool {
        while position == buffer.count {
            guard let next = try source() else { return true }
            buffer = next
            position = 0
        }
        return false
    }

    /// Reads a little-endian unsigned integer of `byteCount` bytes.
    mutating func readInteger(byteCount: Int) throws -> UInt64? {
        guard let bytes = try read(byteCount) else { return nil }
        return bytes.enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
    }
}
