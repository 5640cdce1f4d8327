import Foundation
import LLVSCore
import LLVSExchange
import LLVSSupport

/// Sealed snapshots (SPEC.md, "Sealed snapshots"): a snapshot of the store goes to the other
/// side as a sealed manifest and chunks of one fixed size, each sealed on its own under the
/// current epoch, so a new device restores the store without replaying every version, and
/// the other side learns only how many chunks there are.
///
/// Blob names: `snapshot-S` for the manifest and `snapshot-S-IIIIIIII` for chunk `I` (8
/// lower-case hex digits), where `S` is the first 8 bytes, in hex, of HMAC-SHA256(name key,
/// `snapshot ` and the snapshot's identifier). The newest manifest listed is the latest
/// snapshot. A blind store never deletes, so older snapshots stay until the store is
/// recreated.
extension EncryptedExchange: SnapshotExchange {
    /// The newest sealed manifest on the other side, opened and checked, or nil.
    ///
    /// - Throws: ``EncryptionError`` for a manifest that does not open (tampered, sealed
    ///   under an epoch without a key: ``EncryptionError/invalidKey(reason:)``) or is not a
    ///   manifest; what the transport throws.
    public func retrieveSnapshotManifest() async throws -> SnapshotManifest? {
        let names = try await transport.allBlobNames()
        guard let name = names.last(where: Self.isSnapshotManifestName) else { return nil }
        guard let blob = try await transport.blobs(named: [name])[name] else { return nil }
        let payload = try SealedSnapshotPart.open(blob, name: name, fixedSize: nil, keys: currentKeys)
        let manifest: SnapshotManifest
        do {
            manifest = try CanonicalJSON.decode(SnapshotManifest.self, from: payload)
            try manifest.validate(location: "sealed snapshot \(name)")
        } catch {
            throw EncryptionError.malformedContents(name: name, reason: "not a snapshot manifest: \(error)")
        }
        guard snapshotName(of: manifest.snapshotId) == name else {
            throw EncryptionError.malformedContents(name: name, reason: "it holds the manifest of another snapshot")
        }
        return manifest
    }

    /// Chunk `index` of `manifest`'s snapshot, opened (the padding taken off).
    ///
    /// - Throws: `ExchangeError.corruptSnapshotChunk(snapshotId:index:)` when the other side
    ///   lacks it; ``EncryptionError`` when it does not open; what the transport throws.
    public func retrieveSnapshotChunk(index: Int, of manifest: SnapshotManifest) async throws -> Data {
        let name = chunkName(snapshot: snapshotName(of: manifest.snapshotId), index: index)
        guard let blob = try await transport.blobs(named: [name])[name] else {
            throw ExchangeError.corruptSnapshotChunk(snapshotId: manifest.snapshotId, index: index)
        }
        return try SealedSnapshotPart.open(blob, name: name, fixedSize: manifest.chunkSize, keys: currentKeys)
    }

    /// Seals every chunk, padded to the manifest's chunk size, then the manifest, and puts
    /// them (the manifest last, so a snapshot is listed only once whole).
    ///
    /// - Throws: ``EncryptionError/notEnrolled(reason:)`` once removed;
    ///   ``EncryptionError/invalidKey(reason:)`` for a chunk larger than the chunk size;
    ///   what `chunk` and the transport throw.
    public func sendSnapshot(manifest: SnapshotManifest, chunk: (Int) throws -> Data) async throws {
        if let removal = membership.withLock({ $0?.removal }) { throw removal }
        let keys = currentKeys
        let snapshot = snapshotName(of: manifest.snapshotId)
        var batch: [(name: String, data: Data)] = []
        var batchBytes = 0
        for index in 0..<manifest.chunkCount {
            let name = chunkName(snapshot: snapshot, index: index)
            let sealed = try SealedSnapshotPart.seal(try chunk(index), name: name, fixedSize: manifest.chunkSize, keys: keys)
            if !batch.isEmpty, batchBytes + sealed.count > maximumBatchByteCount {
                _ = try await putBlobs(batch)
                batch = []
                batchBytes = 0
            }
            batch.append((name, sealed))
            batchBytes += sealed.count
        }
        if !batch.isEmpty { _ = try await putBlobs(batch) }
        let sealedManifest = try SealedSnapshotPart.seal(try CanonicalJSON.encode(manifest), name: snapshot, fixedSize: nil, keys: keys)
        _ = try await putBlobs([(snapshot, sealedManifest)])
    }

