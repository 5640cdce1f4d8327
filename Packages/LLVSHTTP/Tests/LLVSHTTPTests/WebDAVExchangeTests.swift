import Foundation
import LLVSCore
import LLVSEncryption
import LLVSExchange
import LLVSExchangeTesting
import LLVSHTTPExchange
import LLVSStore
import LLVSTesting
import LLVSWebDAV
import Testing

/// The WebDAV servers are required in CI: without them every WebDAV test would be skipped
/// silently.
@Suite("WebDAV availability")
struct WebDAVAvailabilityTests {
    @Test("CI runs the WebDAV tests against Apache and rclone, in clear and over TLS")
    func configuredInCI() {
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            #expect(WebDAVServer.available.map(\.name).sorted() == ["apache-http", "apache-https", "rclone-http", "rclone-https"],
                    "CI must start the WebDAV servers (Scripts/webdav start) and export LLVS_TEST_WEBDAV_*")
        }
    }
}

/// `WebDAVExchange` against real servers on loopback (Apache httpd with mod_dav, rclone's
/// `serve webdav`), each with Basic auth, in clear and over TLS with a test CA: the
/// exchange conformance suite, both directory formats, encrypted, and two writers.
@Suite("WebDAV exchange", .enabled(if: !WebDAVServer.available.isEmpty))
struct WebDAVExchangeTests {
    @Test(arguments: ExchangeConformance.Check.allCases, WebDAVServer.available)
    func conforms(_ check: ExchangeConformance.Check, server: WebDAVServer) async throws {
        try await ExchangeConformance { name in
            let url = server.folder(name)
            return { store in try server.exchange(url, store: store) }
        }.run(check)
    }

    @Test(arguments: ExchangeConformance.Check.allCases, WebDAVServer.apache)
    func conformsInFormat1(_ check: ExchangeConformance.Check, server: WebDAVServer) async throws {
        try await ExchangeConformance { name in
            let url = server.folder(name)
            return { store in try server.exchange(url, store: store, format: .versionFiles) }
        }.run(check)
    }

    @Test(arguments: ExchangeConformance.Check.allCases, WebDAVServer.overTLS)
    func conformsEncrypted(_ check: ExchangeConformance.Check, server: WebDAVServer) async throws {
        try await ExchangeConformance { name in
            let url = server.folder(name)
            let keys = EncryptionKeys(storeKey: StoreEncryptionKey())
            return { store in EncryptedExchange(sealing: try server.exchange(url, store: store), keys: keys) }
        }.run(check)
    }

    /// Two stores write to one folder at once, round after round, each merging what it
    /// retrieves, and end with the same heads and values.
    @Test(arguments: WebDAVServer.overTLS)
    func twoWritersConverge(server: WebDAVServer) async throws {
        let url = server.folder("two-writers")
        let writers = try (0..<2).map { try Client("writer\($0)") }
        for round in 0..<6 {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, writer) in writers.enumerated() {
                    group.addTask {
                        try writer.saveMany(3 + index)
                        try writer.save(["shared": "\(writer.name) round \(round)"])
                        let exchange = try server.exchange(url, store: writer.store)
                        try await exchange.send()
                        try await exchange.retrieve()
                        try writer.mergeHeads()
                    }
                }
                try await group.waitForAll()
            }
        }
        for writer in writers {
            let exchange = try server.exchange(url, store: writer.store)
            try await exchange.retrieve()
            try writer.mergeHeads()
            try await exchange.send()
        }
        for writer in writers { try await server.exchange(url, store: writer.store).retrieve() }
        for writer in writers { try writer.mergeHeads() }
        let heads = writers.map(\.heads)
        #expect(heads[0] == heads[1], "heads differ: \(heads)")
        #expect(writers[0].versionIds == writers[1].versionIds)
        let head = try #require(heads[0].first)
        #expect(try writers[0].texts(at: head) == writers[1].texts(at: head))
    }

    /// Every batch through a WebDAV folder costs a dozen requests and more: the exchange says
    /// it prefers few batches, so a send joins the small parts an encrypted exchange over it
    /// seals (as over memory, each sealed while the next is read) into batches as large as
    /// the folder takes; a retrieve's are as large as the transport takes either way.
    @Test func anEncryptedExchangeSendsFewBatchesThroughAWebDAVFolder() throws {
        let store = try Client("batches").store
        let keys = EncryptionKeys(storeKey: StoreEncryptionKey())
        let webDAV = try WebDAVExchange(url: try #require(URL(string: "https://example.com/dav/Notes")), store: store)
        #expect(webDAV.prefersFewBatches && webDAV.folder.isRemote)
        let sealed = EncryptedExchange(sealing: webDAV, keys: keys)
        #expect(sealed.prefersFewBatches && sealed.maximumBatchByteCount == webDAV.maximumBatchByteCount)
        #expect(sealed.sendBatchByteCount == EncryptedExchange.sealingBatchByteCount)
        #expect(sealed.firstSendBatchByteCount == EncryptedExchange.firstSealingBatchByteCount)
        #expect(sealed.firstRetrieveBatchByteCount == webDAV.maximumBatchByteCount)
        let memory = MemoryExchange(space: MemoryExchangeSpace(), store: store)
        #expect(!memory.prefersFewBatches)
        let local = EncryptedExchange(sealing: memory, keys: keys)
        #expect(local.sendBatchByteCount == EncryptedExchange.sealingBatchByteCount)
        #expect(local.firstSendBatchByteCount == EncryptedExchange.firstSealingBatchByteCount)
        // A retrieve's batches come with their changes made: as large as the transport takes.
        #expect(local.firstRetrieveBatchByteCount == memory.maximumBatchByteCount)
    }

    /// A folder URL with a query or trailing slashes is cleaned; other schemes are refused.
    @Test func urlsAreCheckedAndCleaned() throws {
        let store = try Client("url").store
        let exchange = try WebDAVExchange(url: try #require(URL(string: "https://example.com/dav/Notes//?x=1")), store: store)
        #expect(exchange.folder.url.absoluteString == "https://example.com/dav/Notes")
        #expect(exchange.folder.location(of: "log/a b.log") == "https://example.com/dav/Notes/log/a%20b.log")
        #expect(throws: WebDAVError.self) { try WebDAVExchange(url: try #require(URL(string: "ftp://example.com/x")), store: store) }
        #expect(throws: WebDAVError.self) { try WebDAVExchange(url: try #require(URL(string: "file:///tmp/x")), store: store) }
    }

    /// Wrong credentials are a typed error naming the folder and saying what is wrong.
    @Test(arguments: WebDAVServer.overTLS)
    func wrongCredentialsAreRefused(server: WebDAVServer) async throws {
        let client = try Client("wrong")
        try client.save(["a": "1"])
        let exchange = try WebDAVExchange(url: server.folder("wrong"), store: client.store,
                                          authorization: .basic(user: WebDAVServer.user, password: "not the password"),
                                          httpClient: try WebDAVServer.client(), retryPolicy: .none)
        await #expect {
            try await exchange.send()
        } throws: { error in
            guard case let ExchangeError.transport(_, location, reason) = error else { return false }
            return reason.contains("401") && location.hasPrefix(server.url.absoluteString)
        }
    }
}

extension Client {
    /// Merges the heads pairwise with the most recent arbiter until one is left.
    func mergeHeads() throws {
        while heads.count > 1 {
            let sorted = heads.sorted { $0.rawValue < $1.rawValue }
            _ = try store.merge(version: sorted[0], with: sorted[1], resolvingWith: MostRecentChangeFavoringArbiter())
        }
    }
}
