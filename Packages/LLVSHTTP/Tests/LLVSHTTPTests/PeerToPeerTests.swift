import Foundation
import LLVSCore
import LLVSExchange
import LLVSHTTPExchange
import LLVSStore
import LLVSSyncProtocol
import LLVSSyncStorage
import LLVSTesting
import Testing

/// A store served directly (`llvs serve`): replicas sync with it without a relay.
@Suite("Peer to peer")
struct PeerToPeerTests {
    @Test("Replicas pull from and push to a peer's store; the peer's own edits are served too")
    func peerSync() async throws {
        let peer = try Client("peer")
        try peer.saveMany(12)
        let name = SyncStoreName(rawValue: "peer")!
        let server = try await RunningServer(storage: StoreSyncStorage(store: peer.store, storeName: name))
        defer { Task { await server.stop() } }

        let replica = try Client("replica")
        let exchange = try replica.exchange(server.storeURL(name))
        #expect(try await exchange.retrieve().count == 12)
        #expect(replica.versionIds == peer.versionIds)

        try replica.save(["from-replica": "hello"])
        #expect(try await exchange.send().count == 1)
        #expect(peer.versionIds == replica.versionIds, "the push lands in the peer's own store")

        try peer.save(["from-peer": "hi"])
        #expect(try await exchange.retrieve().count == 1, "the cursor lists only what is new")
        #expect(replica.versionIds == peer.versionIds)
        let head = try #require(peer.store.mostRecentHead?.id)
        #expect(try replica.texts(at: head)["from-replica"] == "hello")

        // Another store name, and snapshots, are refused.
        let other = try replica.exchange(server.storeURL(SyncStoreName(rawValue: "other")!))
        await #expect(throws: HTTPExchangeError.self) { try await other.retrieve() }
        await #expect(throws: HTTPExchangeError.self) { try await exchange.sendSnapshot() }
        #expect(try await exchange.retrieveSnapshotManifest() == nil)
    }

    @Test("A push whose predecessor the peer lacks adds nothing")
    func peerRefusesOrphans() async throws {
        let peer = try Client("peer")
        let name = SyncStoreName(rawValue: "peer")!
        let storage = StoreSyncStorage(store: peer.store, storeName: name)
        await #expect(throws: SyncStorageError.self) {
            try await storage.push([storedVersion("a"), storedVersion("b", ["missing"])], to: name)
        }
        #expect(peer.versionIds.isEmpty)
    }
}
