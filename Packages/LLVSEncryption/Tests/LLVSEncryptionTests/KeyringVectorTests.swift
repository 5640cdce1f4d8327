import Crypto
import Foundation
@testable import LLVSEncryption
import LLVSTesting
import Testing

/// The vectors of recovery phrases and keyrings (SPEC.md 18.1-18.3),
/// `conformance/formats/keyrings.json`. HPKE seals with a fresh ephemeral key, so a keyring
/// is not made twice alike: `LLVS_WRITE_VECTORS=1` makes the file from fixed store and
/// device keys (and random epoch keys and phrases, recorded in it), and the test opens every
/// committed keyring as each member and expects the secrets or the error the file gives. The
/// Python port reads the same file with its own X25519, Ed25519 and HPKE.
@Suite struct KeyringVectorTests {
    struct VectorFile: Codable {
        var format = "llvs-conformance-formats"
        var formatVersion = 1
        var section = "18"
        var about = """
            Recovery phrases and keyrings of encrypted exchanges. phrases: a 32-byte secret (hex) and its 24 words \
            (bip39-english.txt). devices: name, x25519PrivateKey and ed25519Seed (hex), their record, id and enrollmentCode. \
            keyrings: revisions (hex, oldest first) and, per member (device:NAME or phrase:WORDS), the secrets the last \
            revision opens to (storeKey, recoverySecret, epochKeys, hex) or the errorClass (notEnrolled). invalid: revisions \
            a reader refuses with errorClass keyringRejected, opened as member.
            """
        var phrases: [Phrase]
        var devices: [Device]
        var keyrings: [KeyringCase]
        var invalid: [Invalid]
    }

    struct Phrase: Codable { var secret: String; var words: String }
    struct Device: Codable {
        var name: String; var x25519PrivateKey: String; var ed25519Seed: String
        var record: String; var id: String; var enrollmentCode: String
    }
    struct Opening: Codable {
        var member: String
        var storeKey: String?; var recoverySecret: String?; var epochKeys: [String]?
        var errorClass: String?
    }
    struct KeyringCase: Codable { var name: String; var revisions: [String]; var openings: [Opening] }
    struct Invalid: Codable { var name: String; var revisions: [String]; var member: String; var errorClass: String }

    static let url = ConformanceVectors.directory.appendingPathComponent("formats/keyrings.json")
    static func hex(_ data: some Sequence<UInt8>) -> String { data.map { String(format: "%02x", $0) }.joined() }

    /// The device named `name` with these private keys, as a saved device file holds it.
    static func identity(_ name: String, agreement: Data, signing: Data) throws -> DeviceIdentity {
        var serialized = Data("LLVSDEV1".utf8)
        serialized.append(UInt8(name.utf8.count))
        serialized.append(Data(name.utf8))
        serialized.append(agreement)
        serialized.append(signing)
        return try DeviceIdentity(serialized: serialized)
    }

    static func device(_ name: String, _ seed: UInt8) throws -> (DeviceIdentity, Device) {
        let agreement = Data(repeating: seed, count: 32), signing = Data(repeating: seed &+ 0x10, count: 32)
        let identity = try identity(name, agreement: agreement, signing: signing)
        return (identity, Device(name: name, x25519PrivateKey: hex(agreement), ed25519Seed: hex(signing), record: hex(identity.record.serialized),
                                 id: identity.record.idHex, enrollmentCode: identity.record.enrollmentCode))
    }

    static func opening(_ keyring: Keyring, _ member: KeyringMember, _ label: String) -> Opening {
        do throws(EncryptionError) {
            let secrets: KeyringSecrets
            switch member {
            case .device(let device): secrets = try keyring.secrets(for: device)
            case .phrase(let phrase): secrets = try keyring.secrets(for: phrase)
            }
            return Opening(member: label, storeKey: hex(secrets.storeKey.rawRepresentation), recoverySecret: hex(secrets.recoveryPhrase.secret),
                           epochKeys: secrets.epochKeys.map { hex($0) })
        } catch .notEnrolled {
            return Opening(member: label, errorClass: "notEnrolled")
        } catch {
            return Opening(member: label, errorClass: "keyringRejected")
        }
    }

