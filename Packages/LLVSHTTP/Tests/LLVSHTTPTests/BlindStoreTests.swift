import Foundation
import LLVSCore
import LLVSEncryption
import LLVSEncryptionTesting
import LLVSExchange
import LLVSExchangeTesting
import LLVSHTTPExchange
import LLVSStore
import LLVSSupport
import LLVSSyncProtocol
import LLVSSyncServer
import LLVSSyncStorage
import LLVSTesting
import LLVSTestingGenerators
import NIOHTTP1
import PropertyBased
import Testing

/// Blind stores (`/v1/blind/{store}`) on SQLite and PostgreSQL: the encrypted exchange over
/// them passes `ExchangeConformance`, the storage holds nothing in the clear, writes need the
/// current epoch's write token (so a removed device writes nothing more), and hostile
/// requests are refused with their reason.
@Suite(.serialized) struct BlindStoreTests {
    static func blindURL(_ server: RunningServer, _ name: SyncStoreName) -> URL {
        URL(string: "\(server.baseURL)\(BlindAPI.storesPath)/\(name)")!
    }

    static func transport(_ url: URL, token: String? = testToken) throws -> HTTPBlobTransport {
        try HTTPBlobTransport(storeURL: url, accessToken: token, retryPolicy: .init(maximumAttempts: 6, initialDelay: .milliseconds(50)),
                              notificationPollSeconds: 5)
    }

    @Test(arguments: ExchangeConformance.Check.allCases, StorageKind.available)
    func blindEncryptedExchangeConforms(_ check: ExchangeConformance.Check, storage: StorageKind) async throws {
        let server = try await SharedServers.server(for: storage)
        try await ExchangeConformance { _ in
            let url = Self.blindURL(server, uniqueStoreName("blind"))
            let keys = EncryptionKeys(storeKey: StoreEncryptionKey())
            return { store in EncryptedExchange(blobs: try Self.transport(url), store: store, keys: keys) }
        }.run(check)
    }

    /// The leak check over a blind store of a server of its own, with the corpus's versions
    /// and a sealed snapshot of it (from which a second device restores): every file of the
    /// SQLite storage, or a `pg_dump`, searched for every identifier, timestamp, metadata key and
    /// 8-byte window of a value.
    @Test(arguments: StorageKind.available)
    func theBlindStoreKeepsNothingInTheClear(storage: StorageKind) async throws {
        let directory = try TemporaryDirectory(prefix: "llvs-blind-leak")
        let database = try LeakDatabase(kind: storage, directory: directory)
        let server = try await RunningServer(storage: try await database.makeStorage())
        let sender = try Client("sender"), receiver = try Client("receiver")
        let versions = try LeakCheck.makeCorpus(in: sender.store)
        let url = Self.blindURL(server, uniqueStoreName("leak"))
        let device = try DeviceIdentity(name: "sender's laptop")
        let keyring = try Keyring.founding(storeKey: StoreEncryptionKey(), founder: device)
        let exchange = try EncryptedExchange(blobs: try Self.transport(url), store: sender.store, keyring: keyring, member: .device(device))
        try await exchange.publish(keyring)
        try await exchange.send()
        let manifest = try #require(try await exchange.sendSnapshot(chunkSize: 16_384))
        let restoring = try EncryptedExchange(blobs: try Self.transport(url), store: receiver.store, keyring: keyring, member: .device(device))
        #expect(try await restoring.restoreSnapshot()?.snapshotId == manifest.snapshotId)
        #expect(receiver.versionIds == Set(versions.map(\.id)))
        #expect(try await restoring.retrieve().isEmpty)
        await server.stop()
        let needles = try LeakCheck.needles(of: versions, in: sender.store)
        let hits = try await database.hits(of: needles)
        #expect(hits.isEmpty, "\(hits.count) leaks, first \(hits.prefix(5))")
        try database.drop()
    }

