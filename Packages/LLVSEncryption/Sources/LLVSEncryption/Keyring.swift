import Crypto
import Foundation
import LLVSSupport

/// What an enrolled device or the recovery phrase gets from the keyring: the store key,
/// the current recovery phrase and the key of every epoch so far.
public struct KeyringSecrets: Sendable, Equatable {
    /// The store key: the store identifier and the version names come from it, and never
    /// change.
    public let storeKey: StoreEncryptionKey
    /// The phrase that restores the store on a new device. It is the store key's phrase
    /// until a device is removed, and a new one after each removal.
    public let recoveryPhrase: RecoveryPhrase
    /// The key of each epoch, by epoch: epoch 0's is derived from the store key, the others
    /// are random.
    public let epochKeys: [Data]

    /// The epoch new versions are sealed under: the last one.
    public var currentEpoch: UInt32 { UInt32(epochKeys.count - 1) }

    /// The keys an ``EncryptedExchange`` seals and opens with.
    public var encryptionKeys: EncryptionKeys {
        EncryptionKeys(storeKey: storeKey, laterEpochKeys: epochKeys.dropFirst())
    }

    /// The store key, the phrase's secret, the number of epochs (u32) and each epoch key.
    var serialized: Data {
        var data = storeKey.rawRepresentation
        data.append(recoveryPhrase.secret)
        SealedVersion.appendBigEndian(UInt32(epochKeys.count), to: &data)
        for key in epochKeys { data.append(key) }
        return data
    }

    init(storeKey: StoreEncryptionKey, recoveryPhrase: RecoveryPhrase, epochKeys: [Data]) {
        self.storeKey = storeKey
        self.recoveryPhrase = recoveryPhrase
        self.epochKeys = epochKeys
    }

    /// The secrets in `data`, which must hold `epochCount` epoch keys, the first the one
    /// derived from the store key.
    init(serialized data: Data, epochCount: Int, revision: UInt32) throws(EncryptionError) {
        var reader = KeyBytesReader(data, what: "the secrets of keyring revision \(revision)")
        do throws(EncryptionError) {
            storeKey = StoreEncryptionKey(checkedBytes: Data(try reader.bytes(32)))
            recoveryPhrase = try RecoveryPhrase(secret: try reader.bytes(32))
            guard Int(try reader.uint32()) == epochCount else {
                throw EncryptionError.invalidKey(reason: "the number of epoch keys is not the revision's epoch + 1")
            }
            var keys: [Data] = []
            for _ in 0..<epochCount { keys.append(Data(try reader.bytes(32))) }
            try reader.expectEnd()
            epochKeys = keys
        } catch {
            throw EncryptionError.keyringRejected(revision: revision, reason: error.description)
        }
        guard epochKeys.first == Keyring.epochZeroKey(of: storeKey) else {
            throw EncryptionError.keyringRejected(revision: revision, reason: "epoch 0's key is not the one the store key gives")
        }
    }
}

/// The encrypted keyring of a store: an append-only chain of revisions, each listing the
/// enrolled devices and sealing the store's secrets (``KeyringSecrets``) to each of them
/// with HPKE and to the recovery phrase. It travels as opaque bytes beside the sealed
/// versions; SPEC.md, "Encrypted exchanges", gives every byte.
///
/// Each revision is checked when the keyring is read:
/// - it names the revision before it by its SHA-256, and counts from 0;
/// - it is signed (Ed25519) by a device enrolled in the revision before it (revision 0 by a
///   device it lists itself);
/// - once a device or phrase opens its slot, every revision's MAC under a key derived from
///   the store key proves it was made by someone holding the store key.
///
/// A device added gets every epoch key so far. A device removed starts a new epoch with a
/// new random key and a new recovery phrase, sealed only to the devices that remain:
/// nothing already uploaded is sealed again, and what the removed device already holds
/// (versions, and the keys of the epochs before) stays readable to it.
public struct Keyring: Sendable {
    /// The revisions' bytes, oldest first.
    public let revisions: [Data]
    /// The revisions read, oldest first.
    private let parsed: [Revision]

