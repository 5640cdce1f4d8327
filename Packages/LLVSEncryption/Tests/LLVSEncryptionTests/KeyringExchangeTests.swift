import Foundation
import LLVSCore
import LLVSEncryption
import LLVSExchange
import LLVSStore
import LLVSTesting
import Testing

/// The keyring travelling beside the sealed versions: a new device restores from the phrase
/// and the exchange alone, devices join by code, a removed device gets nothing new, and a
/// keyring that does not hold up stops the retrieve before anything is added.
@Suite struct KeyringExchangeTests {
    let root: TemporaryDirectory
    let shared: URL

    init() throws {
        root = try TemporaryDirectory(prefix: "llvs-keyring")
        shared = root.url.appendingPathComponent("shared")
    }

    func makeStore() throws -> Store {
        try Store(rootDirectoryURL: root.url.appendingPathComponent("store-\(UUID().uuidString)"))
    }

    func directory(_ store: Store) -> FileSystemExchange {
        FileSystemExchange(rootDirectoryURL: shared, store: store, newDirectoryFormat: .batches)
    }

    /// A store with `count` versions of one value each, on the laptop, founding the keyring.
    func founded(count: Int = 5) async throws -> (store: Store, laptop: DeviceIdentity, storeKey: StoreEncryptionKey, exchange: EncryptedExchange) {
        let store = try makeStore()
        for index in 0..<count {
            try store.makeVersion(basedOnPredecessor: store.mostRecentHead?.id, inserting: [Value(idString: "note \(index)", data: Data("text \(index)".utf8))])
        }
        let laptop = try DeviceIdentity(name: "laptop")
        let storeKey = StoreEncryptionKey()
        let keyring = try Keyring.founding(storeKey: storeKey, founder: laptop)
        let exchange = try EncryptedExchange(sealing: directory(store), keyring: keyring, member: .device(laptop))
        try await exchange.publish(keyring)
        try await exchange.send()
        return (store, laptop, storeKey, exchange)
    }

    static func texts(_ store: Store) throws -> [String: String] {
        guard let head = store.mostRecentHead?.id else { return [:] }
        var texts: [String: String] = [:]
        for reference in try store.valueReferences(at: head) {
            texts[reference.valueId.rawValue] = try store.value(storedAt: reference).map { String(decoding: $0.data, as: UTF8.self) }
        }
        return texts
    }

    @Test func aNewDeviceRestoresFromThePhraseAndTheExchangeAloneThenEnrollsItself() async throws {
        let (store, _, storeKey, _) = try await founded()
        let phrase = try RecoveryPhrase(RecoveryPhrase(storeKey: storeKey).words.joined(separator: " "))

        let restored = try makeStore()
        let exchange = try await EncryptedExchange.restoring(through: directory(restored), phrase: phrase)
        let added = try await exchange.retrieve()
        #expect(added.count == 5)
        #expect(try Self.texts(restored) == Self.texts(store))

        let desktop = try DeviceIdentity(name: "desktop")
        try await exchange.publish(try #require(exchange.keyring).adding(desktop.record, byPhrase: phrase))
        let joined = try await EncryptedExchange.joining(through: directory(try makeStore()), as: desktop)
        #expect(try await joined.retrieve().count == 5)

        let wrong = try RecoveryPhrase(secret: Data(repeating: 7, count: 32))
        await #expect(throws: EncryptionError.notEnrolled(reason: "this phrase does not open this store's keyring (a wrong word, or another store's phrase)")) {
            try await EncryptedExchange.restoring(through: directory(try makeStore()), phrase: wrong)
        }
    }

    @Test func aDeviceJoinsByItsCodeAndGetsEverything() async throws {
        let (store, laptop, _, laptopExchange) = try await founded()
        let phone = try DeviceIdentity(name: "phone")
        let phoneStore = try makeStore()
        await #expect(throws: EncryptionError.notEnrolled(reason: "device phone (\(phone.record.enrollmentCode)) has not been added")) {
            try await EncryptedExchange.joining(through: directory(phoneStore), as: phone)
        }
        try await EncryptedExchange.requestEnrollment(of: phone.record, through: directory(phoneStore))

