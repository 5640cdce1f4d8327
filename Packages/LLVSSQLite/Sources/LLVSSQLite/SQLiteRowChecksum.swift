import Crypto
import Foundation
import GRDB
import LLVSCore
import LLVSSupport

/// The checksums that every row of a store's database carries (schema `v2`, SPEC.md section
/// 14): the first 8 bytes of a SHA-256, so a changed byte of an item's address or data, or
/// of a version record, is found when the row is read instead of being returned.
enum SQLiteRowChecksum {
    /// The number of checksum bytes a row holds.
    static let byteCount = 8

    /// The checksum of a zone item: SHA-256 of `u8 zone, string version, string key, data`
    /// (strings as a varint length and the UTF-8 bytes, SPEC.md section 5).
    static func item(zone: Int, version: Data, key: Data, data: Data) -> Data {
        var checksum = version.withUnsafeBytes { version in
            key.withUnsafeBytes { key in
                data.withUnsafeBytes { data in item(zone: zone, version: version, key: key, data: data) }
            }
        }
        return withUnsafeBytes(of: &checksum) { Data($0) }
    }

    /// The checksum of a zone item whose identifiers and data are given as bytes, as the 8
    /// bytes of a `UInt64` in memory order (the bytes ``item(zone:version:key:data:)``
    /// returns), without allocating.
    static func item(zone: Int, version: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer) -> UInt64 {
        var hasher = SHA256()
        withUnsafeBytes(of: UInt8(truncatingIfNeeded: zone)) { hasher.update(bufferPointer: $0) }
        updateLengthPrefixed(&hasher, version)
        updateLengthPrefixed(&hasher, key)
        hasher.update(bufferPointer: data)
        return hasher.finalize().withUnsafeBytes { digest in digest.loadUnaligned(as: UInt64.self) }
    }

    /// Hashes a varint length (SPEC.md section 5) and the bytes.
    private static func updateLengthPrefixed(_ hasher: inout SHA256, _ bytes: UnsafeRawBufferPointer) {
        ByteWriter.withVarint(UInt64(bytes.count)) { hasher.update(bufferPointer: $0) }
        hasher.update(bufferPointer: bytes)
    }

    /// The checksum of a version record: SHA-256 of its bytes.
    static func record(_ record: Data) -> Data {
        Data(SHA256.hash(data: record).prefix(byteCount))
    }

    /// Whether `stored` is the checksum of the record bytes `record` (without making either
    /// as `Data`).
    static func record(_ record: UnsafeRawBufferPointer, matches stored: UnsafeRawBufferPointer) -> Bool {
        var hasher = SHA256()
        hasher.update(bufferPointer: record)
        return hasher.finalize().withUnsafeBytes { digest in
            stored.count == byteCount && stored.elementsEqual(digest.prefix(byteCount))
        }
    }
}

extension String {
    /// The string's UTF-8 bytes, which the SQLite backend binds as a BLOB: GRDB binds a
    /// `String` as C text, which ends at the first NUL, so `"a\0b"` would be stored as `"a"`.
    var sqliteBytes: Data { Data(utf8) }
}

extension Row {
    /// The column's bytes, or nil when it holds NULL or something else than a BLOB or text.
    /// (GRDB's typed subscripts trap on a value of another type; a damaged file can hold one.)
    func bytes(at index: Int) -> Data? {
        Data.fromDatabaseValue(self[index] as DatabaseValue)
    }

    /// The column's integer, or nil when it holds something else.
    func integer(at index: Int) -> Int64? {
        Int64.fromDatabaseValue(self[index] as DatabaseValue)
    }
}