    /// The blob name of the manifest of snapshot `snapshotId`.
    func snapshotName(of snapshotId: String) -> String {
        SealedSnapshotPart.manifestName(snapshotId: snapshotId, keys: currentKeys)
    }

    /// The blob name of chunk `index` of the snapshot whose manifest is `snapshot`.
    func chunkName(snapshot: String, index: Int) -> String {
        SealedSnapshotPart.chunkName(manifestName: snapshot, index: index)
    }

    /// True for `snapshot-` and 16 lower-case hex digits.
    static func isSnapshotManifestName(_ name: String) -> Bool {
        name.hasPrefix("snapshot-") && name.utf8.count == 25 && name.utf8.dropFirst(9).allSatisfy(isLowerHex)
    }

    /// True for any blob name of a sealed snapshot (a manifest or a chunk).
    static func isSnapshotBlobName(_ name: String) -> Bool { name.hasPrefix("snapshot-") }

    private static func isLowerHex(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) }
}

/// A sealed snapshot manifest or chunk: the sealed version's format (SPEC.md 18), with the
/// UTF-8 bytes of the blob's name where a version's name goes, and a plaintext of
/// `u32 length ‖ payload ‖ zeros` padded to the chunk size plus 4 for a chunk (so every
/// chunk of a snapshot has one size) and to PADMÉ for a manifest.
enum SealedSnapshotPart {
    /// `snapshot-` and the first 8 bytes, in hex, of HMAC-SHA256(name key, `snapshot ` and
    /// `snapshotId`).
    static func manifestName(snapshotId: String, keys: EncryptionKeys) -> String {
        "snapshot-" + Hex.encode(keys.name(of: Version.ID("snapshot " + snapshotId)).prefix(8))
    }

    /// The manifest's name, `-`, and `index` in 8 lower-case hex digits.
    static func chunkName(manifestName: String, index: Int) -> String {
        let digits = String(index, radix: 16)
        return manifestName + "-" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }

    /// The sealed part named `name` holding `payload`.
    ///
    /// - Throws: ``EncryptionError/invalidKey(reason:)`` when the current epoch has no key or
    ///   the payload is larger than `fixedSize`.
    static func seal(_ payload: Data, name: String, fixedSize: Int?, keys: EncryptionKeys) throws(EncryptionError) -> Data {
        guard let length = UInt32(exactly: payload.count), fixedSize.map({ payload.count <= $0 }) ?? true else {
            throw EncryptionError.invalidKey(reason: "a snapshot part of \(payload.count) bytes does not fit its size")
        }
        var plaintext = Data(capacity: 4 + (fixedSize ?? payload.count))
        SealedVersion.appendBigEndian(length, to: &plaintext)
        plaintext.append(payload)
        let total = fixedSize.map { 4 + $0 } ?? SealedVersion.padme(plaintext.count)
        plaintext.append(Data(count: total - plaintext.count))
        return try SealedVersion.seal(plaintext: plaintext, epoch: keys.currentEpoch, name: Array(name.utf8), keys: keys, cipher: keys.sealingCipher)
    }

    /// The payload of the sealed part named `name`.
    ///
    /// - Throws: ``EncryptionError/tampered(name:reason:)``, ``EncryptionError/unsupportedFormat(name:format:)``,
    ///   ``EncryptionError/malformedContents(name:reason:)`` (a padding that is not the
    ///   part's), ``EncryptionError/invalidKey(reason:)`` when its epoch has no key here.
    static func open(_ blob: Data, name: String, fixedSize: Int?, keys: EncryptionKeys) throws(EncryptionError) -> Data {
        guard let padded = try SealedVersion.openPlaintext(blob, name: Array(name.utf8), displayName: name, keys: keys) else {
            throw EncryptionError.invalidKey(reason: "snapshot part \(name) is sealed under an epoch whose key has not arrived")
        }
        let bytes = [UInt8](padded)
        guard bytes.count >= 4 else { throw EncryptionError.malformedContents(name: name, reason: "no length") }
        let length = Int(bytes[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        let expected = fixedSize.map { 4 + $0 } ?? SealedVersion.padme(4 + length)
        guard length <= bytes.count - 4, bytes.count == expected, bytes[(4 + length)...].allSatisfy({ $0 == 0 }) else {
            throw EncryptionError.malformedContents(name: name, reason: "a length of \(length) does not fit a padded plaintext of \(bytes.count) bytes")
        }
        return Data(bytes[4..<(4 + length)])
    }
}
