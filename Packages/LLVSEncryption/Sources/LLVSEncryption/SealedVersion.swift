import _CryptoExtras
import Crypto
import Foundation
import LLVSCore
import LLVSExchange
import LLVSSupport

/// The AEAD a sealed blob is encrypted with, named by the blob's first byte (SPEC.md,
/// "Sealed version"). Both seal a version to the same blob every time under one epoch (sends
/// stay idempotent), and two different plaintexts never share a keystream. Readers open every
/// format; ``EncryptionKeys/sealingCipher`` chooses what a writer seals with.
public enum SealingCipher: UInt8, Sendable, CaseIterable {
    /// Format 1: ChaCha20-Poly1305 (RFC 8439) with a synthetic nonce, the first 12 bytes of
    /// HMAC-SHA256(the epoch's nonce key, name ‖ padded plaintext). It needs no AES
    /// instructions to be fast.
    case chaCha20Poly1305 = 1
    /// Format 2, the default: AES-256-GCM-SIV (RFC 8452), an AEAD that resists nonce reuse by
    /// itself, so the nonce is 12 zero bytes (each blob has its own key) and sealing makes one
    /// pass less over the plaintext than format 1. Fast where the processor has AES and
    /// carry-less multiplication instructions (x86-64 processors since 2010, and ARMv8
    /// processors with the cryptography extension, Apple's among them).
    case aes256GCMSIV = 2
}

/// One version with its changes, sealed into one blob (SPEC.md, "Encrypted exchanges"):
///
/// ```
/// format (1 byte, a SealingCipher)  epoch (u32 big-endian)  nonce (12)  ciphertext  tag (16)
/// ```
///
/// The plaintext is a one-version batch (``ExchangeBatch``) after its length (u32
/// big-endian), followed by zero bytes up to the PADMÉ length of the two, so a blob's size
/// tells little about its contents. Each blob's key is HKDF-Expand of the epoch key with the
/// blob's name in its info; the nonce is the format's (``SealingCipher``), so the same version
/// seals to the same blob under one epoch (sends stay idempotent) and two plaintexts never
/// share a keystream. The associated data binds the header, the store and the name.
enum SealedVersion {
    /// The nonce of every format-2 blob.
    static let gcmSIVNonce = [UInt8](repeating: 0, count: 12)
    /// Format, epoch and nonce.
    static let headerCount = 1 + 4 + 12
    /// The AEAD's tag.
    static let tagCount = 16
    /// What opens the associated data.
    static let domain = Array("LLVS sealed version".utf8)

    /// The blob holding `version` with `changes`, named `name`, under the current epoch.
    ///
    /// - Throws: ``EncryptionError/invalidKey(reason:)`` when the current epoch has no key,
    ///   or a payload of 4 GiB or more.
    static func seal(_ version: Version, changes: [Value.Change], name: [UInt8], keys: EncryptionKeys) throws(EncryptionError) -> Data {
        var buffer: [UInt8] = []
        return try seal(version, changes: changes, name: name, keys: keys, reusing: &buffer)
    }

    /// The blob holding `version` with `changes`, framed and padded in `buffer` (whose
    /// storage is kept for the next version: a batch seals without allocating a plaintext
    /// per version).
    ///
    /// - Throws: As ``seal(_:changes:name:keys:)``.
    static func seal(_ version: Version, changes: [Value.Change], name: [UInt8], keys: EncryptionKeys,
                     reusing buffer: inout [UInt8]) throws(EncryptionError) -> Data {
        // The length, the batch and the padding in one buffer, sealed as it is.
        var taken: [UInt8] = []
        swap(&taken, &buffer)
        var writer = ByteWriter(reusing: consume taken)
        writer.append(contentsOf: [0, 0, 0, 0])
        ExchangeBatch.encode([(version, changes)], appendingTo: &writer)
        var plaintext = writer.takeBytes()
        defer { buffer = plaintext }
        guard let length = UInt32(exactly: plaintext.count - 4) else {
            throw EncryptionError.invalidKey(reason: "a version of \(plaintext.count - 4) bytes is too large to seal (at most 4 GiB)")
        }
        for index in 0..<4 { plaintext[index] = UInt8(truncatingIfNeeded: length >> (24 - 8 * index)) }
        plaintext.append(contentsOf: repeatElement(0, count: padme(plaintext.count) - plaintext.count))
        return try seal(plaintext: plaintext, epoch: keys.currentEpoch, name: name, keys: keys, cipher: keys.sealingCipher)
    }

