import Crypto
import Foundation
import LLVSCore
@testable import LLVSEncryption
import LLVSExchange
import Testing

/// Sealing and opening one version: round trips, determinism, padding, the bytes added, and
/// every kind of damage refused with a typed error.
@Suite struct SealedVersionTests {
    let keys = EncryptionKeys(storeKey: StoreEncryptionKey())

    static func sample(valueBytes: Int = 300) -> (Version, [Value.Change]) {
        let version = Version(id: .init("sample-version"), predecessors: .init(idOfFirst: .init("first"), idOfSecond: .init("second")),
                              timestamp: 812_345_678.25, valueDataSize: Int64(valueBytes), metadata: [.branch: .init(data: Data("main".utf8))])
        let changes: [Value.Change] = [
            .insert(Value(idString: "inserted", data: Data((0..<valueBytes).map { UInt8(truncatingIfNeeded: $0 * 7) }))),
            .remove(.init("removed")),
            .preserve(Value.Reference(valueId: .init("kept"), storedVersionId: .init("first"))),
        ]
        return (version, changes)
    }

    /// The suite's keys, sealing with `cipher`.
    func keys(sealingWith cipher: SealingCipher) -> EncryptionKeys {
        var keys = self.keys
        keys.sealingCipher = cipher
        return keys
    }

    func sealed(_ version: Version, _ changes: [Value.Change], keys: EncryptionKeys? = nil) throws -> (name: [UInt8], blob: Data) {
        let keys = keys ?? self.keys
        let name = keys.name(of: version.id)
        return (name, try SealedVersion.seal(version, changes: changes, name: name, keys: keys))
    }

    @Test(arguments: SealingCipher.allCases)
    func aSealedVersionOpensToTheSameVersionAndChanges(cipher: SealingCipher) throws {
        let keys = self.keys(sealingWith: cipher)
        let (version, changes) = Self.sample()
        let (name, blob) = try sealed(version, changes, keys: keys)
        guard case .version(let opened, let openedChanges) = try SealedVersion.open(blob, name: name, keys: keys) else {
            Issue.record("a blob of the current epoch is pending")
            return
        }
        #expect(opened == version)
        #expect(opened.timestamp == version.timestamp && opened.metadata == version.metadata && opened.valueDataSize == version.valueDataSize)
        #expect(openedChanges == changes)
    }

    /// A batch seals its versions one after another in one buffer: what a larger or smaller
    /// version left there never reaches the next blob, which is the blob a fresh buffer makes.
    @Test(arguments: SealingCipher.allCases)
    func aReusedBufferSealsAsAFreshOne(cipher: SealingCipher) throws {
        let keys = self.keys(sealingWith: cipher)
        var buffer: [UInt8] = []
        for valueBytes in [5_000, 10, 300, 0, 70_000, 1] {
            let (version, changes) = Self.sample(valueBytes: valueBytes)
            let name = keys.name(of: version.id)
            let reused = try SealedVersion.seal(version, changes: changes, name: name, keys: keys, reusing: &buffer)
            #expect(reused == (try SealedVersion.seal(version, changes: changes, name: name, keys: keys)))
            #expect(buffer.capacity >= 4 + valueBytes, "the buffer comes back for the next version")
            guard case .version(_, let opened) = try SealedVersion.open(reused, name: name, keys: keys) else {
                Issue.record("a blob of the current epoch is pending")
                return
            }
            #expect(opened == changes)
        }
    }

    /// Format 1 derives its nonce from the plaintext, so two plaintexts under one key never
    /// share a nonce. Format 2's nonce is zero, and AES-GCM-SIV derives the tag (which starts
    /// the keystream) from the plaintext, so two plaintexts never share a keystream.
    @Test(arguments: SealingCipher.allCases)
    func theSameVersionSealsToTheSameBlobAndOtherContentToAnotherKeystream(cipher: SealingCipher) throws {
        let keys = self.keys(sealingWith: cipher)
        let (version, changes) = Self.sample()
        let first = try sealed(version, changes, keys: keys)
        #expect(first.blob.first == cipher.rawValue)
        #expect(try sealed(version, changes, keys: keys).blob == first.blob, "sends must be idempotent")
        var other = version
        other.timestamp += 1
        let second = try sealed(other, changes, keys: keys)
        #expect(second.name == first.name)
        switch cipher {
        case .chaCha20Poly1305:
            #expect(second.blob[5..<17] != first.blob[5..<17], "two plaintexts under one key must not share a nonce")
        case .aes256GCMSIV:
            #expect(first.blob[5..<17].allSatisfy { $0 == 0 } && second.blob[5..<17].allSatisfy { $0 == 0 })
            #expect(second.blob.suffix(16) != first.blob.suffix(16), "two plaintexts must not share a tag, which starts the keystream")
            // The plaintexts differ only in the timestamp; a shared keystream would leave the
            // ciphertexts' first bytes equal.
            #expect(second.blob[17..<33] != first.blob[17..<33])
        }
    }

