import Foundation

/// The UTF-8 bytes of an identifier, held compactly: a UUID string in its canonical
/// shape (36 characters, hexadecimal digits all upper case or all lower case, dashes after
/// the 8th, 12th, 16th and 20th) as its 128 bits, in the value itself; any other string
/// as that string.
///
/// New versions and most values get UUID strings, and a 36-character string is too long
/// for Swift's inline small strings: each one would otherwise be a heap object of 80 bytes
/// with a reference count touched on every copy. Every identifier a store holds — a
/// history of 100,000 versions, a map of 1,000,000 values — is held this way.
///
/// The representation is canonical (a string of the UUID shape is always held as its
/// bits), so equality and hashing work on the representation, and both agree with
/// comparing the exact UTF-8 bytes. Ordering is the lexicographic order of the bytes.
public struct IdentifierStorage: Hashable, Comparable, Sendable {
    enum Form: Sendable {
        case uuid(high: UInt64, low: UInt64, lowercase: Bool)
        case string(String)
    }

    var form: Form

    /// Holds `string`: as 128 bits when it has the canonical UUID shape, else as is.
    public init(_ string: String) {
        var string = string
        if string.utf8.count == Self.uuidByteCount,
           let uuid = string.withUTF8({ Self.parseUUID(UnsafeRawBufferPointer($0)) }) {
            form = uuid
        } else {
            form = .string(string)
        }
    }

    /// Holds the string whose UTF-8 encoding is `bytes`, or nil when they are not UTF-8.
    public init?(validatingUTF8 bytes: UnsafeRawBufferPointer) {
        if let uuid = Self.parseUUID(bytes) {
            form = uuid
        } else if let string = String(validating: bytes, as: UTF8.self) {
            form = .string(string)
        } else {
            return nil
        }
    }

    /// The string form (made afresh for a UUID: a heap allocation).
    public var string: String {
        switch form {
        case .string(let string):
            return string
        case let .uuid(high, low, lowercase):
            return String(unsafeUninitializedCapacity: Self.uuidByteCount) { buffer in
                Self.formatUUID(high: high, low: low, lowercase: lowercase, into: UnsafeMutableRawBufferPointer(buffer))
                return Self.uuidByteCount
            }
        }
    }

    /// The number of UTF-8 bytes.
    public var utf8Count: Int {
        switch form {
        case .uuid: return Self.uuidByteCount
        case .string(let string): return string.utf8.count
        }
    }

    /// The heap the identifier occupies beyond its inline storage: nothing for a UUID or a
    /// string of at most 15 bytes, else the string's object. An estimate for byte budgets.
    public var heapByteCount: Int {
        switch form {
        case .uuid: return 0
        case .string(let string):
            let count = string.utf8.count
            return count <= 15 ? 0 : 32 + (count + 15) & ~15
        }
    }

