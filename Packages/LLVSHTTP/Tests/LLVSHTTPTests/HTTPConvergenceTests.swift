import Foundation
import LLVSCore
import LLVSEncryption
import LLVSExchange
import LLVSHTTPExchange
import LLVSMerge
import LLVSStore
import LLVSSyncProtocol
import LLVSTesting
import Testing

/// Clients that edit concurrently and sync through a real server on loopback end with the
/// same versions, the same heads and the same values.
@Suite("Clients converging through the sync server")
struct HTTPConvergenceTests {
    /// `clients` replicas edit, then sync in rounds (pull, merge heads, push) until nothing
    /// moves; every replica then holds the same versions, which the server lists once each.
    ///
    /// `sealed`: every replica syncs through an `EncryptedExchange` over a blind store.
    func converge(clients count: Int, storage kind: StorageKind, sealed: Bool = false) async throws {
        let directory = try TemporaryDirectory(prefix: "llvs-http-converge")
        let storage = try await makeStorage(kind, in: directory)
        let server = try await RunningServer(storage: storage)
        defer { Task { await server.stop() } }
        let storeName = uniqueStoreName("converge")
        let clients = try (0..<count).map { try Client("c\($0)") }
        let keys = EncryptionKeys(storeKey: StoreEncryptionKey())
        let exchanges: [any Exchange] = try clients.map { client in
            guard sealed else { return try client.exchange(server.storeURL(storeName), batchBytes: 2_000) }
            let blobs = try HTTPBlobTransport(storeURL: BlindStoreTests.blindURL(server, storeName), accessToken: testToken,
                                              retryPolicy: .init(maximumAttempts: 6, initialDelay: .milliseconds(50)), maximumBatchByteCount: 2_000)
            return EncryptedExchange(blobs: blobs, store: client.store, keys: keys)
        }

        // Round 1: everyone edits on their own, some of the same values, and syncs concurrently.
        for (index, client) in clients.enumerated() {
            try client.save(["shared": "from \(client.name)", "own-\(index)": "1"])
            try client.saveMany(5)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for exchange in exchanges {
                group.addTask { try await Self.sync(exchange) }
            }
            try await group.waitForAll()
        }
        // Later rounds, one after another, until every replica has everything.
        for _ in 0..<3 {
            for exchange in exchanges { try await Self.sync(exchange) }
        }
        for exchange in exchanges { try await exchange.retrieve() }

        let listed = try await exchanges[0].retrieveAllVersionIdentifiers()
        #expect(listed.count == Set(listed).count, "the server lists a version twice")
        for client in clients {
            #expect(client.versionIds == Set(listed), "\(client.name) differs from the server")
            #expect(client.heads == clients[0].heads)
        }
        let head = try #require(clients[0].store.mostRecentHead?.id)
        let texts = try clients[0].texts(at: head)
        for client in clients.dropFirst() {
            #expect(try client.texts(at: head) == texts)
        }
        #expect(texts["shared"]?.hasPrefix("from c") == true)
        for index in 0..<count { #expect(texts["own-\(index)"] == "1") }
    }

    /// Pull, merge every head into one (the most recent change wins conflicts), push.
    static func sync(_ exchange: any Exchange) async throws {
        try await exchange.retrieve()
        let store = exchange.store
        while store.hasMultipleHeads {
            let heads = store.queryHistory { $0.headIdentifiers.sorted() }
            _ = try store.merge(version: heads[0], with: heads[1], resolvingWith: MostRecentChangeFavoringArbiter())
        }
        try await exchange.send()
    }

    @Test("Two clients converge", arguments: StorageKind.available)
    func twoClients(kind: StorageKind) async throws {
        try await converge(clients: 2, storage: kind)
    }

    @Test("Five clients converge", arguments: StorageKind.available)
    func fiveClients(kind: StorageKind) async throws {
        try await converge(clients: 5, storage: kind)
    }

    @Test("Five clients converge through a blind store, sealed", arguments: StorageKind.available)
    func fiveClientsSealedThroughABlindStore(kind: StorageKind) async throws {
        try await converge(clients: 5, storage: kind, sealed: true)
    }

    @Test("A second client bootstraps from a snapshot, then syncs incrementally", arguments: StorageKind.available)
    func snapshotBootstrap(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory(prefix: "llvs-http-snapshot")
        let server = try await RunningServer(storage: try await makeStorage(kind, in: directory))
        defer { Task { await server.stop() } }
        let name = uniqueStoreName("snapshot")
        let first = try Client("first")
        try first.saveMany(30, valueBytes: 500)
        let upload = try first.exchange(server.storeURL(name))
        try await upload.send()
        let manifest = try #require(try await upload.sendSnapshot(chunkSize: 4_096))
        #expect(manifest.chunkCount > 1)

        let second = try Client("second")
        let download = try second.exchange(server.storeURL(name))
        let restored = try await download.restoreSnapshot()
        #expect(restored?.snapshotId == manifest.snapshotId)
        #expect(second.versionIds == first.versionIds)

        try first.save(["after": "snapshot"])
        try await upload.send()
        let added = try await download.retrieve()
        #expect(added.count == 1)
        #expect(second.versionIds == first.versionIds)
    }

    @Test("newVersionsAvailable yields when another client pushes", arguments: StorageKind.available)
    func notifications(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory(prefix: "llvs-http-notify")
        let server = try await RunningServer(storage: try await makeStorage(kind, in: directory))
        defer { Task { await server.stop() } }
        let name = uniqueStoreName("notify")
        let listener = try Client("listener")
        let pusher = try Client("pusher")
        // Long polls of a minute: a wake long before that came from the push, not from a
        // poll's timeout, however slow a loaded machine makes the push itself.
        let listening = try listener.exchange(server.storeURL(name), pollSeconds: 60)
        var events = listening.newVersionsAvailable.makeAsyncIterator()
        // Give the first long poll time to reach the server, then push.
        try await Task.sleep(for: .milliseconds(300))
        try pusher.save(["note": "hello"])
        try await pusher.exchange(server.storeURL(name)).send()
        let pushed = ContinuousClock.now
        let woke: Void? = await events.next()
        #expect(woke != nil)
        #expect(ContinuousClock.now - pushed < .seconds(30), "the long poll should answer as the push lands, not at its timeout")
        let added = try await listening.retrieve()
        #expect(added.count == 1)
    }
}