        try await laptopExchange.retrieve()
        let request = try #require(laptopExchange.enrollmentRequests.first { $0.matches(enrollmentCode: phone.record.enrollmentCode) })
        #expect(laptopExchange.enrollmentRequests.count == 1)
        try await laptopExchange.publish(try #require(laptopExchange.keyring).adding(request, by: laptop))
        try await laptopExchange.retrieve()
        #expect(laptopExchange.enrollmentRequests.isEmpty, "an enrolled device is no longer a request")

        let phoneExchange = try await EncryptedExchange.joining(through: directory(phoneStore), as: phone)
        try await phoneExchange.retrieve()
        #expect(try Self.texts(phoneStore) == Self.texts(store))
        try phoneStore.makeVersion(basedOnPredecessor: phoneStore.mostRecentHead?.id, inserting: [Value(idString: "from the phone", data: Data("hello".utf8))])
        try await phoneExchange.send()
        try await laptopExchange.retrieve()
        #expect(try Self.texts(store)["from the phone"] == "hello")
    }

    @Test func hostileRequestsToJoinArePassedOverAndTheSyncGoesOn() async throws {
        let empty = try makeStore()
        await #expect(throws: EncryptionError.notEnrolled(reason: "the other side holds no keyring yet")) {
            try await EncryptedExchange.joining(through: directory(empty), as: try DeviceIdentity(name: "early"))
        }
        let (_, _, storeKey, laptopExchange) = try await founded(count: 2)
        let phone = try DeviceIdentity(name: "phone"), tablet = try DeviceIdentity(name: "tablet"), watch = try DeviceIdentity(name: "watch")
        func carrier(_ name: String, _ changes: [Value.Change]) -> (Version, [Value.Change]) {
            (Version(id: .init(name), predecessors: nil, timestamp: 0, valueDataSize: 0, metadata: [:]), changes)
        }
        let sealed = EncryptedExchange.sealedValueId
        try await directory(empty).send(versionChanges: [
            carrier("device-" + String(repeating: "ab", count: 16), [.insert(Value(id: sealed, data: Data([0xFF, 0x00, 0x41])))]),
            carrier("device-" + watch.record.idHex, [.insert(Value(id: sealed, data: phone.record.serialized))]),
            carrier("device-" + phone.record.idHex, [.insert(Value(idString: "other", data: phone.record.serialized)), .remove(.init("x"))]),
            carrier("device-\u{0}\u{FFFF}", [.insert(Value(id: sealed, data: Data("\u{0}".utf8)))]),
        ])
        try await EncryptedExchange.requestEnrollment(of: tablet.record, through: directory(empty))
        let store = laptopExchange.store
        try store.makeVersion(basedOnPredecessor: store.mostRecentHead?.id, inserting: [Value(idString: "after", data: Data("x".utf8))])
        try await laptopExchange.send()
        try await laptopExchange.retrieve()
        #expect(laptopExchange.enrollmentRequests == [tablet.record], "only the genuine request is listed")
        let restored = try await EncryptedExchange.restoring(through: directory(try makeStore()), phrase: RecoveryPhrase(storeKey: storeKey))
        #expect(try await restored.retrieve().count == 3, "the posted garbage stops no one's sync")
    }

    @Test func aRemovedDeviceKeepsWhatItHeldGetsNothingNewAndCannotSend() async throws {
        let (store, laptop, _, laptopExchange) = try await founded()
        let phone = try DeviceIdentity(name: "phone")
        try await laptopExchange.publish(try #require(laptopExchange.keyring).adding(phone.record, by: laptop))
        let phoneStore = try makeStore()
        let phoneExchange = try await EncryptedExchange.joining(through: directory(phoneStore), as: phone)
        try await phoneExchange.retrieve()
        let held = try Self.texts(phoneStore)

        let rotatedAt = Date()
        try await laptopExchange.publish(try #require(laptopExchange.keyring).removing(deviceId: phone.record.id, by: laptop))
        #expect(laptopExchange.currentKeys.currentEpoch == 1)
        try store.makeVersion(basedOnPredecessor: store.mostRecentHead?.id, inserting: [Value(idString: "after", data: Data("secret \(rotatedAt)".utf8))])
        try await laptopExchange.send()

        #expect(try await phoneExchange.retrieve().isEmpty)
        #expect(phoneExchange.pendingVersionCount == 1, "the version of epoch 1 waits: its key never comes")
        #expect(try Self.texts(phoneStore) == held)
        try phoneStore.makeVersion(basedOnPredecessor: phoneStore.mostRecentHead?.id, inserting: [Value(idString: "late", data: Data("x".utf8))])
        await #expect(throws: EncryptionError.notEnrolled(reason: "device phone was removed in keyring revision 2")) { try await phoneExchange.send() }
    }

    @Test func twoDevicesMakingTheSameRevisionConflictAndTheSecondRetries() async throws {
        let (_, laptop, _, laptopExchange) = try await founded(count: 1)
        let phone = try DeviceIdentity(name: "phone")
        try await laptopExchange.publish(try #require(laptopExchange.keyring).adding(phone.record, by: laptop))
        let phoneExchange = try await EncryptedExchange.joining(through: directory(try makeStore()), as: phone)

        let tablet = try DeviceIdentity(name: "tablet"), watch = try DeviceIdentity(name: "watch")
        try await laptopExchange.publish(try #require(laptopExchange.keyring).adding(tablet.record, by: laptop))
        await #expect(throws: ExchangeError.self) {
            try await phoneExchange.publish(try #require(phoneExchange.keyring).adding(watch.record, by: phone))
        }
        try await phoneExchange.retrieve()
        try await phoneExchange.publish(try #require(phoneExchange.keyring).adding(watch.record, by: phone))
        try await laptopExchange.retrieve()
        #expect(laptopExchange.keyring?.devices.map(\.name) == ["laptop", "phone", "tablet", "watch"])
        await #expect(throws: EncryptionError.keyringRejected(revision: 0, reason: "it does not extend the keyring followed")) {
            try await laptopExchange.publish(try Keyring.founding(storeKey: StoreEncryptionKey(), founder: laptop))
        }
    }

    @Test func aForgedRevisionOnTheOtherSideStopsTheRetrieveBeforeAnythingIsAdded() async throws {
        let (_, laptop, storeKey, _) = try await founded(count: 3)
        let phone = try DeviceIdentity(name: "phone")
        let phoneStore = try makeStore()
        let keyring = try await EncryptedExchange.joining(through: directory(phoneStore), as: laptop).keyring
        // Someone with write access to the folder, not enrolled, appends a revision adding the phone.
        let stranger = try DeviceIdentity(name: "stranger")
        let forged = try Keyring.founding(storeKey: storeKey, founder: stranger).adding(phone.record, by: stranger).revisions[1]
        try await directory(phoneStore).send(versionChanges: [
            (Version(id: .init("keyring-00000001"), predecessors: nil, timestamp: 0, valueDataSize: Int64(forged.count), metadata: [:]),
             [.insert(Value(id: EncryptedExchange.sealedValueId, data: forged))]),
        ])
        let follower = try EncryptedExchange(sealing: directory(phoneStore), keyring: try #require(keyring), member: .device(laptop))
        await #expect(throws: EncryptionError.self) { try await follower.retrieve() }
        #expect(phoneStore.queryHistory { $0.allVersionIdentifiers.isEmpty })
        await #expect(throws: EncryptionError.self) { try await EncryptedExchange.joining(through: directory(phoneStore), as: phone) }
    }
}