    /// The keyring whose revisions are `revisions`, oldest first, after checking its chain
    /// and every signature (the slots and MACs are checked when a device or phrase opens it).
    ///
    /// - Throws: ``EncryptionError/keyringRejected(revision:reason:)`` naming the first
    ///   revision that does not hold up.
    public init(revisions: [Data]) throws(EncryptionError) {
        guard !revisions.isEmpty else { throw EncryptionError.keyringRejected(revision: 0, reason: "a keyring has at least one revision") }
        var parsed: [Revision] = []
        for (index, bytes) in revisions.enumerated() {
            let revision = try Revision(bytes)
            let expectedPrevious = parsed.last.map { Array(SHA256.hash(data: $0.bytes)) } ?? [UInt8](repeating: 0, count: 32)
            guard Int(revision.number) == index else {
                throw EncryptionError.keyringRejected(revision: revision.number, reason: "it is revision \(revision.number) at position \(index)")
            }
            guard revision.previousDigest == expectedPrevious else {
                throw EncryptionError.keyringRejected(revision: revision.number, reason: "it does not follow the revision before it")
            }
            if let previous = parsed.last, revision.epoch < previous.epoch {
                throw EncryptionError.keyringRejected(revision: revision.number, reason: "its epoch \(revision.epoch) goes back from \(previous.epoch)")
            }
            let authority = parsed.last ?? revision
            let signer: (name: String, key: Data)
            if revision.authorId == Revision.phraseAuthorId {
                signer = ("the recovery phrase", authority.recoverySigningKey)
            } else if let author = authority.devices.first(where: { Array($0.id) == revision.authorId }) {
                signer = (author.name, author.signingKey)
            } else {
                throw EncryptionError.keyringRejected(revision: revision.number, reason: "its author \(Hex.encode(revision.authorId)) is not an enrolled device")
            }
            let signed = revision.bytes.prefix(revision.bytes.count - Revision.signatureCount)
            guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: signer.key),
                  key.isValidSignature(revision.bytes.suffix(Revision.signatureCount), for: signed) else {
                throw EncryptionError.keyringRejected(revision: revision.number, reason: "the signature of \(signer.name) does not match")
            }
            parsed.append(revision)
        }
        self.revisions = revisions
        self.parsed = parsed
    }

    private init(parsed: [Revision]) {
        self.parsed = parsed
        revisions = parsed.map(\.bytes)
    }

    /// A new keyring for the store whose key is `storeKey`, with `founder` its one device and
    /// the store key's phrase its recovery phrase.
    ///
    /// - Throws: ``EncryptionError`` only if sealing fails.
    public static func founding(storeKey: StoreEncryptionKey, founder: DeviceIdentity) throws(EncryptionError) -> Keyring {
        let secrets = KeyringSecrets(storeKey: storeKey, recoveryPhrase: RecoveryPhrase(storeKey: storeKey),
                                     epochKeys: [epochZeroKey(of: storeKey)])
        return Keyring(parsed: [try Revision.seal(number: 0, previous: nil, devices: [founder.record], secrets: secrets, author: Signer(founder))])
    }

    /// The devices enrolled now.
    public var devices: [DeviceRecord] { parsed[parsed.count - 1].devices }

    /// The epoch new versions are sealed under.
    public var currentEpoch: UInt32 { parsed[parsed.count - 1].epoch }

    /// Whether this keyring is `other` with zero or more revisions after it: a device takes a
    /// keyring only if it extends the one it holds, so nobody can roll it back.
    public func extends(_ other: Keyring) -> Bool {
        revisions.count >= other.revisions.count && Array(revisions.prefix(other.revisions.count)) == other.revisions
    }

    /// The secrets sealed to `device` in the last revision, after checking every revision's
    /// MAC under the store key they hold.
    ///
    /// - Throws: ``EncryptionError/notEnrolled(reason:)`` when the device is not in the last
    ///   revision (never added, or removed), ``EncryptionError/keyringRejected(revision:reason:)``
    ///   when its slot does not open or a MAC does not match.
    public func secrets(for device: DeviceIdentity) throws(EncryptionError) -> KeyringSecrets {
        let last = parsed[parsed.count - 1]
        guard let slot = last.devices.firstIndex(where: { $0.id == device.record.id }) else {
            if let removal = parsed.lastIndex(where: { $0.devices.contains { $0.id == device.record.id } }), removal + 1 < parsed.count {
                throw EncryptionError.notEnrolled(reason: "device \(device.record.name) was removed in keyring revision \(removal + 1)")
            }
            throw EncryptionError.notEnrolled(reason: "device \(device.record.name) (\(device.record.enrollmentCode)) has not been added")
        }
        let secrets = try last.openDeviceSlot(slot, with: device.agreementKey)
        try checkAuthentication(with: secrets.storeKey)
        return secrets
    }

    /// The secrets sealed to `phrase` in the last revision, after checking every revision's
    /// MAC.
    ///
    /// - Throws: ``EncryptionError/notEnrolled(reason:)`` when the phrase is not the current
    ///   one (it was replaced when a device was removed, or belongs to another store),
    ///   ``EncryptionError/keyringRejected(revision:reason:)`` when a MAC does not match.
    public func secrets(for phrase: RecoveryPhrase) throws(EncryptionError) -> KeyringSecrets {
        if let secrets = parsed[parsed.count - 1].openRecoverySlot(with: phrase) {
            try checkAuthentication(with: secrets.storeKey)
            return secrets
        }
        if let replaced = parsed.lastIndex(where: { $0.openRecoverySlot(with: phrase) != nil }) {
            throw EncryptionError.notEnrolled(reason: "this phrase was replaced in keyring revision \(replaced + 1), when a device was removed; use the phrase shown then")
        }
        throw EncryptionError.notEnrolled(reason: "this phrase does not open this store's keyring (a wrong word, or another store's phrase)")
    }

    /// This keyring with `device` enrolled by `author`, which must be enrolled and is checked
    /// to hold the secrets: the new device gets every epoch key so far.
    ///
    /// - Throws: ``EncryptionError/notEnrolled(reason:)`` when `author` is not enrolled,
    ///   ``EncryptionError/invalidKey(reason:)`` when the device is already enrolled or the
    ///   keyring would list more than 255.
    public func adding(_ device: DeviceRecord, by author: DeviceIdentity) throws(EncryptionError) -> Keyring {
        try adding(device, secrets: try secrets(for: author), signer: Signer(author))
    }

    /// This keyring with `device` enrolled on the authority of the current recovery phrase:
    /// how a device that restored from the phrase alone joins (``LLVSEncryption/RecoveryPhrase``).
    ///
    /// - Throws: ``EncryptionError/notEnrolled(reason:)`` when `phrase` is not the current
    ///   phrase, ``EncryptionError/invalidKey(reason:)`` as ``adding(_:by:)``.
    public func adding(_ device: DeviceRecord, byPhrase phrase: RecoveryPhrase) throws(EncryptionError) -> Keyring {
        try adding(device, secrets: try secrets(for: phrase), signer: Signer(phrase))
    }

    private func adding(_ device: DeviceRecord, secrets: KeyringSecrets, signer: Signer) throws(EncryptionError) -> Keyring {
        guard !devices.contains(where: { $0.id == device.id }) else {
            throw EncryptionError.invalidKey(reason: "device \(device.name) is already enrolled")
        }
        return try appending(devices: devices + [device], secrets: secrets, signer: signer)
    }

    /// This keyring without the device whose identifier is `deviceId`, by `author`: a new
    /// epoch with a new random key and a new recovery phrase, sealed to the devices that
    /// remain. The removed device cannot open what is sealed after; what it holds stays
    /// readable to it.
    ///
    /// - Throws: ``EncryptionError/notEnrolled(reason:)`` when `author` is not enrolled,
    ///   ``EncryptionError/invalidKey(reason:)`` when no such device is enrolled or it is the
    ///   author itself.
    public func removing(deviceId: Data, by author: DeviceIdentity) throws(EncryptionError) -> Keyring {
        guard deviceId != author.record.id else {
            throw EncryptionError.invalidKey(reason: "a device does not remove itself; remove it from another enrolled device")
        }
        return try removing(deviceId: deviceId, secrets: try secrets(for: author), signer: Signer(author))
    }

    /// This keyring without the device whose identifier is `deviceId`, on the authority of
    /// the current recovery phrase (every device lost or stolen): as ``removing(deviceId:by:)``.
    ///
    /// - Throws: ``EncryptionError/notEnrolled(reason:)`` when `phrase` is not the current
    ///   phrase, ``EncryptionError/invalidKey(reason:)`` when no such device is enrolled or it
    ///   is the last one.
    public func removing(deviceId: Data, byPhrase phrase: RecoveryPhrase) throws(EncryptionError) -> Keyring {
        guard devices.count > 1 else { throw EncryptionError.invalidKey(reason: "the last enrolled device is not removed; add another first") }
        return try removing(deviceId: deviceId, secrets: try secrets(for: phrase), signer: Signer(phrase))
    }

    private func removing(deviceId: Data, secrets: KeyringSecrets, signer: Signer) throws(EncryptionError) -> Keyring {
        guard devices.contains(where: { $0.id == deviceId }) else {
            throw EncryptionError.invalidKey(reason: "no enrolled device has the identifier \(Hex.encode(Array(deviceId)))")
        }
        return try appending(devices: devices.filter { $0.id != deviceId }, secrets: rotated(secrets, newPhrase: true), signer: signer)
    }

    /// This keyring with a new epoch, by `author`: versions sealed from now on use a new
    /// random key, sealed to every enrolled device. With `newPhrase`, the recovery phrase is
    /// replaced too.
    ///
    /// - Throws: ``EncryptionError/notEnrolled(reason:)`` when `author` is not enrolled.
    public func rotating(by author: DeviceIdentity, newPhrase: Bool = false) throws(EncryptionError) -> Keyring {
        try appending(devices: devices, secrets: rotated(try secrets(for: author), newPhrase: newPhrase), signer: Signer(author))
    }

    /// `secrets` with one more epoch key and, if `newPhrase`, a new random phrase.
    private func rotated(_ secrets: KeyringSecrets, newPhrase: Bool) throws(EncryptionError) -> KeyringSecrets {
        guard secrets.epochKeys.count < Int(UInt32.max) else { throw EncryptionError.invalidKey(reason: "no epoch is left") }
        return KeyringSecrets(storeKey: secrets.storeKey,
                              recoveryPhrase: newPhrase ? RecoveryPhrase.random() : secrets.recoveryPhrase,
                              epochKeys: secrets.epochKeys + [SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }])
    }

    private func appending(devices: [DeviceRecord], secrets: KeyringSecrets, signer: Signer) throws(EncryptionError) -> Keyring {
        guard devices.count <= 255 else { throw EncryptionError.invalidKey(reason: "a keyring lists at most 255 devices") }
        let last = parsed[parsed.count - 1]
        guard last.number < UInt32.max else { throw EncryptionError.invalidKey(reason: "the keyring has no revision number left") }
        let revision = try Revision.seal(number: last.number + 1, previous: last, devices: devices, secrets: secrets, author: signer)
        return Keyring(parsed: parsed + [revision])
    }

    /// Checks every revision's MAC under the key `storeKey` gives.
    private func checkAuthentication(with storeKey: StoreEncryptionKey) throws(EncryptionError) {
        let key = Self.authenticationKey(of: storeKey)
        for revision in parsed where !revision.isAuthenticated(by: key) {
            throw EncryptionError.keyringRejected(revision: revision.number, reason: "its MAC does not match: it was not made with this store's key")
        }
    }

    /// The key epoch 0 seals under: HKDF-SHA256 of the store key, info "epoch 0".
    static func epochZeroKey(of storeKey: StoreEncryptionKey) -> Data {
        EncryptionKeys(storeKey: storeKey).key(ofEpoch: 0).map { $0.withUnsafeBytes { Data($0) } } ?? Data()
    }

    /// The key of the revisions' MACs: HKDF-SHA256 of the store key, info "keyring authentication".
    static func authenticationKey(of storeKey: StoreEncryptionKey) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: storeKey.rawRepresentation), salt: EncryptionKeys.derivationSalt,
                               info: Data("keyring authentication".utf8), outputByteCount: 32)
    }
}

