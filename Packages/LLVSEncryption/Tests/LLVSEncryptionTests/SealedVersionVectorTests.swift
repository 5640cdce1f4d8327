import Crypto
import Foundation
import LLVSCore
@testable import LLVSEncryption
import LLVSExchange
import LLVSTesting
import Testing

/// The vectors of sealed versions (SPEC.md section 18), `conformance/formats/sealed-versions.json`.
/// Sealing is deterministic, so the test makes the file from fixed keys and versions and
/// fails when it differs from the committed one (`LLVS_WRITE_VECTORS=1` rewrites it); then
/// it opens every valid blob of the committed file to its version and changes, and refuses
/// every invalid one with its class. The Python port reads the same file.
@Suite struct SealedVersionVectorTests {
    struct VectorFile: Codable {
        var format = "llvs-conformance-formats"
        var formatVersion = 1
        var section = "18"
        var about = """
            Sealed versions of an encrypted exchange. kind sealed: storeKey (32 bytes, hex) and the keys of later epochs \
            (epochKeys, epoch number to 32 bytes hex), from which storeIdentifier, nameKey and epoch 0's key derive; \
            version (section 3 Version, canonical JSON text) and changes (a JSON array of section 3 Value.Change, canonical \
            JSON text) sealed under epoch in format (1: ChaCha20-Poly1305 with a synthetic nonce, 2: AES-256-GCM-SIV with a \
            zero nonce); versionName (hex of HMAC-SHA256(name key, identifier)); blob (hex). Sealing the \
            version and changes in the format gives the blob byte for byte; opening it gives them back. Invalid: a blob under versionName \
            that opening refuses with errorClass: notSealed, tampered, unsupportedFormat, malformedContents, or pending \
            (its epoch has no key: left for later, not an error).
            """
        var valid: [Valid]
        var invalid: [Invalid]
    }

    struct Valid: Codable {
        var name: String
        var kind = "sealed"
        var storeKey: String
        var epochKeys: [String: String]
        var storeIdentifier: String
        var nameKey: String
        var epoch: UInt32
        var format: UInt8
        var version: String
        var changes: String
        var versionName: String
        var blob: String
    }

    struct Invalid: Codable {
        var name: String
        var kind = "sealed"
        var storeKey: String
        var epochKeys: [String: String]
        var versionName: String
        var blob: String
        var errorClass: String
    }

    static let storeKey = try? StoreEncryptionKey(rawRepresentation: Data((0..<32).map { UInt8($0) }))
    static let epochThreeKey = Data((0..<32).map { UInt8(0xA0 &+ $0) })

    static func hex(_ data: some Sequence<UInt8>) -> String { data.map { String(format: "%02x", $0) }.joined() }

