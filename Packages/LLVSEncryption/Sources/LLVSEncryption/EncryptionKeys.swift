import Crypto
import Foundation
import LLVSCore

/// The secret of an encrypted store: 32 random bytes from which every key of the store is
/// derived (SPEC.md, "Encrypted exchanges"). Whoever holds it reads and writes everything
/// the store's devices exchange; keep it as you would a password.
public struct StoreEncryptionKey: Sendable, Equatable {
    /// The key's 32 bytes.
    public let rawRepresentation: Data

    /// A new random key (the system's secure random generator).
    public init() {
        rawRepresentation = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
    }

    /// The key with these 32 bytes.
    ///
    /// - Throws: ``EncryptionError/invalidKey(reason:)`` unless there are exactly 32 bytes.
    public init(rawRepresentation: some DataProtocol) throws(EncryptionError) {
        guard rawRepresentation.count == 32 else {
            throw EncryptionError.invalidKey(reason: "a store key has 32 bytes, not \(rawRepresentation.count)")
        }
        self.rawRepresentation = Data(rawRepresentation)
    }

    /// The key with `bytes`, which the caller has checked are 32.
    init(checkedBytes bytes: Data) {
        rawRepresentation = bytes
    }
}

/// The keys an ``EncryptedExchange`` seals and opens with, derived from a
/// ``StoreEncryptionKey`` with HKDF-SHA256 (SPEC.md, "Encrypted exchanges"):
///
/// - the **store identifier** (16 bytes), bound into every blob, so a blob replayed from
///   another store never opens;
/// - the **name key**, never rotated: a version is named on the other side by
///   HMAC-SHA256(name key, its identifier), so sends stay idempotent and two replicas that
///   make the same merge name it alike;
/// - the **epoch keys**: blobs are sealed under the current epoch's key. Epoch 0's key is
///   derived from the store key; a later epoch's key comes from wherever the app keeps it
///   (``adding(epoch:key:makingCurrent:)``). A blob of an epoch whose key has not arrived
///   waits as pending.
public struct EncryptionKeys: Sendable {
    /// Bound into every blob's associated data.
    public let storeIdentifier: Data
    /// The epoch new blobs are sealed under.
    public private(set) var currentEpoch: UInt32
    /// The AEAD new blobs are sealed with (its format byte leads each blob); blobs of every
    /// format open whatever this says.
    public var sealingCipher: SealingCipher = .aes256GCMSIV
    /// The key of every epoch known, by epoch (its bytes: swift-crypto's `SymmetricKey` is
    /// not `Sendable`).
    private var epochKeys: [UInt32: Data]
    /// Keys the names of versions (never rotates).
    private let nameMAC: KeyedMAC
    /// The MACs each known epoch's blobs are sealed with, keyed once.
    private var epochMACs: [UInt32: SealingMACs]

    /// The salt of every derivation from the store key.
    static let derivationSalt = Data("LLVS E2E 1".utf8)

    /// The keys of the store whose key is `storeKey`, with epoch 0 current.
    public init(storeKey: StoreEncryptionKey) {
        let ikm = SymmetricKey(data: storeKey.rawRepresentation)
        func derive(_ info: String, _ count: Int) -> SymmetricKey {
            HKDF<SHA256>.deriveKey(inputKeyMaterial: ikm, salt: Self.derivationSalt, info: Data(info.utf8), outputByteCount: count)
        }
        storeIdentifier = derive("store identifier", 16).withUnsafeBytes { Data($0) }
        nameMAC = KeyedMAC(key: derive("version names", 32))
        currentEpoch = 0
        let epochZero = derive("epoch 0", 32).withUnsafeBytes { Data($0) }
        epochKeys = [0: epochZero]
        epochMACs = [0: SealingMACs(epochKey: epochZero)]
    }

    /// The keys of `storeKey` with the keys of epochs 1, 2… after epoch 0's, the last current.
    /// Each key has 32 bytes (the keyring checks them when it reads them).
    init(storeKey: StoreEncryptionKey, laterEpochKeys: ArraySlice<Data>) {
        self.init(storeKey: storeKey)
        for (offset, key) in laterEpochKeys.enumerated() {
            epochKeys[UInt32(offset + 1)] = key
            epochMACs[UInt32(offset + 1)] = SealingMACs(epochKey: key)
        }
        currentEpoch = UInt32(laterEpochKeys.count)
    }