extension Keyring {
    /// One revision, read:
    ///
    /// ```
    /// "LLVSKR" format(1)  revision(u32)  previous(32)  epoch(u32)  author id(16)
    /// recovery signing key(32)  device count(1)  devices (name length(1), name, X25519 key(32), Ed25519 key(32))…
    /// recovery slot: nonce(12) ciphertext tag(16)
    /// device slots, in the devices' order: encapsulated key(32) ciphertext tag(16)
    /// MAC(32)  signature(64)
    /// ```
    ///
    /// Integers are big-endian. The header is everything before the recovery slot, and every
    /// slot authenticates it. The author id is a device's identifier, or 16 zero bytes for
    /// the recovery phrase, whose Ed25519 key (derived from its secret) the revision before
    /// names as its recovery signing key.
    struct Revision: Sendable {
        let bytes: Data
        let number: UInt32
        let previousDigest: [UInt8]
        let epoch: UInt32
        let authorId: [UInt8]
        /// The Ed25519 public key of the current phrase, which may sign the next revision.
        let recoverySigningKey: Data
        let devices: [DeviceRecord]
        /// The header's length.
        let headerCount: Int
        /// Where the slots start and end.
        let recoverySlot: Range<Int>
        let deviceSlots: [Range<Int>]

        static let magic = Data("LLVSKR".utf8)
        static let format: UInt8 = 1
        static let macCount = 32
        static let signatureCount = 64
        static let phraseAuthorId = [UInt8](repeating: 0, count: 16)
        static let hpkeInfo = Data("LLVS keyring 1".utf8)
        static var suite: HPKE.Ciphersuite { .Curve25519_SHA256_ChachaPoly }

