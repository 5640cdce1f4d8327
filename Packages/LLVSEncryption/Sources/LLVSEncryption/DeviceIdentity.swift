import Crypto
import Foundation
import LLVSSupport

/// A device's own key pairs: an X25519 pair the keyring seals the store's keys to (HPKE),
/// and an Ed25519 pair it signs the keyring revisions it makes with. Keep it on the device
/// (``serialized``); only its ``record`` ever leaves it.
public struct DeviceIdentity: Sendable {
    /// What other devices and the keyring know of this device.
    public let record: DeviceRecord
    /// The X25519 private key's 32 bytes.
    let agreementPrivateKey: Data
    /// The Ed25519 private key's 32 bytes.
    let signingPrivateKey: Data

    /// A new device named `name` (shown when devices are listed), with new random key pairs.
    ///
    /// - Throws: ``EncryptionError/invalidKey(reason:)`` for an empty name or one over 64
    ///   UTF-8 bytes.
    public init(name: String) throws(EncryptionError) {
        let agreement = Curve25519.KeyAgreement.PrivateKey()
        let signing = Curve25519.Signing.PrivateKey()
        try self.init(name: name, agreementPrivateKey: agreement.rawRepresentation, signingPrivateKey: signing.rawRepresentation)
    }

    /// The device saved as `serialized`.
    ///
    /// - Throws: ``EncryptionError/invalidKey(reason:)`` when the bytes are not a saved device.
    public init(serialized: Data) throws(EncryptionError) {
        var reader = KeyBytesReader(serialized, what: "a saved device")
        guard try reader.bytes(Self.magic.count) == Array(Self.magic) else {
            throw EncryptionError.invalidKey(reason: "a saved device starts with \"LLVSDEV1\"")
        }
        let name = try reader.name()
        let agreement = try reader.bytes(32)
        let signing = try reader.bytes(32)
        try reader.expectEnd()
        try self.init(name: name, agreementPrivateKey: Data(agreement), signingPrivateKey: Data(signing))
    }

    private init(name: String, agreementPrivateKey: Data, signingPrivateKey: Data) throws(EncryptionError) {
        do {
            let agreement = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: agreementPrivateKey)
            let signing = try Curve25519.Signing.PrivateKey(rawRepresentation: signingPrivateKey)
            record = try DeviceRecord(name: name, agreementKey: agreement.publicKey.rawRepresentation,
                                      signingKey: signing.publicKey.rawRepresentation)
        } catch let error as EncryptionError {
            throw error
        } catch {
            throw EncryptionError.invalidKey(reason: "a device's private keys have 32 bytes each (\(error))")
        }
        self.agreementPrivateKey = agreementPrivateKey
        self.signingPrivateKey = signingPrivateKey
    }

    /// The bytes to keep on the device: "LLVSDEV1", the name (a length byte and UTF-8) and
    /// the two private keys. Whoever reads them acts as this device; store them as a secret.
    public var serialized: Data {
        var data = Self.magic
        data.append(UInt8(record.nameBytes.count))
        data.append(record.nameBytes)
        data.append(agreementPrivateKey)
        data.append(signingPrivateKey)
        return data
    }

    /// The X25519 private key, for opening the keyring slot sealed to this device.
    var agreementKey: Curve25519.KeyAgreement.PrivateKey {
        get throws(EncryptionError) {
            do {
                return try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: agreementPrivateKey)
            } catch {
                throw EncryptionError.invalidKey(reason: "a device's X25519 key has 32 bytes")
            }
        }
    }

    private static let magic = Data("LLVSDEV1".utf8)
}

/// The public side of a device: its name and its two public keys. A device asks to join by
/// publishing its record; an enrolled device adds it after checking its ``enrollmentCode``
/// against the one the new device shows.
public struct DeviceRecord: Sendable, Hashable {
    /// The name given when the device was made.
    public let name: String
    /// The X25519 public key the keyring seals to.
    public let agreementKey: Data
    /// The Ed25519 public key its keyring revisions are checked with.
    public let signingKey: Data

    /// The record of a device named `name` with these public keys.
    ///
    /// - Throws: ``EncryptionError/invalidKey(reason:)`` for a key that is not 32 bytes, an
    ///   empty name or one over 64 UTF-8 bytes.
    public init(name: String, agreementKey: Data, signingKey: Data) throws(EncryptionError) {
        guard !name.isEmpty, name.utf8.count <= 64 else {
            throw EncryptionError.invalidKey(reason: "a device name has 1 to 64 UTF-8 bytes, not \(name.utf8.count)")
        }
        guard agreementKey.count == 32, signingKey.count == 32 else {
            throw EncryptionError.invalidKey(reason: "a device's public keys have 32 bytes each, not \(agreementKey.count) and \(signingKey.count)")
        }
        self.name = name
        self.agreementKey = Data(agreementKey)
        self.signingKey = Data(signingKey)
    }