    static func makeFile() throws -> VectorFile {
        let storeKey = try StoreEncryptionKey(rawRepresentation: Data((0..<32).map { UInt8($0) }))
        let (laptop, laptopVector) = try device("laptop", 0x11)
        let (phone, phoneVector) = try device("phone", 0x12)
        let (tablet, tabletVector) = try device("tablet", 0x13)
        let founding = try Keyring.founding(storeKey: storeKey, founder: laptop)
        let three = try founding.adding(phone.record, by: laptop).adding(tablet.record, by: phone)
        let removed = try three.removing(deviceId: phone.record.id, by: laptop)
        let rotated = try removed.rotating(by: tablet)
        let firstPhrase = RecoveryPhrase(storeKey: storeKey)
        let secondPhrase = try rotated.secrets(for: tablet).recoveryPhrase
        let members: [(String, KeyringMember)] = [
            ("device:laptop", .device(laptop)), ("device:phone", .device(phone)), ("device:tablet", .device(tablet)),
            ("phrase:" + firstPhrase.description, .phrase(firstPhrase)), ("phrase:" + secondPhrase.description, .phrase(secondPhrase)),
        ]
        func keyringCase(_ name: String, _ keyring: Keyring) -> KeyringCase {
            KeyringCase(name: name, revisions: keyring.revisions.map { hex($0) }, openings: members.map { opening(keyring, $1, $0) })
        }
        let revisions = rotated.revisions
        var flipped = revisions
        flipped[3][flipped[3].count - 1] ^= 0x01
        let last = try Keyring.Revision(revisions[4])
        let forged = try Keyring.Revision.seal(number: 5, previous: last, devices: rotated.devices + [phone.record],
                                               secrets: try three.secrets(for: phone), author: Keyring.Signer(phone))
        var badMAC = try Keyring.Revision.seal(number: 5, previous: last, devices: rotated.devices,
                                               secrets: try rotated.secrets(for: laptop), author: Keyring.Signer(laptop)).bytes
        badMAC.replaceSubrange((badMAC.count - 96)..<(badMAC.count - 64), with: Data(repeating: 7, count: 32))
        badMAC.replaceSubrange((badMAC.count - 64)..., with: try Keyring.Signer(laptop).sign(badMAC.prefix(badMAC.count - 64)))
        let oldPhraseSigned = try Keyring.Revision.seal(number: 5, previous: last, devices: rotated.devices,
                                                        secrets: try rotated.secrets(for: laptop), author: Keyring.Signer(firstPhrase))
        func invalid(_ name: String, _ revisions: [Data], _ member: String = "device:laptop") -> Invalid {
            Invalid(name: name, revisions: revisions.map { hex($0) }, member: member, errorClass: "keyringRejected")
        }
        return VectorFile(
            phrases: try RecoveryPhraseTests.vectors.map { Phrase(secret: hex($0.secret), words: try RecoveryPhrase(secret: $0.secret).description) }
                + [Phrase(secret: hex(storeKey.rawRepresentation), words: firstPhrase.description),
                   Phrase(secret: hex(secondPhrase.secret), words: secondPhrase.description)],
            devices: [laptopVector, phoneVector, tabletVector],
            keyrings: [
                keyringCase("founded on the laptop", founding),
                keyringCase("the phone added by the laptop, the tablet by the phone", three),
                keyringCase("then the phone removed by the laptop (epoch 1, a new phrase), then a rotation by the tablet (epoch 2)", rotated),
            ],
            invalid: [
                invalid("a flipped bit in the signature of revision 3", flipped),
                invalid("revision 2 missing", [revisions[0], revisions[1], revisions[3], revisions[4]]),
                invalid("revision 1 cut by one byte", [revisions[0], revisions[1].dropLast()] + revisions[2...]),
                invalid("revision 5 by the removed phone, signing itself back in", revisions + [forged.bytes]),
                invalid("revision 5 signed by the laptop with a MAC not under the store key", revisions + [badMAC]),
                invalid("revision 5 signed by the phrase replaced in revision 3", revisions + [oldPhraseSigned.bytes]),
                invalid("revision 0 of another store in front", [try Keyring.founding(storeKey: StoreEncryptionKey(), founder: laptop).revisions[0]] + revisions[1...]),
            ])
    }

    @Test func theWordListIsTheConformanceFilesAndTheVectorsAreWrittenOnRequest() throws {
        let listed = try String(contentsOf: ConformanceVectors.directory.appendingPathComponent("formats/bip39-english.txt"), encoding: .utf8)
        let listedWords: [String] = listed.split(separator: "\n").map { String($0) }
        let words: [String] = RecoveryPhrase.wordList.map { String($0) }
        #expect(listedWords == words)
        if ProcessInfo.processInfo.environment["LLVS_WRITE_VECTORS"] == "1" {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            try Data((String(decoding: try encoder.encode(try Self.makeFile()), as: UTF8.self) + "\n").utf8).write(to: Self.url)
        }
    }

    @Test func theCommittedKeyringsOpenAsTheySay() throws {
        let file = try JSONDecoder().decode(VectorFile.self, from: Data(contentsOf: Self.url))
        #expect(file.phrases.count >= 7 && file.keyrings.count >= 3 && file.invalid.count >= 7)
        for phrase in file.phrases {
            #expect(try RecoveryPhrase(phrase.words).secret == ConformanceVectors.bytes(phrase.secret))
        }
        var members: [String: KeyringMember] = [:]
        for vector in file.devices {
            let device = try Self.identity(vector.name, agreement: try ConformanceVectors.bytes(vector.x25519PrivateKey),
                                           signing: try ConformanceVectors.bytes(vector.ed25519Seed))
            #expect(Self.hex(device.record.serialized) == vector.record && device.record.idHex == vector.id
                    && device.record.enrollmentCode == vector.enrollmentCode, "\(vector.name)")
            members["device:" + vector.name] = .device(device)
        }
        func member(_ label: String) throws -> KeyringMember {
            if let device = members[label] { return device }
            return .phrase(try RecoveryPhrase(String(label.dropFirst("phrase:".count))))
        }
        for vector in file.keyrings {
            let keyring = try Keyring(revisions: vector.revisions.map { try ConformanceVectors.bytes($0) })
            for expected in vector.openings {
                let opened = Self.opening(keyring, try member(expected.member), expected.member)
                #expect(opened.errorClass == expected.errorClass && opened.storeKey == expected.storeKey
                        && opened.recoverySecret == expected.recoverySecret && opened.epochKeys == expected.epochKeys,
                        "\(vector.name), opened as \(expected.member)")
            }
        }
        for vector in file.invalid {
            let revisions = try vector.revisions.map { try ConformanceVectors.bytes($0) }
            let member = try member(vector.member)
            #expect(throws: EncryptionError.self, "\(vector.name)") {
                let keyring = try Keyring(revisions: revisions)
                _ = try member.secrets(in: keyring)
            }
        }
    }
}