        /// The length of the secrets of a revision of `epoch`.
        static func secretsCount(epoch: UInt32) -> Int { 32 + 32 + 4 + 32 * (Int(epoch) + 1) }

        init(_ bytes: Data) throws(EncryptionError) {
            var reader = KeyBytesReader(bytes, what: "a keyring revision")
            var number: UInt32 = 0
            do throws(EncryptionError) {
                guard try reader.bytes(Self.magic.count) == Array(Self.magic) else {
                    throw EncryptionError.invalidKey(reason: "a keyring revision starts with \"LLVSKR\"")
                }
                let format = try reader.byte()
                guard format == Self.format else { throw EncryptionError.invalidKey(reason: "format \(format) is not one this LLVS reads") }
                number = try reader.uint32()
                previousDigest = try reader.bytes(32)
                epoch = try reader.uint32()
                authorId = try reader.bytes(16)
                recoverySigningKey = Data(try reader.bytes(32))
                let count = Int(try reader.byte())
                guard count > 0 else { throw EncryptionError.invalidKey(reason: "it lists no device") }
                var devices: [DeviceRecord] = []
                for _ in 0..<count { devices.append(try DeviceRecord(reading: &reader)) }
                guard Set(devices.map(\.id)).count == devices.count else { throw EncryptionError.invalidKey(reason: "it lists a device twice") }
                self.devices = devices
                headerCount = reader.offset
                let secrets = Self.secretsCount(epoch: epoch)
                let recoveryStart = reader.offset
                _ = try reader.bytes(12 + secrets + 16)
                recoverySlot = recoveryStart..<reader.offset
                var slots: [Range<Int>] = []
                for _ in devices {
                    let start = reader.offset
                    _ = try reader.bytes(32 + secrets + 16)
                    slots.append(start..<reader.offset)
                }
                deviceSlots = slots
                _ = try reader.bytes(Self.macCount + Self.signatureCount)
                try reader.expectEnd()
            } catch {
                throw EncryptionError.keyringRejected(revision: number, reason: error.description)
            }
            self.number = number
            self.bytes = Data(bytes)
        }