    @Test(arguments: [0, 1, 100, 1_000, 10_000, 100_000], SealingCipher.allCases)
    func aBlobAddsAHeaderATagAndPaddingOnly(valueBytes: Int, cipher: SealingCipher) throws {
        let keys = self.keys(sealingWith: cipher)
        let (version, changes) = Self.sample(valueBytes: valueBytes)
        let (_, blob) = try sealed(version, changes, keys: keys)
        let payload = ExchangeBatch.encode([(version, changes)]).count
        let padded = SealedVersion.padme(4 + payload)
        #expect(blob.count == padded + SealedVersion.headerCount + SealedVersion.tagCount)
        #expect(blob.count - padded + 4 <= 64, "at most 64 bytes beside the padding")
        #expect(Double(padded) <= Double(4 + payload) * 1.12 + 1)
    }

    @Test func padmeKeepsOnlyTheTopBitsAndNeverShrinks() {
        for length in [0, 1, 2, 3, 7, 9, 100, 255, 256, 257, 1_000, 4_097, 65_535, 1_000_001] {
            let padded = SealedVersion.padme(length)
            #expect(padded >= length)
            #expect(Double(padded) <= Double(length) * 1.12 + 1)
        }
        // The paper's example: 9 bits of length keep their top 4 bits.
        #expect(SealedVersion.padme(300) == 304)
        #expect(SealedVersion.padme(304) == 304)
        #expect((0..<5_000).allSatisfy { SealedVersion.padme($0) <= SealedVersion.padme($0 + 1) })
    }

    /// Every bit of a blob matters: flipping any bit of the header, the ciphertext or the tag
    /// gets a typed error, or in the epoch field an epoch without a key (pending, not
    /// added); never a version.
    @Test(arguments: SealingCipher.allCases)
    func everyFlippedBitIsRefused(cipher: SealingCipher) throws {
        let keys = self.keys(sealingWith: cipher)
        let (version, changes) = Self.sample(valueBytes: 40)
        let (name, blob) = try sealed(version, changes, keys: keys)
        for index in 0..<blob.count {
            for bit in 0..<8 {
                var damaged = blob
                damaged[index] ^= UInt8(1 << bit)
                do {
                    let opened = try SealedVersion.open(damaged, name: name, keys: keys)
                    if case .version = opened { Issue.record("byte \(index) bit \(bit): a damaged blob opened") }
                    // A changed epoch byte names an epoch without a key: pending, not added.
                    #expect((1..<5).contains(index), "byte \(index) bit \(bit): pending outside the epoch field")
                } catch let error {
                    switch error {
                    case .tampered, .unsupportedFormat: break
                    default: Issue.record("byte \(index) bit \(bit): \(error)")
                    }
                }
            }
        }
    }

    @Test(arguments: SealingCipher.allCases)
    func cutMovedAndForeignBlobsAreRefused(cipher: SealingCipher) throws {
        let keys = self.keys(sealingWith: cipher)
        let (version, changes) = Self.sample()
        let (name, blob) = try sealed(version, changes, keys: keys)
        for count in [0, 1, 16, 32, blob.count - 1] {
            #expect(throws: EncryptionError.self, "cut to \(count) bytes") { try SealedVersion.open(blob.prefix(count), name: name, keys: keys) }
        }
        #expect(throws: EncryptionError.self, "grown by a byte") { try SealedVersion.open(blob + Data([0]), name: name, keys: keys) }
        // Moved under the name of another version.
        var other = version
        other.id = .init("another-version")
        let otherName = keys.name(of: other.id)
        #expect(throws: EncryptionError.self, "moved to another name") { try SealedVersion.open(blob, name: otherName, keys: keys) }
        // Replayed into another store that names the version alike: the store identifier
        // and the epoch key differ.
        let foreign = EncryptionKeys(storeKey: StoreEncryptionKey())
        #expect(throws: EncryptionError.self, "replayed from another store") { try SealedVersion.open(blob, name: name, keys: foreign) }
    }

    @Test(arguments: SealingCipher.allCases)
    func aBlobOfAnEpochWithoutAKeyIsPendingUntilTheKeyArrives(cipher: SealingCipher) throws {
        let keys = self.keys(sealingWith: cipher)
        let epochKey = SymmetricKey(size: .bits256)
        let newer = try keys.adding(epoch: 7, key: epochKey, makingCurrent: true)
        let (version, changes) = Self.sample()
        let (name, blob) = try sealed(version, changes, keys: newer)
        guard case .pending(let epoch) = try SealedVersion.open(blob, name: name, keys: keys) else {
            Issue.record("opened without the epoch's key")
            return
        }
        #expect(epoch == 7)
        let arrived = try keys.adding(epoch: 7, key: epochKey, makingCurrent: false)
        guard case .version(let opened, _) = try SealedVersion.open(blob, name: name, keys: arrived) else {
            Issue.record("still pending with the key")
            return
        }
        #expect(opened == version)
        // The wrong key for that epoch is not a pending state but a refusal.
        let wrong = try keys.adding(epoch: 7, key: SymmetricKey(size: .bits256), makingCurrent: false)
        #expect(throws: EncryptionError.self) { try SealedVersion.open(blob, name: name, keys: wrong) }
    }

    @Test func keysOfTheWrongSizeAreRefused() {
        #expect(throws: EncryptionError.self) { try StoreEncryptionKey(rawRepresentation: Data(count: 31)) }
        #expect(throws: EncryptionError.self) { try keys.adding(epoch: 1, key: SymmetricKey(size: .bits128), makingCurrent: true) }
        #expect(throws: Never.self) { try StoreEncryptionKey(rawRepresentation: Data(count: 32)) }
    }
}
