import Crypto
import Foundation
import LLVSCore
@testable import LLVSEncryption
import PropertyBased
import Testing

/// The keyring: founding, enrolment by code, removal with a new epoch and a new phrase,
/// rotation, restoring from the phrase alone, and every forged, damaged or rolled-back
/// keyring refused.
@Suite struct KeyringTests {
    let storeKey = StoreEncryptionKey()
    let laptop: DeviceIdentity
    let phone: DeviceIdentity
    let tablet: DeviceIdentity

    init() throws {
        laptop = try DeviceIdentity(name: "laptop")
        phone = try DeviceIdentity(name: "phone")
        tablet = try DeviceIdentity(name: "tablet")
    }

    /// A keyring founded on the laptop with the phone and the tablet added.
    func threeDevices() throws -> Keyring {
        try Keyring.founding(storeKey: storeKey, founder: laptop).adding(phone.record, by: laptop).adding(tablet.record, by: phone)
    }

    @Test func theFounderAndThePhraseGetTheStoreKeyAndEpochZero() throws {
        let keyring = try Keyring.founding(storeKey: storeKey, founder: laptop)
        let secrets = try keyring.secrets(for: laptop)
        #expect(secrets.storeKey == storeKey)
        #expect(secrets.recoveryPhrase == RecoveryPhrase(storeKey: storeKey))
        #expect(secrets.currentEpoch == 0 && keyring.currentEpoch == 0)
        #expect(try keyring.secrets(for: RecoveryPhrase(storeKey: storeKey)) == secrets)
        let plain = EncryptionKeys(storeKey: storeKey)
        let fromKeyring = secrets.encryptionKeys
        let id = Version.ID("some version")
        #expect(fromKeyring.name(of: id) == plain.name(of: id) && fromKeyring.storeIdentifier == plain.storeIdentifier)
        #expect(fromKeyring.key(ofEpoch: 0) == plain.key(ofEpoch: 0))
        #expect(keyring.devices == [laptop.record])
    }

    @Test func anAddedDeviceGetsTheSameSecretsAndTheKeyringSurvivesItsBytes() throws {
        let keyring = try threeDevices()
        let read = try Keyring(revisions: keyring.revisions)
        #expect(read.devices.map(\.name) == ["laptop", "phone", "tablet"])
        let secrets = try read.secrets(for: laptop)
        #expect(try read.secrets(for: phone) == secrets)
        #expect(try read.secrets(for: tablet) == secrets)
        #expect(try read.secrets(for: RecoveryPhrase(storeKey: storeKey)) == secrets)
        #expect(read.extends(try Keyring.founding(storeKey: storeKey, founder: laptop)) == false, "another founding is another chain")
        #expect(read.extends(try Keyring(revisions: Array(keyring.revisions.prefix(2)))))
        #expect(throws: EncryptionError.invalidKey(reason: "device phone is already enrolled")) { try read.adding(phone.record, by: laptop) }
    }