        /// A revision sealing `secrets` to `devices` and to the secrets' phrase, signed by `author`.
        static func seal(number: UInt32, previous: Revision?, devices: [DeviceRecord], secrets: KeyringSecrets,
                         author: Signer) throws(EncryptionError) -> Revision {
            var data = magic
            data.append(format)
            SealedVersion.appendBigEndian(number, to: &data)
            data.append(contentsOf: previous.map { Array(SHA256.hash(data: $0.bytes)) } ?? [UInt8](repeating: 0, count: 32))
            SealedVersion.appendBigEndian(secrets.currentEpoch, to: &data)
            data.append(author.id)
            data.append(try Signer(secrets.recoveryPhrase).publicKey)
            data.append(UInt8(devices.count))
            for device in devices { data.append(device.serialized) }
            let header = data
            let plaintext = secrets.serialized
            do {
                let box = try ChaChaPoly.seal(plaintext, using: recoveryKey(of: secrets.recoveryPhrase), authenticating: header)
                data.append(box.combined)
                for device in devices {
                    var sender = try HPKE.Sender(recipientKey: try Curve25519.KeyAgreement.PublicKey(rawRepresentation: device.agreementKey),
                                                 ciphersuite: suite, info: hpkeInfo)
                    data.append(sender.encapsulatedKey)
                    data.append(try sender.seal(plaintext, authenticating: header))
                }
            } catch {
                throw EncryptionError.invalidKey(reason: "sealing the keyring failed: \(error)")
            }
            data.append(contentsOf: HMAC<SHA256>.authenticationCode(for: data, using: Keyring.authenticationKey(of: secrets.storeKey)))
            data.append(try author.sign(data))
            return try Revision(data)
        }