    /// Calls `body` with the UTF-8 bytes (formatted on the stack for a UUID), without
    /// allocating.
    public func withUTF8<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        switch form {
        case .string(var string):
            return try string.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
        case let .uuid(high, low, lowercase):
            return try withUnsafeTemporaryAllocation(byteCount: Self.uuidByteCount, alignment: 1) { buffer in
                Self.formatUUID(high: high, low: low, lowercase: lowercase, into: buffer)
                return try body(UnsafeRawBufferPointer(buffer))
            }
        }
    }

    /// Appends the UTF-8 bytes to `bytes` (a UUID formatted in place, without a temporary).
    public func appendUTF8(to bytes: inout [UInt8]) {
        switch form {
        case .string(var string):
            string.withUTF8 { bytes.append(contentsOf: $0) }
        case let .uuid(high, low, lowercase):
            withUnsafeTemporaryAllocation(byteCount: Self.uuidByteCount, alignment: 1) { buffer in
                Self.formatUUID(high: high, low: low, lowercase: lowercase, into: buffer)
                bytes.append(contentsOf: UnsafeRawBufferPointer(buffer))
            }
        }
    }

    /// Compares the UTF-8 bytes lexicographically: negative, zero or positive.
    public func compare(_ other: IdentifierStorage) -> Int {
        switch (form, other.form) {
        case let (.uuid(high, low, lowercase), .uuid(otherHigh, otherLow, otherLowercase)) where lowercase == otherLowercase:
            // Within one case, the digits' byte order is their numeric order.
            if high != otherHigh { return high < otherHigh ? -1 : 1 }
            return low == otherLow ? 0 : (low < otherLow ? -1 : 1)
        case let (.string(left), .string(right)):
            return compareUTF8(left, right)
        default:
            return withUTF8 { left in other.withUTF8 { right in compareBytes(left, right) } }
        }
    }

    /// True when both hold the same bytes.
    public static func == (lhs: IdentifierStorage, rhs: IdentifierStorage) -> Bool {
        switch (lhs.form, rhs.form) {
        case let (.uuid(high, low, lowercase), .uuid(otherHigh, otherLow, otherLowercase)):
            return high == otherHigh && low == otherLow && lowercase == otherLowercase
        case let (.string(left), .string(right)):
            return compareUTF8(left, right) == 0
        default:
            // A string of the UUID shape is never held as a string.
            return false
        }
    }

    /// Orders by the UTF-8 bytes.
    public static func < (lhs: IdentifierStorage, rhs: IdentifierStorage) -> Bool {
        lhs.compare(rhs) < 0
    }

    /// Hashes the representation (canonical, so equal bytes hash alike).
    public func hash(into hasher: inout Hasher) {
        switch form {
        case let .uuid(high, low, lowercase):
            hasher.combine(high)
            hasher.combine(low)
            hasher.combine(lowercase)
        case .string(var string):
            string.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
            // The length keeps identifiers combined in one hash (a reference's two ids) apart.
            hasher.combine(string.utf8.count)
        }
    }

    // MARK: The UUID shape

    static let uuidByteCount = 36

    private static func isDashPosition(_ index: Int) -> Bool {
        index == 8 || index == 13 || index == 18 || index == 23
    }

    /// Per byte: the value of a hexadecimal digit (0–15), plus 0x10 for an upper-case
    /// letter and 0x20 for a lower-case one; 0xFF for any other byte.
    private static let hexTable: [UInt8] = (0...255).map { byte -> UInt8 in
        switch byte {
        case 0x30...0x39: return UInt8(byte - 0x30)
        case 0x41...0x46: return UInt8(byte - 0x37) | 0x10
        case 0x61...0x66: return UInt8(byte - 0x57) | 0x20
        default: return 0xFF
        }
    }

    /// The bits of a canonical UUID string, or nil for any other bytes.
    static func parseUUID(_ bytes: UnsafeRawBufferPointer) -> Form? {
        guard bytes.count == uuidByteCount, bytes[8] == 0x2D, bytes[13] == 0x2D, bytes[18] == 0x2D, bytes[23] == 0x2D else {
            return nil
        }
        return hexTable.withUnsafeBufferPointer { table -> Form? in
            var high: UInt64 = 0, low: UInt64 = 0
            var flags: UInt8 = 0
            func take(_ index: Int, into word: inout UInt64) {
                let entry = table[Int(bytes[index])]
                flags |= entry
                word = word << 4 | UInt64(entry & 0x0F)
            }
            for index in 0..<8 { take(index, into: &high) }
            for index in 9..<13 { take(index, into: &high) }
            for index in 14..<18 { take(index, into: &high) }
            for index in 19..<23 { take(index, into: &low) }
            for index in 24..<36 { take(index, into: &low) }
            // A byte that is not a digit sets the top bits; both letter cases have no
            // single form (digits alone are held as upper case).
            guard flags & 0xC0 == 0, flags & 0x30 != 0x30 else { return nil }
            return .uuid(high: high, low: low, lowercase: flags & 0x20 != 0)
        }
    }

    /// Writes the 36 bytes of a UUID string into `buffer` (at least 36 bytes): the digits of
    /// `high` and `low`, most significant first, with dashes after the 8th, 12th, 16th and
    /// 20th. Eight or four digits at a time, in the bytes of one integer.
    static func formatUUID(high: UInt64, low: UInt64, lowercase: Bool, into buffer: UnsafeMutableRawBufferPointer) {
        // A digit is `0` plus its value, and a letter 7 (upper case) or 39 (lower) more.
        let letterOffset: UInt8 = lowercase ? 0x27 : 0x07
        buffer.storeBytes(of: eightDigits(UInt32(truncatingIfNeeded: high >> 32), letterOffset: letterOffset), toByteOffset: 0, as: UInt64.self)
        buffer.storeBytes(of: fourDigits(UInt16(truncatingIfNeeded: high >> 16), letterOffset: letterOffset), toByteOffset: 9, as: UInt32.self)
        buffer.storeBytes(of: fourDigits(UInt16(truncatingIfNeeded: high), letterOffset: letterOffset), toByteOffset: 14, as: UInt32.self)
        buffer.storeBytes(of: fourDigits(UInt16(truncatingIfNeeded: low >> 48), letterOffset: letterOffset), toByteOffset: 19, as: UInt32.self)
        buffer.storeBytes(of: fourDigits(UInt16(truncatingIfNeeded: low >> 32), letterOffset: letterOffset), toByteOffset: 24, as: UInt32.self)
        buffer.storeBytes(of: eightDigits(UInt32(truncatingIfNeeded: low), letterOffset: letterOffset), toByteOffset: 28, as: UInt64.self)
        buffer[8] = 0x2D
        buffer[13] = 0x2D
        buffer[18] = 0x2D
        buffer[23] = 0x2D
    }

    /// The eight hexadecimal digits of `value` as the bytes of an integer, most significant
    /// digit at the lowest address: each nibble spread to a byte, then `0` added to every
    /// byte and `letterOffset` more to those above 9 (a nibble above 9 plus 6 carries into
    /// its byte's fifth bit, never into the next byte).
    @inline(__always)
    private static func eightDigits(_ value: UInt32, letterOffset: UInt8) -> UInt64 {
        var spread = UInt64(value)
        spread = (spread & 0xFFFF_0000) << 16 | spread & 0xFFFF
        spread = (spread & 0x0000_FF00_0000_FF00) << 8 | spread & 0x0000_00FF_0000_00FF
        spread = (spread & 0x00F0_00F0_00F0_00F0) << 4 | spread & 0x000F_000F_000F_000F
        let letters = (spread &+ 0x0606_0606_0606_0606) >> 4 & 0x0101_0101_0101_0101
        return (spread &+ 0x3030_3030_3030_3030 &+ letters &* UInt64(letterOffset)).bigEndian
    }

    /// The four hexadecimal digits of `value`, as ``eightDigits(_:letterOffset:)`` makes eight.
    @inline(__always)
    private static func fourDigits(_ value: UInt16, letterOffset: UInt8) -> UInt32 {
        var spread = UInt32(value)
        spread = (spread & 0xFF00) << 8 | spread & 0x00FF
        spread = (spread & 0x00F0_00F0) << 4 | spread & 0x000F_000F
        let letters = (spread &+ 0x0606_0606) >> 4 & 0x0101_0101
        return (spread &+ 0x3030_3030 &+ letters &* UInt32(letterOffset)).bigEndian
    }
}

/// Compares two byte strings lexicographically: negative, zero or positive.
public func compareBytes(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Int {
    let common = min(left.count, right.count)
    if common > 0, let a = left.baseAddress, let b = right.baseAddress {
        let order = memcmp(a, b, common)
        if order != 0 { return Int(order) }
    }
    return left.count - right.count
}