    /// These keys with `key` for `epoch` (replacing what they held for it), current if
    /// `makingCurrent`.
    ///
    /// - Throws: ``EncryptionError/invalidKey(reason:)`` unless the key has 32 bytes.
    public func adding(epoch: UInt32, key: SymmetricKey, makingCurrent: Bool) throws(EncryptionError) -> EncryptionKeys {
        guard key.bitCount == 256 else { throw EncryptionError.invalidKey(reason: "an epoch key has 32 bytes, not \(key.bitCount / 8)") }
        var keys = self
        keys.epochKeys[epoch] = key.withUnsafeBytes { Data($0) }
        keys.epochMACs[epoch] = SealingMACs(epochKey: key)
        if makingCurrent { keys.currentEpoch = epoch }
        return keys
    }

    /// The key of `epoch`, nil when it has not arrived.
    public func key(ofEpoch epoch: UInt32) -> SymmetricKey? {
        epochKeys[epoch].map { SymmetricKey(data: $0) }
    }

    /// The write token of `epoch`, or nil when its key is not held: HKDF-SHA256 of the
    /// epoch key (salt `LLVS E2E 1`, info `write token`, 32 bytes). A blind server store keeps
    /// only its SHA-256 and takes writes only with the current epoch's token, so a device
    /// removed from the keyring (which never gets the new epoch key) writes nothing more.
    public func writeToken(ofEpoch epoch: UInt32) -> Data? {
        guard let key = epochKeys[epoch] else { return nil }
        return HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: key), salt: Self.derivationSalt,
                                      info: Data("write token".utf8), outputByteCount: 32).withUnsafeBytes { Data($0) }
    }

    /// What a blind store keeps of a write token: its SHA-256.
    public static func writeTokenHash(_ token: Data) -> Data { Data(SHA256.hash(data: token)) }

    /// The 32-byte name of version `id` on the other side: HMAC-SHA256 under the name key of
    /// the identifier's UTF-8 bytes.
    public func name(of id: Version.ID) -> [UInt8] {
        id.withUTF8 { nameMAC.code(of: $0) }
    }

    /// The MACs blobs of `epoch` are sealed with, nil when its key has not arrived.
    func sealingMACs(ofEpoch epoch: UInt32) -> SealingMACs? {
        epochMACs[epoch]
    }
}

/// The MACs that seal one epoch's blobs (SPEC.md, "Sealed version"), keyed once per epoch.
struct SealingMACs: Sendable {
    /// HMAC-SHA256 under the epoch key: one block of HKDF-Expand with the epoch key (32
    /// uniformly random bytes) as the pseudorandom key.
    let epoch: KeyedMAC
    /// HMAC-SHA256 under the epoch's nonce key, `HKDF-Expand(epoch key, "sealed version nonce", 32)`.
    let nonce: KeyedMAC

    /// The MACs of the epoch whose key is `epochKey`.
    init(epochKey: some ContiguousBytes) {
        epoch = KeyedMAC(key: epochKey)
        nonce = KeyedMAC(key: epoch.code(Self.nonceKeyInfo, [1]))
    }

    /// The info of the nonce key's derivation.
    static let nonceKeyInfo = Array("sealed version nonce".utf8)
    /// What precedes a blob's name in the info of its key's derivation.
    static let blobKeyInfo = Array("sealed version key".utf8)

    /// The AEAD key of the blob named `name`: `HKDF-Expand(epoch key, "sealed version key" ‖ name, 32)`.
    func blobKey(name: [UInt8]) -> SymmetricKey {
        SymmetricKey(data: epoch.code(Self.blobKeyInfo, name, [1]))
    }

    /// The synthetic nonce of `plaintext` in the blob named `name`: the first 12 bytes of
    /// HMAC-SHA256(nonce key, name ‖ plaintext).
    func nonce(name: [UInt8], plaintext: some ContiguousBytes) -> [UInt8] {
        Array(plaintext.withUnsafeBytes { nonce.code(of: $0, after: name) }.prefix(12))
    }
}
