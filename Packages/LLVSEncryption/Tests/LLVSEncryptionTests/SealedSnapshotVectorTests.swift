import Crypto
import Foundation
import LLVSCore
@testable import LLVSEncryption
import LLVSTesting
import Testing

/// The vectors of sealed snapshot parts (SPEC.md 18.6), `conformance/formats/sealed-snapshots.json`:
/// made from fixed keys and payloads and compared with the committed file
/// (`LLVS_WRITE_VECTORS=1` rewrites it); every valid part opens to its payload, every invalid
/// one is refused with its class. The Python port reads the same file.
@Suite struct SealedSnapshotVectorTests {
    struct VectorFile: Codable {
        var format = "llvs-conformance-formats"
        var formatVersion = 1
        var section = "18.6"
        var about = """
            Sealed snapshot parts. storeKey (32 bytes, hex), from which the name key and epoch 0's key derive (SPEC 18); \
            snapshotId and manifestName (snapshot- and the first 8 bytes, hex, of HMAC-SHA256(name key, "snapshot " + \
            snapshotId)). Valid: a part named blobName (the manifest, or the manifest's name, -, and the chunk index in 8 hex \
            digits) holding payload (hex), padded to 4 + fixedSize bytes for a chunk or to padme(4 + length) for the \
            manifest (fixedSize null), sealed in format (1: ChaCha20-Poly1305, 2: AES-256-GCM-SIV) under epoch 0 as a \
            sealed version is with the UTF-8 bytes of blobName as its name: blob (hex), byte for byte. Invalid: a blob \
            under blobName, opened with fixedSize, refused with errorClass tampered or malformedContents.
            """
        var storeKey: String
        var snapshotId: String
        var manifestName: String
        var valid: [Part]
        var invalid: [Invalid]
    }

    struct Part: Codable {
        var name: String
        var format: UInt8
        var blobName: String
        var fixedSize: Int?
        var payload: String
        var blob: String
    }

    struct Invalid: Codable {
        var name: String
        var blobName: String
        var fixedSize: Int?
        var blob: String
        var errorClass: String
    }

    static let snapshotId = "7A1C0E52-3B4D-4E6F-8091-A2B3C4D5E6F7"

    static func hex(_ data: some Sequence<UInt8>) -> String { data.map { String(format: "%02x", $0) }.joined() }