    /// The blob of `plaintext` (already framed and padded) under `epoch`, sealed with `cipher`:
    /// what ``seal(_:changes:name:keys:)`` does after framing, and what the vectors use to
    /// seal plaintexts no writer makes.
    ///
    /// - Throws: ``EncryptionError/invalidKey(reason:)`` when `epoch` has no key.
    static func seal(plaintext: some DataProtocol & ContiguousBytes, epoch: UInt32, name: [UInt8], keys: EncryptionKeys,
                     cipher: SealingCipher) throws(EncryptionError) -> Data {
        guard let macs = keys.sealingMACs(ofEpoch: epoch) else {
            throw EncryptionError.invalidKey(reason: "epoch \(epoch) has no key")
        }
        let associatedData = associatedData(format: cipher.rawValue, epoch: epoch, keys: keys, name: name)
        // A box's combined form is the nonce, the ciphertext and the tag: the blob after its
        // format and epoch, copied once into a blob allocated once.
        let combined: Data
        do {
            switch cipher {
            case .chaCha20Poly1305:
                let nonce = try ChaChaPoly.Nonce(data: macs.nonce(name: name, plaintext: plaintext))
                combined = try ChaChaPoly.seal(plaintext, using: macs.blobKey(name: name), nonce: nonce, authenticating: associatedData).combined
            case .aes256GCMSIV:
                let nonce = try AES.GCM._SIV.Nonce(data: gcmSIVNonce)
                combined = try AES.GCM._SIV.seal(plaintext, using: macs.blobKey(name: name), nonce: nonce, authenticating: associatedData).combined
            }
        } catch {
            // Twelve bytes always make a nonce, a blob key has 32, and sealing fails only on
            // such misuse.
            throw EncryptionError.invalidKey(reason: "sealing failed: \(error)")
        }
        var blob = Data(count: 5 + combined.count)
        blob.withUnsafeMutableBytes { bytes in
            bytes[0] = cipher.rawValue
            for index in 0..<4 { bytes[1 + index] = UInt8(truncatingIfNeeded: epoch >> (24 - 8 * index)) }
            combined.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: bytes[5...]).copyMemory(from: $0) }
        }
        return blob
    }

    /// What the blob named `name` holds once opened.
    enum Opened {
        /// The version and its changes, checked.
        case version(Version, [Value.Change])
        /// Sealed under an epoch whose key has not arrived: kept for later, never an error.
        case pending(epoch: UInt32)
    }

    /// What the blob named `name` holds once checked (``check(_:name:keys:)``): everything
    /// ``open(_:name:keys:)`` checks, with the changes not made yet.
    enum Checked {
        /// The version, and its changes checked but not decoded.
        case version(Version, CheckedChanges)
        /// Sealed under an epoch whose key has not arrived.
        case pending(epoch: UInt32)
    }

    /// A checked blob's changes, made when asked for: a listing checks every blob before a
    /// retrieve adds anything, and the changes of each batch are made while the batch before
    /// is added.
    struct CheckedChanges: Sendable {
        let batch: ExchangeBatch.Parsed
        let versionId: Version.ID
        let hexName: String

        /// The bytes of the version's batch, about the memory its changes take.
        var byteCount: Int { batch.byteCount }

        /// The changes.
        ///
        /// - Throws: ``EncryptionError/malformedContents(name:reason:)``, which a checked blob
        ///   never gives.
        func decode() throws(EncryptionError) -> [Value.Change] {
            do {
                return try batch.changes(of: versionId)
            } catch {
                throw EncryptionError.malformedContents(name: hexName, reason: error.description)
            }
        }
    }

    /// Opens `blob`, named `name`: checks the header, the tag (which covers the header, the
    /// store and the name), the padding and that the one version inside is the one `name`
    /// names.
    ///
    /// - Throws: ``EncryptionError/tampered(name:reason:)`` when it does not open,
    ///   ``EncryptionError/unsupportedFormat(name:format:)``,
    ///   ``EncryptionError/malformedContents(name:reason:)``.
    static func open(_ blob: Data, name: [UInt8], keys: EncryptionKeys) throws(EncryptionError) -> Opened {
        switch try check(blob, name: name, keys: keys) {
        case .version(let version, let changes): return .version(version, try changes.decode())
        case .pending(let epoch): return .pending(epoch: epoch)
        }
    }

    /// Checks `blob` as ``open(_:name:keys:)`` does (it throws exactly when opening would),
    /// making the version record but only checking its changes. `hexName` is `name` in hex,
    /// when the caller has it.
    ///
    /// - Throws: As ``open(_:name:keys:)``.
    static func check(_ blob: Data, name: [UInt8], hexName: String? = nil, keys: EncryptionKeys) throws(EncryptionError) -> Checked {
        let hexName = hexName ?? Hex.encode(name)
        guard let plaintext = try openPlaintext(blob, name: name, displayName: hexName, keys: keys) else {
            return .pending(epoch: blob.dropFirst().prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        }
        let length = plaintext.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        guard plaintext.count >= 4, length <= plaintext.count - 4, padme(4 + length) == plaintext.count,
              plaintext.withUnsafeBytes({ $0[(4 + length)...].allSatisfy { $0 == 0 } }) else {
            throw EncryptionError.malformedContents(name: hexName, reason: plaintext.count < 4 ? "no length"
                : "a length of \(length) does not fit a padded plaintext of \(plaintext.count) bytes")
        }
        let parsed: ExchangeBatch.Parsed
        do {
            let start = plaintext.startIndex + 4
            parsed = try ExchangeBatch.parse(plaintext[start..<(start + length)], location: "the sealed version")
        } catch {
            throw EncryptionError.malformedContents(name: hexName, reason: error.description)
        }
        let versions = parsed.versions
        guard versions.count == 1, let version = versions.first else {
            throw EncryptionError.malformedContents(name: hexName, reason: "\(versions.count) versions instead of one")
        }
        guard keys.name(of: version.id) == name else {
            throw EncryptionError.malformedContents(name: hexName, reason: "it holds version \(version.id), whose name is another")
        }
        return .version(version, CheckedChanges(batch: parsed, versionId: version.id, hexName: hexName))
    }

    /// The padded plaintext of the blob named `name` (shown as `displayName` in errors), or
    /// nil when its epoch has no key here.
    ///
    /// - Throws: ``EncryptionError/tampered(name:reason:)`` for a blob too short, a tag that
    ///   does not match or a nonce that is not the format's;
    ///   ``EncryptionError/unsupportedFormat(name:format:)``.
    static func openPlaintext(_ blob: Data, name: [UInt8], displayName: String, keys: EncryptionKeys) throws(EncryptionError) -> Data? {
        guard blob.count >= headerCount + tagCount else {
            throw EncryptionError.tampered(name: displayName, reason: "\(blob.count) bytes is shorter than a header and a tag")
        }
        // The format, the epoch and whether the nonce is 12 zero bytes (what format 2's must
        // be), read in one pass over the header.
        let (format, epoch, zeroNonce) = blob.withUnsafeBytes { header in
            (header[0], header[1..<5].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }, header[5..<17].allSatisfy { $0 == 0 })
        }
        guard let cipher = SealingCipher(rawValue: format) else { throw EncryptionError.unsupportedFormat(name: displayName, format: format) }
        guard let macs = keys.sealingMACs(ofEpoch: epoch) else { return nil }
        // After the format and the epoch, a blob is a box's combined form: nonce, ciphertext, tag.
        let combined = blob.dropFirst(5)
        let associatedData = associatedData(format: format, epoch: epoch, keys: keys, name: name)
        switch cipher {
        case .chaCha20Poly1305:
            let plaintext: Data
            do {
                plaintext = try ChaChaPoly.open(try ChaChaPoly.SealedBox(combined: combined), using: macs.blobKey(name: name),
                                                authenticating: associatedData)
            } catch {
                throw EncryptionError.tampered(name: displayName, reason: "the tag does not match (\(error))")
            }
            // The nonce is the plaintext's MAC: a blob sealed any other way is not ours.
            guard macs.nonce(name: name, plaintext: plaintext).elementsEqual(combined.prefix(12)) else {
                throw EncryptionError.tampered(name: displayName, reason: "the nonce is not the plaintext's")
            }
            return plaintext
        case .aes256GCMSIV:
            // The tag covers the nonce too, but a blob with another nonce is not ours either.
            guard zeroNonce else {
                throw EncryptionError.tampered(name: displayName, reason: "the nonce of a format-2 blob is not 12 zero bytes")
            }
            do {
                return try AES.GCM._SIV.open(try AES.GCM._SIV.SealedBox(combined: combined), using: macs.blobKey(name: name),
                                             authenticating: associatedData)
            } catch {
                throw EncryptionError.tampered(name: displayName, reason: "the tag does not match (\(error))")
            }
        }
    }

    /// The domain, the format, the epoch, the store identifier and the name.
    static func associatedData(format: UInt8, epoch: UInt32, keys: EncryptionKeys, name: [UInt8]) -> [UInt8] {
        var data: [UInt8] = []
        data.reserveCapacity(domain.count + 5 + keys.storeIdentifier.count + name.count)
        data.append(contentsOf: domain)
        data.append(format)
        for index in 0..<4 { data.append(UInt8(truncatingIfNeeded: epoch >> (24 - 8 * index))) }
        keys.storeIdentifier.withUnsafeBytes { data.append(contentsOf: $0) }
        data.append(contentsOf: name)
        return data
    }

    /// PADMÉ (Nikitin et al., "Reducing metadata leakage from encrypted files and
    /// communication with PURBs", 2019): `length` rounded up so that only its top
    /// ⌊log₂ ⌊log₂ length⌋⌋ + 1 bits may be non-zero; at most 12 % more, and a size leaks
    /// O(log log length) bits.
    static func padme(_ length: Int) -> Int {
        guard length > 1 else { return length }
        let exponent = Int.bitWidth - 1 - length.leadingZeroBitCount          // ⌊log₂ L⌋
        let significant = Int.bitWidth - exponent.leadingZeroBitCount          // ⌊log₂ E⌋ + 1
        let mask = (1 << max(0, exponent - significant)) - 1
        return (length + mask) & ~mask
    }

    /// The bytes of 64 lower-case hex digits, or nil.
    static func name(fromHex text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count == 64 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
            default: return nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        var index = 0
        while index < 64 {
            guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    static func appendBigEndian(_ value: UInt32, to data: inout Data) {
        withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) }
    }
}
