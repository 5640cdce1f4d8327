import Foundation
import LLVSCore
import LLVSEncryption
import LLVSExchange
import LLVSStore
import LLVSTesting
import Testing

/// The README's keyring sample, as written there, with what it promises checked after.
@Suite struct ReadmeKeyringSampleTests {
    @Test func theKeyringSampleRunsAsWritten() async throws {
        let root = try TemporaryDirectory(prefix: "llvs-readme-keyring")
        let sharedURL = root.url.appendingPathComponent("shared")
        let store = try Store(rootDirectoryURL: root.url.appendingPathComponent("laptop"))
        let newStore = try Store(rootDirectoryURL: root.url.appendingPathComponent("restored"))
        let phoneStore = try Store(rootDirectoryURL: root.url.appendingPathComponent("phone"))
        try store.makeVersion(basedOnPredecessor: nil, inserting: [Value(idString: "note", data: Data("hello".utf8))])

        // The first device: a store key, its 24-word recovery phrase, and a keyring listing this device.
        let laptop = try DeviceIdentity(name: "laptop")          // keep laptop.serialized secret on the device
        let storeKey = StoreEncryptionKey()
        let phrase = RecoveryPhrase(storeKey: storeKey)           // show it once; the person writes it down
        let keyring = try Keyring.founding(storeKey: storeKey, founder: laptop)
        let exchange = try EncryptedExchange(sealing: FileSystemExchange(rootDirectoryURL: sharedURL, store: store),
                                             keyring: keyring, member: .device(laptop))
        try await exchange.publish(keyring)                       // the keyring travels beside the sealed versions
        try await exchange.send()

        // A new device with nothing but the phrase and the folder:
        let restored = try await EncryptedExchange.restoring(
            through: FileSystemExchange(rootDirectoryURL: sharedURL, store: newStore), phrase: try RecoveryPhrase(phrase.description))
        try await restored.retrieve()

        // A device joins by a code: it asks, an enrolled device checks the code it shows and adds it.
        let phone = try DeviceIdentity(name: "phone")
        try await EncryptedExchange.requestEnrollment(of: phone.record, through: FileSystemExchange(rootDirectoryURL: sharedURL, store: phoneStore))
        let code = phone.record.enrollmentCode                    // shown on the phone, typed on the laptop
        try await exchange.retrieve()                             // finds the request
        if let request = exchange.enrollmentRequests.first(where: { $0.matches(enrollmentCode: code) }), let current = exchange.keyring {
            try await exchange.publish(try current.adding(request, by: laptop))
        }
        let phoneExchange = try await EncryptedExchange.joining(
            through: FileSystemExchange(rootDirectoryURL: sharedURL, store: phoneStore), as: phone)
        try await phoneExchange.retrieve()

        // A device lost: a new epoch key and a new phrase for the devices that remain.
        if let current = exchange.keyring {
            try await exchange.publish(try current.removing(deviceId: phone.record.id, by: laptop))
        }

        #expect(newStore.queryHistory { $0.allVersionIdentifiers.count } == 1)
        #expect(phoneStore.queryHistory { $0.allVersionIdentifiers.count } == 1)
        #expect(exchange.keyring?.devices == [laptop.record] && exchange.currentKeys.currentEpoch == 1)
        #expect(throws: EncryptionError.self) { try exchange.keyring?.secrets(for: phrase) }
    }
}