    static func makeFile() throws -> VectorFile {
        let storeKey = try StoreEncryptionKey(rawRepresentation: Data((0..<32).map { UInt8($0) }))
        var keys = EncryptionKeys(storeKey: storeKey)
        let manifestName = SealedSnapshotPart.manifestName(snapshotId: snapshotId, keys: keys)
        let manifest = Data(#"{"a manifest":"its canonical JSON"}"#.utf8)
        let chunks = [Data((0..<64).map { UInt8(truncatingIfNeeded: $0 &* 7) }), Data((0..<64).map { UInt8(255 - $0) }), Data("the last, short".utf8)]
        var valid: [Part] = []
        // Format 1 first: the invalid parts below are made from its chunks.
        for cipher in [SealingCipher.chaCha20Poly1305, .aes256GCMSIV] {
            keys.sealingCipher = cipher
            let format = cipher.rawValue
            valid.append(Part(name: "format \(format): the manifest", format: format, blobName: manifestName, fixedSize: nil, payload: hex(manifest),
                              blob: hex(try SealedSnapshotPart.seal(manifest, name: manifestName, fixedSize: nil, keys: keys))))
            for (index, chunk) in chunks.enumerated() {
                let name = SealedSnapshotPart.chunkName(manifestName: manifestName, index: index)
                valid.append(Part(name: "format \(format): chunk \(index)", format: format, blobName: name, fixedSize: 64, payload: hex(chunk),
                                  blob: hex(try SealedSnapshotPart.seal(chunk, name: name, fixedSize: 64, keys: keys))))
            }
        }
        keys.sealingCipher = .chaCha20Poly1305
        let chunkZero = try ConformanceVectors.bytes(valid[1].blob)
        var flipped = chunkZero
        flipped[flipped.count / 2] ^= 0x01
        let gcmSIVChunkZero = try ConformanceVectors.bytes(valid[5].blob)
        var gcmSIVFlipped = gcmSIVChunkZero
        gcmSIVFlipped[gcmSIVFlipped.count / 2] ^= 0x01
        var gcmSIVNonce = gcmSIVChunkZero
        gcmSIVNonce[5] ^= 0x01
        var nonZero = Data()
        SealedVersion.appendBigEndian(UInt32(chunks[2].count), to: &nonZero)
        nonZero.append(chunks[2])
        nonZero.append(Data(repeating: 0, count: 68 - nonZero.count))
        nonZero[nonZero.count - 1] = 1
        var other = EncryptionKeys(storeKey: try StoreEncryptionKey(rawRepresentation: Data(repeating: 0xFF, count: 32)))
        other.sealingCipher = .chaCha20Poly1305
        return VectorFile(storeKey: hex(storeKey.rawRepresentation), snapshotId: snapshotId, manifestName: manifestName, valid: valid, invalid: [
            Invalid(name: "a flipped bit", blobName: valid[1].blobName, fixedSize: 64, blob: hex(flipped), errorClass: "tampered"),
            Invalid(name: "chunk 0 under the name of chunk 1", blobName: valid[2].blobName, fixedSize: 64, blob: hex(chunkZero), errorClass: "tampered"),
            Invalid(name: "a chunk under the manifest's name", blobName: manifestName, fixedSize: nil, blob: hex(chunkZero), errorClass: "tampered"),
            Invalid(name: "sealed by another store", blobName: valid[1].blobName, fixedSize: 64,
                    blob: hex(try SealedSnapshotPart.seal(chunks[0], name: valid[1].blobName, fixedSize: 64, keys: other)), errorClass: "tampered"),
            Invalid(name: "padding that is not zero", blobName: valid[3].blobName, fixedSize: 64,
                    blob: hex(try SealedVersion.seal(plaintext: nonZero, epoch: 0, name: Array(valid[3].blobName.utf8), keys: keys,
                                                     cipher: .chaCha20Poly1305)),
                    errorClass: "malformedContents"),
            Invalid(name: "format 2: a flipped bit", blobName: valid[5].blobName, fixedSize: 64, blob: hex(gcmSIVFlipped), errorClass: "tampered"),
            Invalid(name: "format 2: a nonce that is not zero", blobName: valid[5].blobName, fixedSize: 64, blob: hex(gcmSIVNonce), errorClass: "tampered"),
            Invalid(name: "format 2: chunk 0 under the name of chunk 1", blobName: valid[6].blobName, fixedSize: 64, blob: hex(gcmSIVChunkZero),
                    errorClass: "tampered"),
            Invalid(name: "format 2: padding that is not zero", blobName: valid[7].blobName, fixedSize: 64,
                    blob: hex(try SealedVersion.seal(plaintext: nonZero, epoch: 0, name: Array(valid[7].blobName.utf8), keys: keys, cipher: .aes256GCMSIV)),
                    errorClass: "malformedContents"),
            Invalid(name: "a chunk of another size than the manifest's", blobName: valid[1].blobName, fixedSize: 32, blob: valid[1].blob,
                    errorClass: "malformedContents"),
        ])
    }

    @Test func theCommittedVectorsAreWhatSealingMakes() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let made = String(decoding: try encoder.encode(try Self.makeFile()), as: UTF8.self) + "\n"
        let url = ConformanceVectors.directory.appendingPathComponent("formats/sealed-snapshots.json")
        if ProcessInfo.processInfo.environment["LLVS_WRITE_VECTORS"] == "1" {
            try Data(made.utf8).write(to: url)
        }
        let committed = try String(contentsOf: url, encoding: .utf8)
        #expect(committed == made, "conformance/formats/sealed-snapshots.json differs from what sealing makes (LLVS_WRITE_VECTORS=1 rewrites it)")
    }

    @Test func theCommittedVectorsOpenOrAreRefusedWithTheirClass() throws {
        let url = ConformanceVectors.directory.appendingPathComponent("formats/sealed-snapshots.json")
        let file = try JSONDecoder().decode(VectorFile.self, from: Data(contentsOf: url))
        let keys = EncryptionKeys(storeKey: try StoreEncryptionKey(rawRepresentation: ConformanceVectors.bytes(file.storeKey)))
        #expect(SealedSnapshotPart.manifestName(snapshotId: file.snapshotId, keys: keys) == file.manifestName)
        #expect(file.valid.count >= 8 && file.invalid.count >= 10)
        #expect(Set(file.valid.map(\.format)) == Set(SealingCipher.allCases.map(\.rawValue)))
        for part in file.valid {
            #expect(try ConformanceVectors.bytes(part.blob).first == part.format, "\(part.name)")
            let payload = try SealedSnapshotPart.open(ConformanceVectors.bytes(part.blob), name: part.blobName, fixedSize: part.fixedSize, keys: keys)
            #expect(Self.hex(payload) == part.payload, "\(part.name)")
        }
        for vector in file.invalid {
            var found = "opened"
            let blob = try ConformanceVectors.bytes(vector.blob)
            do throws(EncryptionError) {
                _ = try SealedSnapshotPart.open(blob, name: vector.blobName, fixedSize: vector.fixedSize, keys: keys)
            } catch .tampered {
                found = "tampered"
            } catch .malformedContents {
                found = "malformedContents"
            } catch {
                found = "\(error)"
            }
            #expect(found == vector.errorClass, "\(vector.name)")
        }
    }
}
