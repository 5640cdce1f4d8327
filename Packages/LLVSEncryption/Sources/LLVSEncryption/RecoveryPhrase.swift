import Crypto
import Foundation

/// 24 words a person can write down that stand for a 32-byte secret: the store key when
/// a store is created, and the recovery secret of the keyring after a device is removed
/// (``Keyring``).
///
/// The words encode the secret as BIP-39 encodes 256 bits of entropy: the 32 bytes, then
/// the first byte of their SHA-256 as a checksum, cut into 24 groups of 11 bits, each group
/// the index of a word in the BIP-39 English list. (Only the encoding is BIP-39's; nothing
/// is derived from the words with PBKDF2.) The checksum catches a wrong word or two words
/// swapped, with a chance of 1 in 256 of missing it.
public struct RecoveryPhrase: Sendable, Hashable, CustomStringConvertible {
    /// The 24 words, lowercase, in order.
    public let words: [String]
    /// The 32 bytes the words stand for.
    public let secret: Data

    /// The phrase for a 32-byte `secret`.
    ///
    /// - Throws: ``EncryptionError/invalidKey(reason:)`` unless there are exactly 32 bytes.
    public init(secret: some DataProtocol) throws(EncryptionError) {
        guard secret.count == 32 else {
            throw EncryptionError.invalidKey(reason: "a recovery phrase stands for 32 bytes, not \(secret.count)")
        }
        self.init(checkedSecret: Array(secret))
    }

    /// The phrase of a store key.
    public init(storeKey: StoreEncryptionKey) {
        self.init(checkedSecret: Array(storeKey.rawRepresentation))
    }

    /// The phrase of `bytes`, which are 32.
    private init(checkedSecret bytes: [UInt8]) {
        let bits = bytes + [Array(SHA256.hash(data: bytes))[0]]
        words = (0..<24).map { String(Self.wordList[Self.elevenBits(at: $0 * 11, of: bits)]) }
        secret = Data(bytes)
    }

    /// The phrase written as `text`: 24 words separated by spaces, commas or new lines,
    /// in any case. A word may be cut to its first four letters, which are unique in the list.
    ///
    /// - Throws: ``EncryptionError/invalidPhrase(reason:)`` naming the word that is not in
    ///   the list, a count other than 24, or words that do not check (a wrong word, or two
    ///   swapped).
    public init(_ text: String) throws(EncryptionError) {
        let given = text.lowercased().split { $0.isWhitespace || $0 == "," || $0 == "-" }
        guard given.count == 24 else {
            throw EncryptionError.invalidPhrase(reason: "it has \(given.count) words; a recovery phrase has 24")
        }
        var indices: [Int] = []
        for (position, word) in given.enumerated() {
            guard let index = Self.index(of: word) else {
                throw EncryptionError.invalidPhrase(reason: "word \(position + 1), \"\(word.prefix(32))\", is not in the word list")
            }
            indices.append(index)
        }
        var bits = [UInt8](repeating: 0, count: 33)
        for (position, index) in indices.enumerated() {
            for bit in 0..<11 where index & (1 << (10 - bit)) != 0 {
                let at = position * 11 + bit
                bits[at / 8] |= UInt8(0x80) >> UInt8(at % 8)
            }
        }
        let secret = Array(bits[0..<32])
        guard Array(SHA256.hash(data: secret))[0] == bits[32] else {
            throw EncryptionError.invalidPhrase(reason: "the words do not check: one is wrong or two are swapped")
        }
        self.words = indices.map { String(Self.wordList[$0]) }
        self.secret = Data(secret)
    }

    /// A phrase for a new random secret.
    public static func random() -> RecoveryPhrase {
        RecoveryPhrase(storeKey: StoreEncryptionKey())
    }

    /// The words separated by single spaces.
    public var description: String { words.joined(separator: " ") }

    /// The phrase's secret as a store key.
    public var storeKey: StoreEncryptionKey {
        StoreEncryptionKey(checkedBytes: secret)
    }

    /// The value of the 11 bits from bit `start` (most significant first).
    private static func elevenBits(at start: Int, of bytes: [UInt8]) -> Int {
        var value = 0
        for bit in start..<(start + 11) {
            value = value << 1 | Int(bytes[bit / 8] >> UInt8(7 - bit % 8) & 1)
        }
        return value
    }

    /// The index of `word`, or of the only word it is the first four (or more) letters of.
    private static func index(of word: Substring) -> Int? {
        if let exact = wordIndex[word] { return exact }
        guard word.count >= 4 else { return nil }
        let matches = wordList.indices.filter { wordList[$0].hasPrefix(word) }
        return matches.count == 1 ? matches[0] : nil
    }

    private static let wordIndex: [Substring: Int] = Dictionary(uniqueKeysWithValues: wordList.enumerated().map { ($1, $0) })
}