    /// The record published as `serialized`.
    ///
    /// - Throws: ``EncryptionError/invalidKey(reason:)`` when the bytes are not a record.
    public init(serialized: Data) throws(EncryptionError) {
        var reader = KeyBytesReader(serialized, what: "a device record")
        try self.init(reading: &reader)
        try reader.expectEnd()
    }

    init(reading reader: inout KeyBytesReader) throws(EncryptionError) {
        let name = try reader.name()
        let agreement = try reader.bytes(32)
        let signing = try reader.bytes(32)
        try self.init(name: name, agreementKey: Data(agreement), signingKey: Data(signing))
    }

    /// The name (a length byte and UTF-8) and the two public keys: what a device publishes to
    /// ask to join, and how the keyring lists it.
    public var serialized: Data {
        var data = Data([UInt8(nameBytes.count)])
        data.append(nameBytes)
        data.append(agreementKey)
        data.append(signingKey)
        return data
    }

    /// The first 16 bytes of SHA-256 of the two public keys: the device's identifier.
    public var id: Data {
        Data(SHA256.hash(data: agreementKey + signingKey).prefix(16))
    }

    /// ``id`` in 32 lowercase hex digits.
    public var idHex: String { Hex.encode(Array(id)) }

    /// Ten characters (Crockford base 32, as `XXXXX-XXXXX`) from SHA-256 of the public keys:
    /// the new device shows it, and the person adding it on an enrolled device types it, so
    /// a record swapped on the way is not enrolled. 50 bits: finding another key pair with
    /// the same code takes about 2⁵⁰ tries.
    public var enrollmentCode: String {
        let digest = Array(SHA256.hash(data: Data("LLVS enrollment code".utf8) + agreementKey + signingKey))
        var bits = 0
        var value: UInt64 = 0
        var characters: [Character] = []
        for byte in digest where characters.count < 10 {
            value = value << 8 | UInt64(byte)
            bits += 8
            while bits >= 5, characters.count < 10 {
                bits -= 5
                characters.append(Self.crockford[Int(value >> UInt64(bits) & 31)])
            }
        }
        return String(characters[0..<5]) + "-" + String(characters[5...])
    }

    /// Whether `code`, as a person typed it, is this device's ``enrollmentCode``: case,
    /// dashes and spaces do not matter, and O, I and L read as 0, 1 and 1.
    public func matches(enrollmentCode code: String) -> Bool {
        let typed = code.uppercased().compactMap { character -> Character? in
            switch character {
            case "-", " ": return nil
            case "O": return "0"
            case "I", "L": return "1"
            default: return character
            }
        }
        return String(typed) == enrollmentCode.replacingOccurrences(of: "-", with: "")
    }

    var nameBytes: Data { Data(name.utf8) }

    private static let crockford = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
}

/// Reads the fields of keyring bytes, throwing ``EncryptionError/invalidKey(reason:)`` (or
/// what the caller maps it to) when they run out.
struct KeyBytesReader {
    private let bytes: [UInt8]
    private(set) var offset = 0
    /// What the bytes are meant to be, for errors.
    let what: String

    init(_ data: Data, what: String) {
        bytes = Array(data)
        self.what = what
    }

    var remaining: Int { bytes.count - offset }

    mutating func bytes(_ count: Int) throws(EncryptionError) -> [UInt8] {
        guard count >= 0, count <= remaining else {
            throw EncryptionError.invalidKey(reason: "\(what) ends at byte \(bytes.count), before the \(count) bytes needed at \(offset)")
        }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    mutating func byte() throws(EncryptionError) -> UInt8 { try bytes(1)[0] }

    mutating func uint32() throws(EncryptionError) -> UInt32 {
        try bytes(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    /// A length byte and that many bytes of UTF-8.
    mutating func name() throws(EncryptionError) -> String {
        let count = Int(try byte())
        guard let name = String(validating: try bytes(count), as: UTF8.self) else {
            throw EncryptionError.invalidKey(reason: "\(what) has a name that is not UTF-8")
        }
        return name
    }

    func expectEnd() throws(EncryptionError) {
        guard remaining == 0 else { throw EncryptionError.invalidKey(reason: "\(what) has \(remaining) bytes too many") }
    }
}
