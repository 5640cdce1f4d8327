import Foundation
import LLVSCore
import LLVSMap
import LLVSSupport

/// What the store appends to its version log for each version (SPEC.md, "Version
/// records"): the version and the root of its map, in a compact binary form that loads
/// fast (opening a store decodes one record per version).
///
/// ```
/// u8 format = 1
/// string identifier
/// u8 predecessor count (0, 1 or 2), then each predecessor identifier as a string
/// 8 bytes  timestamp, IEEE 754 double, little-endian
/// u8 0 | 1, then (if 1) varint valueDataSize
/// varint metadata count, then (string key, length-prefixed bytes) per entry, keys sorted
/// u8 0 | 1, then (if 1) the map root: 32-byte hash, string location, varint count
/// ```
///
/// Strings are a varint byte count and UTF-8 bytes.
struct VersionRecord: Sendable {
    static let formatVersion: UInt8 = 1

    var version: Version
    var root: NodeReference?

    init(version: Version, root: NodeReference?) {
        self.version = version
        self.root = root
    }

    func encoded() -> Data {
        var writer = ByteWriter(capacity: 160)
        writer.append(Self.formatVersion)
        writer.appendIdentifier(version.id)
        let predecessors = version.predecessorIds
        writer.append(UInt8(predecessors.count))
        for predecessor in predecessors { writer.appendIdentifier(predecessor) }
        withUnsafeBytes(of: version.timestamp.bitPattern.littleEndian) { writer.append(contentsOf: $0) }
        if let size = version.valueDataSize {
            writer.append(1)
            writer.appendVarint(UInt64(max(size, 0)))
        } else {
            writer.append(0)
        }
        writer.appendVarint(UInt64(version.metadata.count))
        for (key, value) in version.metadata.sorted(by: { $0.key < $1.key }) {
            writer.appendString(key.rawValue)
            writer.appendLengthPrefixed(value.data)
        }
        if let root {
            writer.append(1)
            writer.append(contentsOf: root.hash.bytes)
            writer.appendIdentifier(root.location)
            writer.appendVarint(UInt64(root.count))
        } else {
            writer.append(0)
        }
        return writer.data
    }

    /// Reads a presence flag, which must be 0 or 1.
    private static func readFlag(_ field: String, of id: Version.ID, _ reader: inout ByteReader) throws -> Bool {
        let flag = try reader.readByte()
        guard flag <= 1 else { throw StoreError.corruptVersionRecord(reason: "version \(id) has a \(field) flag of \(flag)") }
        return flag == 1
    }

    /// Decodes a record, refusing any that breaks SPEC.md section 8: an unknown format,
    /// more than two predecessors or the same one twice, itself as a predecessor, a timestamp
    /// that is not finite, a flag other than 0 or 1, metadata keys out of byte order or
    /// repeated, bytes missing or left over.
    ///
    /// - Throws: ``StoreError/corruptVersionRecord(reason:)`` naming what is wrong.
    static func decode(_ data: Data) throws(StoreError) -> VersionRecord {
        var reader = ByteReader(data)
        do {
            let format = try reader.readByte()
            guard format == formatVersion else { throw StoreError.corruptVersionRecord(reason: "unknown record format \(format)") }
            let id = try reader.readIdentifier(Version.ID.self)
            let predecessorCount = try reader.readByte()
            guard predecessorCount <= 2 else {
                throw StoreError.corruptVersionRecord(reason: "version \(id) has \(predecessorCount) predecessors")
            }
            let first = predecessorCount > 0 ? try reader.readIdentifier(Version.ID.self) : nil
            let second = predecessorCount > 1 ? try reader.readIdentifier(Version.ID.self) : nil
            if let second, second == first {
                throw StoreError.corruptVersionRecord(reason: "version \(id) names predecessor \(second) twice")
            }
            if first == id || second == id {
                throw StoreError.corruptVersionRecord(reason: "version \(id) is its own predecessor")
            }
            let bits = try reader.readUInt64LittleEndian()
            guard Double(bitPattern: bits).isFinite else {
                throw StoreError.corruptVersionRecord(reason: "version \(id) has a timestamp that is not finite")
            }
            let valueDataSize: Int64? = try Self.readFlag("value data size", of: id, &reader) ? Int64(clamping: try reader.readVarint()) : nil
            var metadata: Version.Metadata = [:]
            var previousKey: Version.MetadataKey?
            for _ in 0..<(try reader.readCount(limit: reader.remainingCount)) {
                let key = Version.MetadataKey(rawValue: try reader.readString())
                // One encoding per record: keys strictly in byte order, none twice.
                if let previousKey, !(previousKey < key) {
                    throw StoreError.corruptVersionRecord(reason: "version \(id) has metadata keys out of order or repeated (\(key))")
                }
                previousKey = key
                metadata[key] = Version.MetadataValue(data: Data(try reader.readLengthPrefixed()))
            }
            var root: NodeReference?
            if try Self.readFlag("map root", of: id, &reader) {
                let hash = try Digest(reading: &reader)
                // Usually the version itself: then its identifier's string is shared.
                let read = try reader.readIdentifier(Version.ID.self)
                let location = read == id ? id : read
                root = NodeReference(hash: hash, location: location, count: try reader.readCount(limit: Int.max))
            }
            guard reader.isAtEnd else {
                throw StoreError.corruptVersionRecord(reason: "version \(id) is followed by \(reader.remainingCount) unexpected bytes")
            }
            let version = Version(id: id, predecessors: first.map { .init(idOfFirst: $0, idOfSecond: second) },
                                  timestamp: Double(bitPattern: bits), valueDataSize: valueDataSize, metadata: metadata)
            return VersionRecord(version: version, root: root)
        } catch let error as ByteReader.Error {
            throw .corruptVersionRecord(reason: error.description)
        } catch let error as StoreError {
            throw error
        } catch {
            throw .corruptVersionRecord(reason: "\(error)")
        }
    }
}