        /// The Ed25519 private key of `phrase`: HKDF-SHA256 of its secret, info "keyring recovery signing".
        static func recoverySigningKey(of phrase: RecoveryPhrase) -> Data {
            HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: phrase.secret), salt: EncryptionKeys.derivationSalt,
                                   info: Data("keyring recovery signing".utf8), outputByteCount: 32).withUnsafeBytes { Data($0) }
        }

        /// The key of the recovery slot: HKDF-SHA256 of the phrase's secret, info "keyring recovery".
        static func recoveryKey(of phrase: RecoveryPhrase) -> SymmetricKey {
            HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: phrase.secret), salt: EncryptionKeys.derivationSalt,
                                   info: Data("keyring recovery".utf8), outputByteCount: 32)
        }

        var header: Data { bytes.prefix(headerCount) }

        /// The secrets of the recovery slot, nil when `phrase` does not open it.
        func openRecoverySlot(with phrase: RecoveryPhrase) -> KeyringSecrets? {
            guard let box = try? ChaChaPoly.SealedBox(combined: bytes[recoverySlot]),
                  let plaintext = try? ChaChaPoly.open(box, using: Self.recoveryKey(of: phrase), authenticating: header),
                  let secrets = try? KeyringSecrets(serialized: plaintext, epochCount: Int(epoch) + 1, revision: number),
                  secrets.recoveryPhrase == phrase else { return nil }
            return secrets
        }

        /// The secrets of device slot `slot`.
        func openDeviceSlot(_ slot: Int, with key: Curve25519.KeyAgreement.PrivateKey) throws(EncryptionError) -> KeyringSecrets {
            let range = deviceSlots[slot]
            let plaintext: Data
            do {
                var recipient = try HPKE.Recipient(privateKey: key, ciphersuite: Self.suite, info: Self.hpkeInfo,
                                                   encapsulatedKey: bytes[range.lowerBound..<(range.lowerBound + 32)])
                plaintext = try recipient.open(bytes[(range.lowerBound + 32)..<range.upperBound], authenticating: header)
            } catch {
                throw EncryptionError.keyringRejected(revision: number, reason: "the slot of device \(devices[slot].name) does not open (\(error))")
            }
            return try KeyringSecrets(serialized: plaintext, epochCount: Int(epoch) + 1, revision: number)
        }

        /// Whether the MAC matches under `key`.
        func isAuthenticated(by key: SymmetricKey) -> Bool {
            let end = bytes.count - Self.signatureCount
            return HMAC<SHA256>.isValidAuthenticationCode(bytes[(end - Self.macCount)..<end], authenticating: bytes.prefix(end - Self.macCount), using: key)
        }
    }
}

extension Keyring {
    /// Who signs a revision: a device, or the recovery phrase.
    struct Signer {
        /// The device's identifier, or 16 zero bytes for the phrase.
        let id: Data
        private let privateKey: Curve25519.Signing.PrivateKey

        init(_ device: DeviceIdentity) throws(EncryptionError) {
            id = device.record.id
            privateKey = try Self.key(device.signingPrivateKey)
        }

        init(_ phrase: RecoveryPhrase) throws(EncryptionError) {
            id = Data(Revision.phraseAuthorId)
            privateKey = try Self.key(Revision.recoverySigningKey(of: phrase))
        }

        var publicKey: Data { privateKey.publicKey.rawRepresentation }

        func sign(_ message: Data) throws(EncryptionError) -> Data {
            do {
                return try privateKey.signature(for: message)
            } catch {
                throw EncryptionError.invalidKey(reason: "signing failed: \(error)")
            }
        }

        private static func key(_ bytes: Data) throws(EncryptionError) -> Curve25519.Signing.PrivateKey {
            do {
                return try Curve25519.Signing.PrivateKey(rawRepresentation: bytes)
            } catch {
                throw EncryptionError.invalidKey(reason: "an Ed25519 private key has 32 bytes")
            }
        }
    }
}