    /// Revocation: once a device is removed, the store takes writes only with the new epoch's
    /// token. The removed device's send (which then learns it was removed), a raw write and a
    /// token replacement under the old token are refused, and nothing of them is stored; a
    /// device that remains, behind by one revision, catches up and writes under the new epoch.
    @Test(arguments: StorageKind.available)
    func aRemovedDeviceCannotWriteUnderTheOldEpoch(storage: StorageKind) async throws {
        let server = try await SharedServers.server(for: storage)
        let url = Self.blindURL(server, uniqueStoreName("revoke"))
        let laptop = try Client("laptop"), phone = try Client("phone"), tablet = try Client("tablet")
        let laptopDevice = try DeviceIdentity(name: "laptop"), phoneDevice = try DeviceIdentity(name: "phone")
        let tabletDevice = try DeviceIdentity(name: "tablet")
        var keyring = try Keyring.founding(storeKey: StoreEncryptionKey(), founder: laptopDevice)
        keyring = try keyring.adding(phoneDevice.record, by: laptopDevice).adding(tabletDevice.record, by: laptopDevice)
        let laptopExchange = try EncryptedExchange(blobs: try Self.transport(url), store: laptop.store, keyring: keyring, member: .device(laptopDevice))
        try await laptopExchange.publish(keyring)
        try laptop.save(["note": "before"])
        try await laptopExchange.send()
        let phoneExchange = try await EncryptedExchange.joining(through: try Self.transport(url), store: phone.store, as: phoneDevice)
        let tabletExchange = try await EncryptedExchange.joining(through: try Self.transport(url), store: tablet.store, as: tabletDevice)
        #expect(try await phoneExchange.retrieve().count == 1)
        let oldToken = try #require(phoneExchange.currentKeys.writeToken(ofEpoch: phoneExchange.currentKeys.currentEpoch))

        try await laptopExchange.publish(try #require(laptopExchange.keyring).removing(deviceId: phoneDevice.record.id, by: laptopDevice))
        let before = try await Self.transport(url).listBlobs(after: nil).names

        try phone.save(["note": "from the removed phone"])
        await #expect(throws: EncryptionError.self) { try await phoneExchange.send() }
        let raw = try Self.transport(url)
        do {
            _ = try await raw.put([(name: String(repeating: "ab", count: 32), data: Data("forged".utf8))], writeToken: oldToken)
            Issue.record("a write under the old epoch's token was taken")
        } catch EncryptionError.writeTokenRejected {}
        do {
            try await raw.replaceWriteToken(current: oldToken, with: Data(repeating: 7, count: 32))
            Issue.record("the old epoch's token replaced the store's token")
        } catch EncryptionError.writeTokenRejected {}
        #expect(try await raw.listBlobs(after: nil).names == before, "a refused write left something")

        // The tablet, still on the old epoch, sends: refused, it takes the new revision and
        // seals again under the new epoch (the phone cannot open what it sent).
        try tablet.save(["note": "from the tablet"])
        try await tabletExchange.send()
        #expect(tabletExchange.currentKeys.currentEpoch == 1)
        #expect(try await tabletExchange.retrieve().count == 1)
        try laptop.save(["other": "from the laptop"])
        try await laptopExchange.send()
        #expect(try await laptopExchange.retrieve().count == 1)
        #expect(try await phoneExchange.retrieve().isEmpty)
        #expect(phoneExchange.pendingVersionCount == 2)
    }

    /// A device that started a new epoch and stopped before moving the store to its token
    /// leaves the store on the old token: the next device of the new epoch to write moves it
    /// (it holds the previous epoch's key), and writes.
    @Test(arguments: StorageKind.available)
    func aTokenLeftBehindIsMovedByTheNextWriter(storage: StorageKind) async throws {
        let server = try await SharedServers.server(for: storage)
        let url = Self.blindURL(server, uniqueStoreName("moved"))
        let laptop = try Client("laptop"), tablet = try Client("tablet")
        let laptopDevice = try DeviceIdentity(name: "laptop"), tabletDevice = try DeviceIdentity(name: "tablet")
        let phoneDevice = try DeviceIdentity(name: "phone")
        var keyring = try Keyring.founding(storeKey: StoreEncryptionKey(), founder: laptopDevice)
        keyring = try keyring.adding(phoneDevice.record, by: laptopDevice).adding(tabletDevice.record, by: laptopDevice)
        let stopping = StopsBeforeReplacingTokens(try Self.transport(url))
        let laptopExchange = try EncryptedExchange(blobs: stopping, store: laptop.store, keyring: keyring, member: .device(laptopDevice))
        try await laptopExchange.publish(keyring)
        try await laptopExchange.publish(try #require(laptopExchange.keyring).removing(deviceId: phoneDevice.record.id, by: laptopDevice))
        #expect(stopping.skippedReplacements == 1)

        let tabletExchange = try await EncryptedExchange.joining(through: try Self.transport(url), store: tablet.store, as: tabletDevice)
        #expect(tabletExchange.currentKeys.currentEpoch == 1)
        try tablet.save(["note": "under epoch 1"])
        try await tabletExchange.send()
        #expect(try await laptopExchange.retrieve().count == 1)
    }

    /// Hostile requests that are valid HTTP: each is refused with its status and code, and the
    /// store is left as it was.
    @Test(arguments: StorageKind.available)
    func hostileBlobRequestsAreRefused(storage: StorageKind) async throws {
        let server = try await SharedServers.server(for: storage)
        let base = Self.blindURL(server, uniqueStoreName("hostile")).absoluteString
        let raw = RawClient()
        let token = String(repeating: "5a", count: 32)
        func frames(_ name: String, _ data: Data) -> Data {
            var body = Data([UInt8(name.utf8.count)])
            body.append(contentsOf: name.utf8)
            body.append(contentsOf: [0, 0, 0, UInt8(data.count)])
            body.append(data)
            return body
        }
        let good = frames(String(repeating: "0", count: 64), Data("x".utf8))
        #expect(try await raw.request(.POST, "\(base)/blobs", token: testToken, body: good,
                                      headers: [(BlindAPI.writeTokenHeader, token)]).status == 200)
        let header = BlindAPI.writeTokenHeader
        let zeros = String(repeating: "00", count: 32), ones = String(repeating: "11", count: 32)
        let newHash = Data(#"{"tokenHash":"\#(zeros)"}"#.utf8)
        let longName = Data(#"{"names":["\#(String(repeating: "a", count: 101))"]}"#.utf8)
        let other = frames(String(repeating: "1", count: 64), Data("y".utf8))
        var refusals: [Refusal] = []
        refusals.append(Refusal("no write token", .POST, "blobs", other, [], 403, .writeTokenRejected))
        refusals.append(Refusal("another write token", .POST, "blobs", good, [(header, zeros)], 403, .writeTokenRejected))
        refusals.append(Refusal("a token of odd bytes", .POST, "blobs", good, [(header, String(repeating: "zz", count: 32))], 400, .malformedRequest))
        refusals.append(Refusal("a short token", .POST, "blobs", good, [(header, "00ff")], 400, .malformedRequest))
        refusals.append(Refusal("a cut frame", .POST, "blobs", Data(good.dropLast()), [(header, token)], 400, .malformedRequest))
        refusals.append(Refusal("an upper-case name", .POST, "blobs", frames("ABC", Data()), [(header, token)], 400, .malformedRequest))
        refusals.append(Refusal("a name with NUL", .POST, "blobs", frames("a\u{0}b", Data()), [(header, token)], 400, .malformedRequest))
        refusals.append(Refusal("an empty name", .POST, "blobs", Data([0, 0, 0, 0, 0]), [(header, token)], 400, .malformedRequest))
        refusals.append(Refusal("a name of odd bytes in JSON", .POST, "blobs/fetch", Data(#"{"names":["\u00e9\u0000\ud83d\ude00"]}"#.utf8), [], 400, .malformedRequest))
        refusals.append(Refusal("a name of 101 bytes", .POST, "blobs/fetch", longName, [], 400, .malformedRequest))
        refusals.append(Refusal("names that are not strings", .POST, "blobs/fetch", Data(#"{"names":[1,2]}"#.utf8), [], 400, .malformedRequest))
        refusals.append(Refusal("a token hash of odd bytes", .PUT, "write-token", Data(#"{"tokenHash":"\u0000"}"#.utf8), [(header, token)], 400, .malformedRequest))
        refusals.append(Refusal("a replacement without the token", .PUT, "write-token", newHash, [], 403, .writeTokenRejected))
        refusals.append(Refusal("a replacement under another token", .PUT, "write-token", newHash, [(header, ones)], 403, .writeTokenRejected))
        for refusal in refusals {
            let response = try await raw.request(refusal.method, "\(base)/\(refusal.path)", token: testToken, body: refusal.body, headers: refusal.headers)
            #expect(response.status == refusal.status, "\(refusal.what): \(String(decoding: response.body, as: UTF8.self))")
            #expect((try? JSONDecoder().decode(SyncErrorBody.self, from: response.body))?.error == refusal.code.rawValue, "\(refusal.what)")
        }
        #expect(try await raw.request(.GET, "\(base)/blobs").status == 401)
        let listing = try JSONDecoder().decode(BlobListing.self, from: try await raw.request(.GET, "\(base)/blobs", token: testToken).body)
        #expect(listing.blobs == [BlobListing.Entry(name: String(repeating: "0", count: 64), size: 1)])
        // A request to join needs no write token, and a second blob under a taken name is not stored.
        let request = try await raw.request(.POST, "\(base)/blobs", token: testToken,
                                            body: frames("device-" + String(repeating: "0", count: 32), Data("r".utf8)) + frames(String(repeating: "0", count: 64), Data("z".utf8)))
        #expect(request.status == 403, "a write holding a guarded name needs the token, whatever else it holds")
        let joining = try await raw.request(.POST, "\(base)/blobs", token: testToken, body: frames("device-" + String(repeating: "0", count: 32), Data("r".utf8)))
        #expect(joining.status == 200)
        let differing = try await raw.request(.POST, "\(base)/blobs", token: testToken, body: frames(String(repeating: "0", count: 64), Data("z".utf8)),
                                              headers: [(BlindAPI.writeTokenHeader, token)])
        #expect(try JSONDecoder().decode(BlobPutResponse.self, from: differing.body).differing == [String(repeating: "0", count: 64)])
    }

    /// Bytes under a version's name that are not its sealed version (a server or anyone with
    /// the write token can put them) are refused by the receiver, and nothing is added.
    @Test func aForgedBlobIsRefusedAndNothingIsAdded() async throws {
        let server = try await SharedServers.server(for: .sqlite)
        let url = Self.blindURL(server, uniqueStoreName("forged"))
        let sender = try Client("sender"), receiver = try Client("receiver")
        let keys = EncryptionKeys(storeKey: StoreEncryptionKey())
        try sender.save(["a": "one"])
        try sender.save(["b": "two"])
        try await EncryptedExchange(blobs: try Self.transport(url), store: sender.store, keys: keys).send()
        let transport = try Self.transport(url)
        let names = try await transport.listBlobs(after: nil).names
        let blobs = try await transport.blobs(named: names)
        // The second version's bytes under a third name: a blob moved between names.
        let moved = String(repeating: "c", count: 64)
        _ = try await transport.put([(moved, try #require(blobs[names[1]]))], writeToken: keys.writeToken(ofEpoch: 0))
        await #expect(throws: EncryptionError.self) {
            try await EncryptedExchange(blobs: try Self.transport(url), store: receiver.store, keys: keys).retrieve()
        }
        #expect(receiver.versionIds.isEmpty)
    }

    /// A server with `servesTransparentStores` false answers 404 on `/v1/stores/…`; a storage
    /// without blind stores (a live store, peer to peer) answers 501 on `/v1/blind/…`.
    @Test func aBlindOnlyServerRefusesTransparentStores() async throws {
        let directory = try TemporaryDirectory(prefix: "llvs-blind-only")
        let server = try await RunningServer(storage: try SQLiteSyncStorage(fileURL: directory.url.appendingPathComponent("s.sqlite"))) {
            $0.servesTransparentStores = false
        }
        defer { Task { await server.stop() } }
        let raw = RawClient()
        #expect(try await raw.request(.GET, "\(server.storeURL(uniqueStoreName()))/versions", token: testToken).status == 404)
        #expect(try await raw.request(.GET, "\(Self.blindURL(server, uniqueStoreName()))/blobs", token: testToken).status == 200)

        let peer = try Client("peer")
        let peerServer = try await RunningServer(storage: StoreSyncStorage(store: peer.store, storeName: uniqueStoreName()))
        defer { Task { await peerServer.stop() } }
        let answer = try await raw.request(.GET, "\(Self.blindURL(peerServer, uniqueStoreName()))/blobs", token: testToken)
        #expect(answer.status == 501)
    }

    /// The convergence harness's random histories (merges of merges, criss-crosses, hand
    /// merges, concurrent and out-of-order offers, conflicting copies) with every exchange
    /// sealed into a blind store of the shared server: one store per channel of a history.
    /// 10 histories on each storage; `LLVS_PROPERTY_CASES` lowers the count.
    @Test(arguments: StorageKind.available)
    func randomHistoriesConvergeThroughBlindStores(storage: StorageKind) async throws {
        let server = try await SharedServers.server(for: storage)
        let baseURL = server.baseURL
        let count = ProcessInfo.processInfo.environment["LLVS_PROPERTY_CASES"].flatMap(Int.init).map { min($0, 10) } ?? 10
        await propertyCheck(count: count, input: FuzzGen.histories()) { history in
            let keys = EncryptionKeys(storeKey: StoreEncryptionKey())
            // Each memory channel of the history (a space) becomes a blind store.
            let stores = Locked<[ObjectIdentifier: SyncStoreName]>([:])
            let makeReplica = ExchangeReplica.factory(backend: .memory) { inner in
                guard let memory = inner as? MemoryExchange else { return inner }
                let name = stores.withLock { names in
                    let name = names[ObjectIdentifier(memory.space)] ?? uniqueStoreName("fuzz")
                    names[ObjectIdentifier(memory.space)] = name
                    return name
                }
                do {
                    let url = try #require(URL(string: "\(baseURL)\(BlindAPI.storesPath)/\(name)"))
                    return EncryptedExchange(blobs: try Self.transport(url), store: memory.store, keys: keys)
                } catch {
                    Issue.record("no blind store for a channel: \(error)")
                    return inner
                }
            }
            let violations = try await ConvergenceSimulation.check(history, properties: Set(ConvergenceProperty.allCases), makeReplica: makeReplica)
            for violation in violations {
                Issue.record("\(violation)\nHistory as JSON (a regression test can load it):\n\(history.jsonString)")
            }
        }
    }

    /// Frames read back as written, and a frame cut anywhere is refused.
    @Test func blobFramesRoundTripAndCutFramesAreRefused() async throws {
        let name = Gen.int(in: 0...35).array(of: 1...100).map { digits in
            String(digits.map { Array("abcdefghijklmnopqrstuvwxyz0123456789")[$0] })
        }
        let blob = zip(name, Gen.int(in: 0...255).array(of: 0...300).map { Data($0.map(UInt8.init)) })
        await propertyCheck(count: 100, input: blob.array(of: 1...6)) { blobs in
            let encoded = try BlobFrames.encode(blobs.map { (name: $0.0, data: $0.1) })
            let decoded = try BlobFrames.decode(encoded)
            #expect(decoded.map(\.name) == blobs.map(\.0))
            #expect(decoded.map(\.data) == blobs.map(\.1))
            let cut = encoded.prefix(encoded.count - 1)
            #expect(throws: BlobFramesError.self) { try BlobFrames.decode(Data(cut)) }
        }
    }
}

/// A request the server must refuse, with the status and code it must answer.
struct Refusal {
    let what: String
    let method: HTTPMethod
    let path: String
    let body: Data
    let headers: [(String, String)]
    let status: Int
    let code: SyncErrorCode

    init(_ what: String, _ method: HTTPMethod, _ path: String, _ body: Data, _ headers: [(String, String)], _ status: Int, _ code: SyncErrorCode) {
        (self.what, self.method, self.path, self.body, self.headers, self.status, self.code) = (what, method, path, body, headers, status, code)
    }
}

/// A transport that does not move the store to a new write token, as a device that stops
/// right after publishing a revision would.
final class StopsBeforeReplacingTokens: SealedBlobTransport, @unchecked Sendable {
    let inner: HTTPBlobTransport
    private(set) var skippedReplacements = 0

    init(_ inner: HTTPBlobTransport) { self.inner = inner }

    var maximumBatchByteCount: Int { inner.maximumBatchByteCount }
    var newBlobsAvailable: AsyncStream<Void> { inner.newBlobsAvailable }
    func listBlobs(after cursor: ExchangeCursor?) async throws -> SealedBlobPage { try await inner.listBlobs(after: cursor) }
    func blobSizes(named names: [String]) async throws -> [String: Int64] { try await inner.blobSizes(named: names) }
    func blobs(named names: [String]) async throws -> [String: Data] { try await inner.blobs(named: names) }
    func put(_ blobs: [(name: String, data: Data)], writeToken: Data?) async throws -> [String] { try await inner.put(blobs, writeToken: writeToken) }
    func replaceWriteToken(current: Data, with new: Data) async throws { skippedReplacements += 1 }
}