    static func keys() throws -> EncryptionKeys {
        let base = EncryptionKeys(storeKey: try #require(storeKey))
        return try base.adding(epoch: 3, key: SymmetricKey(data: epochThreeKey), makingCurrent: false)
    }

    static func json(_ value: some Encodable) throws -> String {
        String(decoding: try CanonicalJSON.encode(value), as: UTF8.self)
    }

    /// The versions the valid vectors seal, with their epochs.
    static func samples() -> [(String, Version, [Value.Change], UInt32)] {
        let first = Version(id: .init("0F1E2D3C-4B5A-4978-8796-A5B4C3D2E1F0"), timestamp: 786_000_000.5, valueDataSize: 5,
                            metadata: [.branch: .init(data: Data("\"main\"".utf8))])
        let merge = Version(id: .init("merge of two"), predecessors: .init(idOfFirst: .init("left"), idOfSecond: .init("right")),
                            timestamp: 786_000_100, valueDataSize: 1_000)
        let hostile = Version(id: .init("nul\u{0}and é and 🧪"), predecessors: .init(idOfFirst: .init("../../etc/passwd")), timestamp: -1.25)
        return [
            ("one initial version inserting one value", first, [.insert(Value(idString: "greeting", data: Data("hello".utf8)))], 0),
            ("a merge with every kind of change, under epoch 3", merge, [
                .update(Value(idString: "big", data: Data((0..<1_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }))),
                .remove(.init("gone")),
                .preserve(Value.Reference(valueId: .init("kept"), storedVersionId: .init("left"))),
                .preserveRemoval(.init("still gone")),
            ], 3),
            ("hostile identifiers and every byte", hostile, [.insert(Value(idString: "\u{0}\u{7F}\"", data: Data((0...255).map { UInt8($0) })))], 0),
            ("no changes", Version(id: .init("empty"), timestamp: 0), [], 0),
        ]
    }

    static func makeFile() throws -> VectorFile {
        var keys = try keys()
        let keyHex = hex(try #require(storeKey).rawRepresentation)
        let epochKeys = ["3": hex(epochThreeKey)]
        let derived = EncryptionKeys(storeKey: try #require(storeKey))
        let nameKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: try #require(storeKey).rawRepresentation),
                                             salt: EncryptionKeys.derivationSalt, info: Data("version names".utf8), outputByteCount: 32)
        var valid: [Valid] = []
        var blobs: [(name: [UInt8], blob: Data, version: Version, changes: [Value.Change])] = []
        // Format 1 first: the invalid blobs below are made from its first blobs.
        for cipher in [SealingCipher.chaCha20Poly1305, .aes256GCMSIV] {
            keys.sealingCipher = cipher
            for (title, version, changes, epoch) in samples() {
                keys = try keys.adding(epoch: epoch, key: try #require(keys.key(ofEpoch: epoch)), makingCurrent: true)
                let name = keys.name(of: version.id)
                let blob = try SealedVersion.seal(version, changes: changes, name: name, keys: keys)
                blobs.append((name, blob, version, changes))
                valid.append(Valid(name: "format \(cipher.rawValue): \(title)", storeKey: keyHex, epochKeys: epochKeys,
                                   storeIdentifier: hex(derived.storeIdentifier), nameKey: nameKey.withUnsafeBytes { hex($0) }, epoch: epoch,
                                   format: cipher.rawValue, version: try json(version), changes: try json(changes), versionName: hex(name),
                                   blob: hex(blob)))
            }
        }
        keys = try keys.adding(epoch: 0, key: try #require(keys.key(ofEpoch: 0)), makingCurrent: true)
        keys.sealingCipher = .chaCha20Poly1305
        let gcmSIV = blobs[samples().count]
        let (name, blob, version, changes) = blobs[0]
        func invalid(_ title: String, _ blob: Data, name: [UInt8]? = nil, epochKeys: [String: String] = epochKeys, _ errorClass: String) -> Invalid {
            Invalid(name: title, storeKey: keyHex, epochKeys: epochKeys, versionName: hex(name ?? blobs[0].name), blob: hex(blob), errorClass: errorClass)
        }
        var flipped = blob
        flipped[flipped.count / 2] ^= 0x01
        var format3 = blob
        format3[0] = 3
        var gcmSIVFlipped = gcmSIV.blob
        gcmSIVFlipped[gcmSIVFlipped.count / 2] ^= 0x01
        var gcmSIVNonce = gcmSIV.blob
        gcmSIVNonce[5 + 11] ^= 0x80
        var gcmSIVKeys = keys
        gcmSIVKeys.sealingCipher = .aes256GCMSIV
        var otherStore = EncryptionKeys(storeKey: try StoreEncryptionKey(rawRepresentation: Data(repeating: 0xFF, count: 32)))
        otherStore.sealingCipher = .chaCha20Poly1305
        // Plaintexts no writer makes, sealed as a writer seals.
        let payload = ExchangeBatch.encode([(version, changes)])
        func framed(_ payload: Data, length: Int? = nil, padding: UInt8 = 0) -> Data {
            var plaintext = Data()
            SealedVersion.appendBigEndian(UInt32(length ?? payload.count), to: &plaintext)
            plaintext.append(payload)
            plaintext.append(Data(repeating: padding, count: SealedVersion.padme(plaintext.count) - plaintext.count))
            return plaintext
        }
        let other = Version(id: .init("another"), timestamp: 1)
        var nonZeroPadding = framed(payload)
        if nonZeroPadding.count == 4 + payload.count { nonZeroPadding.append(contentsOf: [0, 0, 0, 0]) }
        nonZeroPadding[nonZeroPadding.count - 1] = 1
        return VectorFile(valid: valid, invalid: [
            invalid("a flipped bit in the ciphertext", flipped, "tampered"),
            invalid("cut by one byte", blob.dropLast(), "tampered"),
            invalid("shorter than a header and a tag", blob.prefix(32), "tampered"),
            invalid("moved under the name of another version", blob, name: keys.name(of: other.id), "tampered"),
            invalid("sealed by another store (store key 32 × 0xFF) under the same name",
                    try SealedVersion.seal(version, changes: changes, name: name, keys: otherStore), "tampered"),
            invalid("format 3", format3, "unsupportedFormat"),
            invalid("under epoch 3 without its key", blobs[1].blob, name: blobs[1].name, epochKeys: [:], "pending"),
            invalid("padding that is not zero", try SealedVersion.seal(plaintext: nonZeroPadding, epoch: 0, name: name, keys: keys, cipher: .chaCha20Poly1305), "malformedContents"),
            invalid("a length past the plaintext", try SealedVersion.seal(plaintext: framed(payload, length: payload.count + 64), epoch: 0, name: name, keys: keys, cipher: .chaCha20Poly1305),
                    "malformedContents"),
            invalid("two versions in the payload",
                    try SealedVersion.seal(plaintext: framed(ExchangeBatch.encode([(version, changes), (other, [])])), epoch: 0, name: name, keys: keys, cipher: .chaCha20Poly1305),
                    "malformedContents"),
            invalid("another version than its name names",
                    try SealedVersion.seal(plaintext: framed(ExchangeBatch.encode([(other, [])])), epoch: 0, name: name, keys: keys, cipher: .chaCha20Poly1305), "malformedContents"),
            invalid("a payload that is not a batch", try SealedVersion.seal(plaintext: framed(Data("not a batch".utf8)), epoch: 0, name: name, keys: keys, cipher: .chaCha20Poly1305),
                    "malformedContents"),
            invalid("format 2: a flipped bit in the ciphertext", gcmSIVFlipped, "tampered"),
            invalid("format 2: cut by one byte", gcmSIV.blob.dropLast(), "tampered"),
            invalid("format 2: a nonce that is not zero", gcmSIVNonce, "tampered"),
            invalid("format 2: moved under the name of another version", gcmSIV.blob, name: keys.name(of: other.id), "tampered"),
            invalid("format 2: a format-1 blob relabelled format 2", { var relabelled = blob; relabelled[0] = 2; return relabelled }(), "tampered"),
            invalid("format 2: under epoch 3 without its key", blobs[samples().count + 1].blob, name: blobs[samples().count + 1].name, epochKeys: [:],
                    "pending"),
            invalid("format 2: another version than its name names",
                    try SealedVersion.seal(plaintext: framed(ExchangeBatch.encode([(other, [])])), epoch: 0, name: name, keys: gcmSIVKeys,
                                           cipher: .aes256GCMSIV), "malformedContents"),
        ])
    }

    @Test func theCommittedVectorsAreWhatSealingMakes() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let made = String(decoding: try encoder.encode(try Self.makeFile()), as: UTF8.self) + "\n"
        let url = ConformanceVectors.directory.appendingPathComponent("formats/sealed-versions.json")
        if ProcessInfo.processInfo.environment["LLVS_WRITE_VECTORS"] == "1" {
            try Data(made.utf8).write(to: url)
        }
        let committed = try String(contentsOf: url, encoding: .utf8)
        #expect(committed == made, "conformance/formats/sealed-versions.json differs from what sealing makes (LLVS_WRITE_VECTORS=1 rewrites it)")
    }

    @Test func theCommittedVectorsOpenOrAreRefusedWithTheirClass() throws {
        let url = ConformanceVectors.directory.appendingPathComponent("formats/sealed-versions.json")
        let file = try JSONDecoder().decode(VectorFile.self, from: Data(contentsOf: url))
        #expect(file.valid.count >= 8 && file.invalid.count >= 17)
        #expect(Set(file.valid.map(\.format)) == Set(SealingCipher.allCases.map(\.rawValue)))
        func keys(_ storeKey: String, _ epochKeys: [String: String]) throws -> EncryptionKeys {
            var keys = EncryptionKeys(storeKey: try StoreEncryptionKey(rawRepresentation: ConformanceVectors.bytes(storeKey)))
            for (epoch, key) in epochKeys {
                keys = try keys.adding(epoch: try #require(UInt32(epoch)), key: SymmetricKey(data: ConformanceVectors.bytes(key)), makingCurrent: false)
            }
            return keys
        }
        for vector in file.valid {
            let keys = try keys(vector.storeKey, vector.epochKeys)
            let version = try CanonicalJSON.decode(Version.self, from: Data(vector.version.utf8))
            #expect(Self.hex(keys.storeIdentifier) == vector.storeIdentifier, "\(vector.name)")
            #expect(Self.hex(keys.name(of: version.id)) == vector.versionName, "\(vector.name)")
            #expect(try ConformanceVectors.bytes(vector.blob).first == vector.format, "\(vector.name)")
            let opened = try SealedVersion.open(ConformanceVectors.bytes(vector.blob), name: ConformanceVectors.bytes(vector.versionName).map { $0 }, keys: keys)
            guard case .version(let openedVersion, let changes) = opened else {
                Issue.record("\(vector.name): pending")
                continue
            }
            #expect(try Self.json(openedVersion) == vector.version, "\(vector.name)")
            #expect(try Self.json(changes) == vector.changes, "\(vector.name)")
        }
        for vector in file.invalid {
            let keys = try keys(vector.storeKey, vector.epochKeys)
            let name = [UInt8](try ConformanceVectors.bytes(vector.versionName))
            let blob = try ConformanceVectors.bytes(vector.blob)
            let found: String
            do {
                switch try SealedVersion.open(blob, name: name, keys: keys) {
                case .pending: found = "pending"
                case .version: found = "opened"
                }
            } catch {
                switch error {
                case .tampered: found = "tampered"
                case .malformedContents: found = "malformedContents"
                case .unsupportedFormat: found = "unsupportedFormat"
                case .notSealed: found = "notSealed"
                case .invalidKey, .invalidPhrase, .keyringRejected, .notEnrolled, .writeTokenRejected: found = "\(error)"
                }
            }
            #expect(found == vector.errorClass, "\(vector.name)")
        }
    }
}
