import Foundation
import LLVSCore

/// Builds the compact binary encodings of SPEC.md (map nodes, pack files): unsigned LEB128
/// varints, raw bytes and length-prefixed byte strings.
public struct ByteWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []

    /// Creates an empty writer, optionally reserving room for `capacity` bytes.
    public init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    /// Creates an empty writer that writes into `buffer`'s storage (its bytes are dropped,
    /// its capacity kept): a writer used over and over allocates once.
    public init(reusing buffer: consuming [UInt8]) {
        bytes = consume buffer
        bytes.removeAll(keepingCapacity: true)
    }

    /// The bytes written so far, as `Data`.
    public var data: Data { Data(bytes) }

    /// The bytes written, handed over without a copy (the writer is used up).
    public consuming func takeBytes() -> [UInt8] { bytes }

    /// Appends one byte.
    public mutating func append(_ byte: UInt8) {
        bytes.append(byte)
    }

    /// Appends raw bytes.
    public mutating func append<S: Sequence>(contentsOf other: S) where S.Element == UInt8 {
        bytes.append(contentsOf: other)
    }

    /// Appends the bytes of `data` with one copy (`Array.append(contentsOf:)` given a `Data`
    /// takes the generic path, several times slower on values of a few hundred bytes).
    public mutating func append(contentsOf data: Data) {
        data.withUnsafeBytes { bytes.append(contentsOf: $0) }
    }

    /// Appends an unsigned LEB128 varint: 7 bits per byte, least significant group first,
    /// high bit set on every byte but the last.
    public mutating func appendVarint(_ value: UInt64) {
        var remaining = value
        while remaining >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: remaining) | 0x80)
            remaining >>= 7
        }
        bytes.append(UInt8(remaining))
    }

    /// Inserts the varint of `value` at `offset` (at most `bytes.count`; an offset past it
    /// appends), moving the bytes after it: a length that goes before what it measures.
    ///
    /// - Complexity: O(the bytes after `offset`).
    public mutating func insertVarint(_ value: UInt64, at offset: Int) {
        Self.withVarint(value) { bytes.insert(contentsOf: $0, at: min(max(0, offset), bytes.count)) }
    }

    /// Calls `body` with the bytes ``appendVarint(_:)`` writes for `value`, made on the stack
    /// (no allocation): for a length that goes somewhere other than the end of a writer.
    public static func withVarint<R>(_ value: UInt64, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var varint: (UInt64, UInt64) = (0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &varint) { buffer in
            var remaining = value
            while remaining >= 0x80 {
                buffer[count] = UInt8(truncatingIfNeeded: remaining) | 0x80
                remaining >>= 7
                count += 1
            }
            buffer[count] = UInt8(remaining)
            count += 1
        }
        return try withUnsafeBytes(of: &varint) { try body(UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
    }

    /// Appends what `body` writes after its length as a varint, without writing it twice:
    /// room for a length of `lengthByteCount` bytes goes first and is filled once `body`
    /// returns (the bytes after it move only when the length needs another width). The
    /// bytes are those of `appendLengthPrefixed(_:)` given what `body` writes.
    ///
    /// - Complexity: O(what `body` writes) when the length takes `lengthByteCount` bytes.
    public mutating func appendLengthPrefixed(lengthByteCount: Int, _ body: (inout ByteWriter) -> Void) {
        let lengthStart = bytes.count
        let reserved = min(max(1, lengthByteCount), 10)
        bytes.append(contentsOf: repeatElement(0, count: reserved))
        let start = bytes.count
        body(&self)
        let length = UInt64(bytes.count - start)
        Self.withVarint(length) { varint in
            bytes.replaceSubrange(lengthStart..<start, with: varint)
        }
    }

    /// The number of bytes ``appendVarint(_:)`` writes for `value` (1 to 10).
    public static func varintByteCount(_ value: UInt64) -> Int {
        max(1, (64 - value.leadingZeroBitCount + 6) / 7)
    }

    /// Forgets the bytes written, keeping the buffer's capacity (to write a long encoding
    /// out in pieces).
    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
    }

    /// Appends a varint length followed by the bytes.
    public mutating func appendLengthPrefixed<C: Collection>(_ other: C) where C.Element == UInt8 {
        appendVarint(UInt64(other.count))
        bytes.append(contentsOf: other)
    }

    /// Appends `data`'s length as a varint, then its bytes (with one copy).
    public mutating func appendLengthPrefixed(_ data: Data) {
        appendVarint(UInt64(data.count))
        append(contentsOf: data)
    }

    /// Appends a string as a varint length followed by its UTF-8 bytes.
    public mutating func appendString(_ string: String) {
        var string = string
        string.withUTF8 { utf8 in
            appendVarint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// Appends an identifier as a varint length followed by its UTF-8 bytes (the encoding of
    /// ``appendString(_:)``), without making its string.
    public mutating func appendIdentifier<Identifier: StringIdentifier>(_ identifier: Identifier) {
        identifier.withUTF8 { utf8 in
            appendVarint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// Appends an identifier as a varint length followed by its UTF-8 bytes, formatting a
    /// UUID straight into the buffer.
    public mutating func appendIdentifier<Identifier: CompactStringIdentifier>(_ identifier: Identifier) {
        appendVarint(UInt64(identifier.storage.utf8Count))
        identifier.storage.appendUTF8(to: &bytes)
    }
}

/// Reads what ``ByteWriter`` writes, checking every bound: malformed or truncated input
/// throws ``ByteReader/Error`` naming the offset, never traps.
public struct ByteReader: Sendable {
    /// Why bytes could not be read.
    public enum Error: Swift.Error, Hashable, CustomStringConvertible {
        /// `needed` bytes were required at `offset` but only `available` remain.
        case truncated(offset: Int, needed: Int, available: Int)
        /// A varint at `offset` is longer than 10 bytes, overflows 64 bits, or is not in
        /// its shortest form (a last byte of 0 after others).
        case malformedVarint(offset: Int)
        /// A string at `offset` is not valid UTF-8.
        case invalidUTF8(offset: Int)

        /// A sentence naming the problem and where it is.
        public var description: String {
            switch self {
            case let .truncated(offset, needed, available):
                return "Truncated data: \(needed) bytes needed at offset \(offset), \(available) available."
            case .malformedVarint(let offset):
                return "Malformed varint at offset \(offset)."
            case .invalidUTF8(let offset):
                return "Invalid UTF-8 string at offset \(offset)."
            }
        }
    }

    /// The bytes read: small inputs copied into an array once, since every access to a
    /// `Data`'s storage costs a dynamic exclusivity check (a tenth of decoding a version
    /// record went there); larger ones read in place.
    private enum Storage: Sendable {
        case data(Data)
        case array([UInt8])
    }

    /// Inputs up to this size are copied into an array.
    private static let copyLimit = 4_096

    private let storage: Storage
    /// Where the reader's bytes start in `storage` (not 0 for a reader of part of another's).
    private let base: Int
    private let count: Int
    /// The number of bytes consumed so far.
    public private(set) var offset: Int = 0

    /// Creates a reader over `data` (any `Data`, including a slice).
    public init(_ data: Data) {
        self.count = data.count
        self.base = 0
        self.storage = data.count <= Self.copyLimit ? .array(Array(data)) : .data(data)
    }

    /// A reader of `count` bytes of `storage` from `base`.
    private init(storage: Storage, base: Int, count: Int) {
        self.storage = storage
        self.base = base
        self.count = count
    }

    /// A reader of the bytes at `range` (offsets in this reader), sharing this reader's
    /// storage (nothing is copied), or nil when `range` is not within this reader's bytes.
    /// Its offsets, and those its errors name, count from the range's start.
    public func reader(of range: Range<Int>) -> ByteReader? {
        guard range.lowerBound >= 0, range.upperBound <= count else { return nil }
        return ByteReader(storage: storage, base: base + range.lowerBound, count: range.count)
    }

    /// Reads a varint length and returns a reader of that many bytes, as
    /// ``readLengthPrefixed()`` reads them but sharing this reader's storage.
    ///
    /// - Throws: As ``readLengthPrefixed()``.
    public mutating func readLengthPrefixedReader() throws(Error) -> ByteReader {
        let length = try readLength()
        let reader = ByteReader(storage: storage, base: base + offset, count: length)
        offset += length
        return reader
    }

    /// Reads 8 bytes as an unsigned integer, least significant byte first.
    ///
    /// - Throws: ``Error/truncated(offset:needed:available:)`` when fewer than 8 bytes
    ///   remain, as ``readBytes(_:)`` does.
    public mutating func readUInt64LittleEndian() throws(Error) -> UInt64 {
        guard remainingCount >= 8 else { throw .truncated(offset: offset, needed: 8, available: remainingCount) }
        let start = offset
        offset += 8
        return withBytes { raw in
            var bits: UInt64 = 0
            for index in 0..<8 { bits |= UInt64(raw[start + index]) << UInt64(8 * index) }
            return bits
        }
    }

    /// Skips `count` bytes, as ``readBytes(_:)`` would read them, without copying them.
    ///
    /// - Throws: ``Error/truncated(offset:needed:available:)`` when fewer bytes remain.
    public mutating func skipBytes(_ count: Int) throws(Error) {
        guard count >= 0, count <= remainingCount else {
            throw .truncated(offset: offset, needed: count, available: remainingCount)
        }
        offset += count
    }

    /// The number of bytes not yet read.
    public var remainingCount: Int { count - offset }

    /// True when every byte has been read.
    public var isAtEnd: Bool { offset >= count }

    private func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        switch storage {
        case .data(let data): return data.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[base..<(base + count)])) }
        case .array(let array): return array.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[base..<(base + count)])) }
        }
    }

    /// Reads one byte.
    ///
    /// - Throws: ``Error/truncated(offset:needed:available:)`` at the end of the data.
    public mutating func readByte() throws(Error) -> UInt8 {
        guard offset < count else { throw .truncated(offset: offset, needed: 1, available: 0) }
        let position = offset
        offset += 1
        return withBytes { $0[position] }
    }

    /// Reads `count` bytes as `Data` (a slice sharing the reader's storage when the input
    /// was large).
    ///
    /// - Throws: ``Error/truncated(offset:needed:available:)`` when fewer bytes remain.
    public mutating func readBytes(_ count: Int) throws(Error) -> Data {
        guard count >= 0, count <= remainingCount else {
            throw .truncated(offset: offset, needed: count, available: remainingCount)
        }
        let start = offset
        offset += count
        switch storage {
        case .data(let data): return data[(data.startIndex + base + start)..<(data.startIndex + base + start + count)]
        case .array(let array): return Data(array[(base + start)..<(base + start + count)])
        }
    }

    /// Reads an unsigned LEB128 varint in its shortest form (SPEC.md section 5).
    ///
    /// - Throws: ``Error/truncated(offset:needed:available:)`` or
    ///   ``Error/malformedVarint(offset:)``.
    public mutating func readVarint() throws(Error) -> UInt64 {
        let start = offset
        // One pass over the bytes in place (subscripting `Data` byte by byte costs a
        // dynamic exclusivity check on its storage per byte).
        enum Outcome { case value(UInt64, end: Int), malformed(end: Int), truncated }
        let outcome = withBytes { raw -> Outcome in
            var result: UInt64 = 0
            var shift: UInt64 = 0
            var index = start
            while index < raw.count {
                let byte = raw[index]
                index += 1
                let group = UInt64(byte & 0x7F)
                guard shift < 64, shift < 63 || group <= 1 else { return .malformed(end: index) }
                result |= group << shift
                if byte & 0x80 == 0 {
                    // Only the shortest form: a last group of 0 after others would give one
                    // value two encodings (and records compared byte for byte two forms).
                    guard byte != 0 || index == start + 1 else { return .malformed(end: index) }
                    return .value(result, end: index)
                }
                shift += 7
            }
            return .truncated
        }
        switch outcome {
        case let .value(value, end):
            offset = end
            return value
        case .malformed(let end):
            offset = end
            throw .malformedVarint(offset: start)
        case .truncated:
            offset = count
            throw .truncated(offset: count, needed: 1, available: 0)
        }
    }

    /// Reads a varint and checks that it fits an `Int` no larger than `limit`.
    ///
    /// - Throws: ``Error/truncated(offset:needed:available:)`` when the value exceeds the
    ///   limit (a count that cannot be satisfied), or a varint error.
    public mutating func readCount(limit: Int) throws(Error) -> Int {
        let value = try readVarint()
        guard value <= UInt64(max(limit, 0)) else {
            throw .truncated(offset: offset, needed: value > UInt64(Int.max) ? Int.max : Int(value), available: limit)
        }
        return Int(value)
    }

    /// Reads a varint length and that many bytes.
    ///
    /// - Throws: ``Error`` when the length or the bytes are missing.
    public mutating func readLengthPrefixed() throws(Error) -> Data {
        try readBytes(readLength())
    }

    /// Skips what ``readLengthPrefixed()`` reads, without copying it.
    ///
    /// - Throws: As ``readLengthPrefixed()``.
    public mutating func skipLengthPrefixed() throws(Error) {
        offset += try readLength()
    }

    /// Skips what `readIdentifier(_:)` reads, checking that it is UTF-8 as reading does,
    /// without making the identifier (no allocation for an ASCII one).
    ///
    /// - Throws: As `readIdentifier(_:)`.
    public mutating func skipIdentifier() throws(Error) {
        let start = offset
        let count = try readLength()
        let bytesStart = offset
        let valid = withBytes { raw in
            let bytes = UnsafeRawBufferPointer(rebasing: raw[bytesStart..<(bytesStart + count)])
            return Self.isASCII(bytes) || String(validating: bytes, as: UTF8.self) != nil
        }
        guard valid else { throw .invalidUTF8(offset: start) }
        offset += count
    }

    /// True when every byte is below 0x80, looked at eight bytes at a time.
    private static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        var highBits: UInt64 = 0
        while index + 8 <= bytes.count {
            highBits |= bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < bytes.count {
            highBits |= UInt64(bytes[index])
            index += 1
        }
        return highBits & 0x8080_8080_8080_8080 == 0
    }

    /// Reads a varint length no larger than what remains after it.
    private mutating func readLength() throws(Error) -> Int {
        let value = try readVarint()
        guard value <= UInt64(remainingCount) else {
            throw .truncated(offset: offset, needed: value > UInt64(Int.max) ? Int.max : Int(value), available: remainingCount)
        }
        return Int(value)
    }

    /// Reads a varint length and that many bytes as a UTF-8 string.
    ///
    /// - Throws: ``Error/invalidUTF8(offset:)`` for bytes that are not UTF-8, or a length
    ///   error.
    public mutating func readString() throws(Error) -> String {
        let start = offset
        let bytes = try readLengthPrefixed()
        guard let string = String(validating: bytes, as: UTF8.self) else { throw .invalidUTF8(offset: start) }
        return string
    }

    /// Reads what `ByteWriter.appendIdentifier(_:)` (or ``ByteWriter/appendString(_:)``)
    /// writes, straight into an identifier (a UUID without making its string).
    ///
    /// - Throws: ``Error/invalidUTF8(offset:)`` for bytes that are not UTF-8, or a length
    ///   error.
    public mutating func readIdentifier<Identifier: StringIdentifier>(_ type: Identifier.Type = Identifier.self) throws(Error) -> Identifier {
        try readSpecializedIdentifier(type)
    }

    /// Reads a value identifier (``readIdentifier(_:)`` specialized: the generic form, called
    /// from another module, looked up type metadata on every read).
    public mutating func readIdentifier(_ type: Value.ID.Type) throws(Error) -> Value.ID {
        try readSpecializedIdentifier(type)
    }

    /// Reads a version identifier (``readIdentifier(_:)`` specialized).
    public mutating func readIdentifier(_ type: Version.ID.Type) throws(Error) -> Version.ID {
        try readSpecializedIdentifier(type)
    }

    @inline(__always)
    private mutating func readSpecializedIdentifier<Identifier: StringIdentifier>(_ type: Identifier.Type) throws(Error) -> Identifier {
        let start = offset
        let count = try readLength()
        let bytesStart = offset
        guard let identifier = withBytes({ raw in
            Identifier(validatingUTF8: UnsafeRawBufferPointer(start: raw.baseAddress.map { $0 + bytesStart }, count: count))
        }) else { throw .invalidUTF8(offset: start) }
        offset += count
        return identifier
    }
}
