import Crypto
import Foundation
import LLVSCore
import LLVSSupport

/// A SHA-256 digest: the hash that places a value identifier in the trie, and the identity
/// of a trie node. Compared and ordered as 32 big-endian bytes.
public struct Digest: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The digest as four big-endian 64-bit words (so tuple order is byte order).
    let words: (UInt64, UInt64, UInt64, UInt64)

    /// The number of bytes in a digest.
    public static let byteCount = 32

    /// The SHA-256 digest of `bytes`.
    public init<D: DataProtocol>(hashing bytes: D) {
        self.init(SHA256.hash(data: bytes))
    }

    init(_ digest: SHA256.Digest) {
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        digest.withUnsafeBytes { raw in
            words = (Self.bigEndianWord(raw, 0), Self.bigEndianWord(raw, 8), Self.bigEndianWord(raw, 16), Self.bigEndianWord(raw, 24))
        }
        self.words = words
    }

    /// Reads a digest from the next 32 bytes of `reader`.
    ///
    /// - Throws: `ByteReader.Error` when fewer than 32 bytes remain.
    public init(reading reader: inout ByteReader) throws(ByteReader.Error) {
        let bytes = try reader.readBytes(Self.byteCount)
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        bytes.withUnsafeBytes { raw in
            words = (Self.bigEndianWord(raw, 0), Self.bigEndianWord(raw, 8), Self.bigEndianWord(raw, 16), Self.bigEndianWord(raw, 24))
        }
        self.words = words
    }

    /// Parses 64 hex digits.
    public init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count == 64 else { return nil }
        var parsed: [UInt64] = []
        for word in 0..<4 {
            var value: UInt64 = 0
            for digit in digits[(word * 16)..<(word * 16 + 16)] {
                guard let nibble = Self.hexValue(digit) else { return nil }
                value = value << 4 | UInt64(nibble)
            }
            parsed.append(value)
        }
        words = (parsed[0], parsed[1], parsed[2], parsed[3])
    }

    /// The placement hash of a value identifier: SHA-256 of its UTF-8 bytes.
    public static func of(_ valueId: Value.ID) -> Digest {
        valueId.withUTF8 { Digest(hashing: $0) }
    }

    /// The 4-bit digit at `index` (0…63), most significant first: the child a key takes at
    /// trie depth `index`.
    public func nibble(at index: Int) -> Int {
        let word = index < 16 ? words.0 : index < 32 ? words.1 : index < 48 ? words.2 : words.3
        return Int((word >> UInt64(60 - 4 * (index % 16))) & 0xF)
    }

    /// The 32 bytes, most significant first.
    public var bytes: [UInt8] {
        var bigEndianWords = (words.0.bigEndian, words.1.bigEndian, words.2.bigEndian, words.3.bigEndian)
        return withUnsafeBytes(of: &bigEndianWords) { Array($0) }
    }

    /// Appends the 32 bytes, most significant first, without making an array of them.
    public func append(to writer: inout ByteWriter) {
        var bigEndianWords = (words.0.bigEndian, words.1.bigEndian, words.2.bigEndian, words.3.bigEndian)
        withUnsafeBytes(of: &bigEndianWords) { writer.append(contentsOf: $0) }
    }

    /// 64 lower-case hex digits.
    public var hex: String {
        var bigEndianWords = (words.0.bigEndian, words.1.bigEndian, words.2.bigEndian, words.3.bigEndian)
        return withUnsafeBytes(of: &bigEndianWords) { Hex.encode($0) }
    }

    /// The hex form.
    public var description: String { hex }

    public static func == (lhs: Digest, rhs: Digest) -> Bool {
        lhs.words == rhs.words
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
    }

    public static func < (lhs: Digest, rhs: Digest) -> Bool {
        lhs.words < rhs.words
    }

    private static func bigEndianWord(_ raw: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