    @Test func aRemovedDeviceGetsNothingNewAndThePhraseIsReplaced() throws {
        let before = try threeDevices()
        let oldSecrets = try before.secrets(for: phone)
        let after = try before.removing(deviceId: phone.record.id, by: tablet)
        #expect(after.currentEpoch == 1)
        #expect(after.devices.map(\.name) == ["laptop", "tablet"])
        #expect(throws: EncryptionError.notEnrolled(reason: "device phone was removed in keyring revision 3")) { try after.secrets(for: phone) }
        let secrets = try after.secrets(for: laptop)
        #expect(try after.secrets(for: tablet) == secrets)
        #expect(secrets.storeKey == storeKey && secrets.epochKeys.count == 2 && secrets.epochKeys[0] == oldSecrets.epochKeys[0])
        #expect(secrets.recoveryPhrase != oldSecrets.recoveryPhrase)
        #expect(throws: EncryptionError.notEnrolled(reason: "this phrase was replaced in keyring revision 3, when a device was removed; use the phrase shown then")) {
            try after.secrets(for: oldSecrets.recoveryPhrase)
        }
        #expect(try after.secrets(for: secrets.recoveryPhrase) == secrets, "a new device restores from the new phrase alone")
        // What the laptop seals now is pending for the keys the phone kept: they hold no epoch 1.
        let version = Version(id: .init("after the removal"))
        let name = secrets.encryptionKeys.name(of: version.id)
        let blob = try SealedVersion.seal(version, changes: [], name: name, keys: secrets.encryptionKeys)
        guard case .pending(epoch: 1) = try SealedVersion.open(blob, name: name, keys: oldSecrets.encryptionKeys) else {
            Issue.record("a removed device opened a version of the epoch after its removal")
            return
        }
        #expect(throws: EncryptionError.invalidKey(reason: "a device does not remove itself; remove it from another enrolled device")) {
            try after.removing(deviceId: laptop.record.id, by: laptop)
        }
        #expect(throws: EncryptionError.notEnrolled(reason: "device phone was removed in keyring revision 3")) {
            try after.rotating(by: phone)
        }
    }

    @Test func rotatingKeepsTheNamesAndGivesEveryDeviceTheNewEpoch() throws {
        var keyring = try Keyring.founding(storeKey: storeKey, founder: laptop)
        var devices = [laptop]
        for index in 1..<10 {
            let device = try DeviceIdentity(name: "device \(index)")
            keyring = try keyring.adding(device.record, by: devices[index - 1])
            devices.append(device)
        }
        let before = try keyring.secrets(for: laptop)
        let rotated = try keyring.rotating(by: devices[9])
        #expect(rotated.revisions.count == keyring.revisions.count + 1)
        let after = try rotated.secrets(for: devices[4])
        #expect(after.currentEpoch == 1 && after.recoveryPhrase == before.recoveryPhrase)
        let id = Version.ID("a version uploaded before")
        #expect(after.encryptionKeys.name(of: id) == before.encryptionKeys.name(of: id), "names do not change: nothing is uploaded again")
        for device in devices { #expect(try rotated.secrets(for: device) == after) }
        let renewed = try rotated.rotating(by: laptop, newPhrase: true)
        #expect(try renewed.secrets(for: laptop).recoveryPhrase != before.recoveryPhrase)
    }

    @Test func theCurrentPhraseEnrollsAndRemovesDevicesAndAReplacedOneCannot() throws {
        let keyring = try threeDevices()
        let phrase = RecoveryPhrase(storeKey: storeKey)
        // Every device lost: a new one restores from the phrase alone and enrolls itself with it.
        let replacement = try DeviceIdentity(name: "new laptop")
        var restored = try Keyring(revisions: keyring.revisions).adding(replacement.record, byPhrase: phrase)
        for device in [laptop, phone, tablet] {
            restored = try restored.removing(deviceId: device.record.id, byPhrase: try restored.secrets(for: replacement).recoveryPhrase)
        }
        let read = try Keyring(revisions: restored.revisions)
        #expect(read.devices == [replacement.record] && read.currentEpoch == 3)
        let secrets = try read.secrets(for: replacement)
        #expect(secrets.storeKey == storeKey && secrets.recoveryPhrase != phrase)
        #expect(throws: EncryptionError.invalidKey(reason: "the last enrolled device is not removed; add another first")) {
            try read.removing(deviceId: replacement.record.id, byPhrase: secrets.recoveryPhrase)
        }
        // The first phrase was replaced by the first removal: it can sign nothing after.
        let last = try Keyring.Revision(read.revisions[read.revisions.count - 1])
        let forged = try Keyring.Revision.seal(number: last.number + 1, previous: last, devices: read.devices + [phone.record],
                                               secrets: secrets, author: Keyring.Signer(phrase))
        #expect(throws: EncryptionError.keyringRejected(revision: last.number + 1, reason: "the signature of the recovery phrase does not match")) {
            try Keyring(revisions: read.revisions + [forged.bytes])
        }
        #expect(throws: EncryptionError.notEnrolled(reason: "this phrase was replaced in keyring revision 4, when a device was removed; use the phrase shown then")) {
            try read.adding(phone.record, byPhrase: phrase)
        }
    }

    @Test func theEnrollmentCodeNamesTheRecordItCameFrom() throws {
        let code = phone.record.enrollmentCode
        #expect(code.count == 11 && code.dropFirst(5).first == "-")
        #expect(phone.record.matches(enrollmentCode: code))
        #expect(phone.record.matches(enrollmentCode: code.lowercased().replacingOccurrences(of: "-", with: " ")))
        #expect(!tablet.record.matches(enrollmentCode: code))
        #expect(!phone.record.matches(enrollmentCode: String(code.dropLast())))
        let published = try DeviceRecord(serialized: phone.record.serialized)
        #expect(published == phone.record && published.enrollmentCode == code)
        let restored = try DeviceIdentity(serialized: phone.serialized)
        #expect(restored.record == phone.record)
        #expect(try threeDevices().secrets(for: restored) == threeDevices().secrets(for: phone))
    }

    @Test func everyDamagedByteOfEveryRevisionIsRefused() throws {
        let keyring = try threeDevices().removing(deviceId: phone.record.id, by: laptop)
        for (index, revision) in keyring.revisions.enumerated() {
            for offset in stride(from: 0, to: revision.count, by: max(1, revision.count / 300)) {
                var damaged = keyring.revisions
                damaged[index][damaged[index].startIndex + offset] ^= 0x04
                #expect(throws: EncryptionError.self, "byte \(offset) of revision \(index)") {
                    try Keyring(revisions: damaged).secrets(for: laptop)
                }
            }
            var cut = keyring.revisions
            cut[index] = cut[index].dropLast()
            #expect(throws: EncryptionError.self) { try Keyring(revisions: cut) }
        }
        var swapped = keyring.revisions
        swapped.swapAt(1, 2)
        #expect(throws: EncryptionError.keyringRejected(revision: 2, reason: "it is revision 2 at position 1")) { try Keyring(revisions: swapped) }
        #expect(throws: EncryptionError.keyringRejected(revision: 0, reason: "a keyring has at least one revision")) { try Keyring(revisions: []) }
    }

    @Test func aRemovedDeviceCannotWriteARevisionNorCanAStranger() throws {
        let keyring = try threeDevices().removing(deviceId: phone.record.id, by: laptop)
        let last = try Keyring.Revision(keyring.revisions[keyring.revisions.count - 1])
        // The phone kept the store key; it seals itself back in, with a revision signed by itself.
        let held = try threeDevices().secrets(for: phone)
        let random = { SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) } }
        let kept = KeyringSecrets(storeKey: held.storeKey, recoveryPhrase: held.recoveryPhrase, epochKeys: held.epochKeys + [random(), random()])
        let forged = try Keyring.Revision.seal(number: last.number + 1, previous: last, devices: keyring.devices + [phone.record],
                                               secrets: kept, author: Keyring.Signer(phone))
        #expect(throws: EncryptionError.keyringRejected(revision: 4, reason: "its author \(phone.record.idHex) is not an enrolled device")) {
            try Keyring(revisions: keyring.revisions + [forged.bytes])
        }
        // A stranger who holds no store key but signs as an enrolled device cannot: the signature.
        let stranger = try DeviceIdentity(name: "laptop")
        let strangerSecrets = KeyringSecrets(storeKey: StoreEncryptionKey(), recoveryPhrase: .random(),
                                             epochKeys: [Keyring.epochZeroKey(of: storeKey)])
        var impersonating = try Keyring.Revision.seal(number: last.number + 1, previous: last, devices: keyring.devices,
                                                      secrets: strangerSecrets, author: Keyring.Signer(stranger)).bytes
        impersonating.replaceSubrange(impersonating.startIndex + 6 + 1 + 4 + 32 + 4 ..< impersonating.startIndex + 6 + 1 + 4 + 32 + 4 + 16,
                                      with: laptop.record.id)
        #expect(throws: EncryptionError.self) { try Keyring(revisions: keyring.revisions + [impersonating]) }
        // A keyring made by someone else for the laptop's public key does not open with this
        // store's phrase, and does not extend the keyring the laptop holds.
        let other = try Keyring.founding(storeKey: StoreEncryptionKey(), founder: stranger).adding(laptop.record, by: stranger)
        #expect(!other.extends(keyring))
        #expect(throws: EncryptionError.notEnrolled(reason: "this phrase does not open this store's keyring (a wrong word, or another store's phrase)")) {
            try other.secrets(for: RecoveryPhrase(storeKey: storeKey))
        }
    }

    @Test func aRevisionWithoutTheStoreKeysMACIsRefused() throws {
        // An enrolled device's signature on a revision whose MAC is not under the store key
        // (made by code that does not hold it) is refused once the secrets are opened.
        let keyring = try threeDevices()
        let last = try Keyring.Revision(keyring.revisions[2])
        let secrets = try keyring.secrets(for: laptop)
        var bytes = try Keyring.Revision.seal(number: 3, previous: last, devices: keyring.devices, secrets: secrets, author: Keyring.Signer(laptop)).bytes
        let macStart = bytes.count - 64 - 32
        bytes.replaceSubrange(macStart..<(macStart + 32), with: [UInt8](repeating: 7, count: 32))
        bytes.replaceSubrange((bytes.count - 64)..., with: try Keyring.Signer(laptop).sign(bytes.prefix(bytes.count - 64)))
        let read = try Keyring(revisions: keyring.revisions + [bytes])
        #expect(throws: EncryptionError.keyringRejected(revision: 3, reason: "its MAC does not match: it was not made with this store's key")) {
            try read.secrets(for: phone)
        }
    }

    /// Random runs of adds, removals and rotations by random enrolled devices: every enrolled
    /// device and the current phrase open the same secrets, every removed device is refused,
    /// and the epoch counts the removals and rotations.
    @Test func anyRunOfChangesLeavesEveryEnrolledDeviceWithTheSameKeys() async {
        let operations = zip(Gen.int(in: 0...2), Gen.int(in: 0...15), Gen.int(in: 0...15)).array(of: 1...8)
        await propertyCheck(count: 25, input: operations) { operations in
            let founder = try DeviceIdentity(name: "founder")
            var keyring = try Keyring.founding(storeKey: storeKey, founder: founder)
            var enrolled = [founder]
            var removed: [DeviceIdentity] = []
            var epochs: UInt32 = 0
            for (kind, authorPick, targetPick) in operations {
                let author = enrolled[authorPick % enrolled.count]
                switch kind {
                case 0 where enrolled.count < 6:
                    let device = try DeviceIdentity(name: "device \(enrolled.count + removed.count)")
                    keyring = try keyring.adding(device.record, by: author)
                    enrolled.append(device)
                case 1 where enrolled.count > 1:
                    let others = enrolled.filter { $0.record.id != author.record.id }
                    let target = others[targetPick % others.count]
                    keyring = try keyring.removing(deviceId: target.record.id, by: author)
                    enrolled.removeAll { $0.record.id == target.record.id }
                    removed.append(target)
                    epochs += 1
                default:
                    keyring = try keyring.rotating(by: author)
                    epochs += 1
                }
            }
            let read = try Keyring(revisions: keyring.revisions)
            let secrets = try read.secrets(for: enrolled[0])
            #expect(secrets.currentEpoch == epochs && read.currentEpoch == epochs && secrets.storeKey == storeKey)
            for device in enrolled { #expect(try read.secrets(for: device) == secrets) }
            #expect(try read.secrets(for: secrets.recoveryPhrase) == secrets)
            for device in removed {
                #expect(throws: EncryptionError.self) { try read.secrets(for: device) }
            }
        }
    }
}
