import AsyncHTTPClient
import Foundation
import LLVSCore
import LLVSExchange
import LLVSHTTPExchange
import LLVSStore
import LLVSTesting
import LLVSWebDAV
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Faults between `WebDAVExchange` and a real server, each ending in a state the next
/// transfer completes, with nothing lost: a full disk (`507`), a lock (`423`), a slow
/// server, listings in another order (through ``WebDAVFaultProxy`` in front of Apache),
/// and an rclone server killed during a send, then restarted.
@Suite("WebDAV faults", .enabled(if: WebDAVServer.available.contains { $0.name == "apache-http" }))
struct WebDAVFaultTests {
    static var apache: WebDAVServer { WebDAVServer.available.first { $0.name == "apache-http" }! }

    /// A sender with `count` versions, a receiver, a folder on Apache and the proxy before it.
    struct Setup {
        let sender: Client
        let receiver: Client
        let folder: URL
        let proxy: WebDAVFaultProxy

        init(_ name: String, versions count: Int = 20) async throws {
            sender = try Client("\(name)-sender")
            receiver = try Client("\(name)-receiver")
            try sender.saveMany(count, valueBytes: 200)
            folder = WebDAVFaultTests.apache.folder(name)
            proxy = try await WebDAVFaultProxy(upstream: folder, client: try WebDAVServer.client())
        }

        /// An exchange through the proxy, retrying `attempts` times in all.
        func proxied(_ store: Store, attempts: Int = 4) throws -> WebDAVExchange {
            try WebDAVFaultTests.apache.exchange(proxy.url(of: folder), store: store,
                                                 retry: HTTPRetryPolicy(maximumAttempts: attempts, initialDelay: .milliseconds(20)))
        }

        /// The receiver retrieves straight from Apache and holds every version of the sender.
        func receiverHoldsEverything() async throws {
            try await WebDAVFaultTests.apache.exchange(folder, store: receiver.store).retrieve()
            #expect(receiver.versionIds == sender.versionIds)
        }
    }

    @Test func aFullServer507FailsTheSendWithATypedErrorAndTheNextSendCompletesIt() async throws {
        let setup = try await Setup("full")
        setup.proxy.fail("PUT", with: 507, times: 1_000)
        let exchange = try setup.proxied(setup.sender.store)
        await #expect {
            try await exchange.send()
        } throws: { error in
            guard case let ExchangeError.transport(_, _, reason) = error else { return false }
            return reason.contains("507 Insufficient Storage")
        }
        setup.proxy.faults.withLock { $0.statuses = [] }
        try await exchange.send()
        try await setup.receiverHoldsEverything()
        await setup.proxy.stop()
    }

    @Test func aLockedFile423IsWaitedOutThroughRetryAfter() async throws {
        let setup = try await Setup("locked")
        setup.proxy.fail("MOVE", with: 423, times: 2, retryAfter: 1)
        let started = ContinuousClock.now
        try await setup.proxied(setup.sender.store).send()
        #expect(ContinuousClock.now - started >= .seconds(2), "Retry-After: 1 was waited twice")
        #expect(setup.proxy.faults.withLock { $0.counts["MOVE", default: 0] } >= 4)
        try await setup.receiverHoldsEverything()
        await setup.proxy.stop()
    }

    @Test func aLockThatOutlastsTheRetriesFailsAndTheNextSendCompletes() async throws {
        let setup = try await Setup("long-lock")
        setup.proxy.fail("MOVE", with: 423, times: 3)
        let exchange = try setup.proxied(setup.sender.store, attempts: 3)
        await #expect(throws: ExchangeError.self) { try await exchange.send() }
        try await exchange.send()
        try await setup.receiverHoldsEverything()
        await setup.proxy.stop()
    }

    /// A server that loses a temporary file between its upload and the `MOVE` that retries
    /// it, once its destination folder was made (rclone under a full test run: the `MOVE`
    /// answered `403`, its log "Dir.Rename error: file does not exist"): the file is uploaded
    /// again before the next `MOVE`, and the send completes.
    @Test func aTemporaryFileTheServerLosesIsUploadedAgain() async throws {
        let setup = try await Setup("lost-temporary", versions: 5)
        setup.proxy.faults.withLock { $0.losesRetriedTemporaryFiles = 2 }
        try await setup.proxied(setup.sender.store).send()
        #expect(setup.proxy.faults.withLock { $0.lostTemporaryFiles } >= 1, "a temporary file was lost")
        try await setup.receiverHoldsEverything()
        await setup.proxy.stop()
    }

    @Test func aSlowServerStillCompletesBothWays() async throws {
        let setup = try await Setup("slow")
        setup.proxy.faults.withLock { $0.delay = .milliseconds(150) }
        try await setup.proxied(setup.sender.store).send()
        try await setup.proxied(setup.receiver.store).retrieve()
        #expect(setup.receiver.versionIds == setup.sender.versionIds)
        await setup.proxy.stop()
    }

    /// Listings in reverse order (the log's segments, the batches' shards) change nothing:
    /// several senders, incremental retrieves through the reordering proxy, all arrive once.
    @Test func listingsInAnotherOrderChangeNothing() async throws {
        let setup = try await Setup("reordered", versions: 5)
        setup.proxy.faults.withLock { $0.reversesListings = true }
        let receiving = try setup.proxied(setup.receiver.store)
        for round in 0..<3 {
            let writer = try Client("reordered-\(round)")
            try writer.saveMany(4)
            try await WebDAVFaultTests.apache.exchange(setup.folder, store: writer.store).send()
            try await setup.proxied(setup.sender.store).send()
            _ = try await receiving.retrieve()
            #expect(setup.receiver.versionIds.isSuperset(of: writer.versionIds))
        }
        #expect(setup.receiver.versionIds.isSuperset(of: setup.sender.versionIds))
        await setup.proxy.stop()
    }

    /// rclone killed (SIGKILL) while a send of several megabytes is under way; after a
    /// restart on the same folder the next send completes, and a receiver gets every version.
    @Test func aServerKilledDuringASendLeavesAResumableState() async throws {
        let directory = try TemporaryDirectory(prefix: "llvs-rclone-kill")
        var server = try await RcloneServer(serving: directory.url)
        let sender = try Client("killed-sender"), receiver = try Client("killed-receiver")
        for index in 0..<12 { try sender.save(["big-\(index)": String(repeating: "\(index % 10)", count: 400_000)]) }
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/folder"))
        let exchange = try WebDAVExchange(url: url, store: sender.store, retryPolicy: .none, maximumBatchByteCount: 1_000_000)
        let sending = Task { try await exchange.send() }
        try await Task.sleep(for: .milliseconds(150))
        await server.kill()
        _ = await sending.result
        server = try await RcloneServer(serving: directory.url, port: server.port)
        try await WebDAVExchange(url: url, store: sender.store, maximumBatchByteCount: 1_000_000).send()
        try await WebDAVExchange(url: url, store: receiver.store).retrieve()
        #expect(receiver.versionIds == sender.versionIds)
        let head = try #require(sender.heads.first)
        #expect(try receiver.texts(at: head) == sender.texts(at: head))
        await server.kill()
        // The folder on rclone's disk reads as a shared directory: the same formats.
        let local = try Client("killed-local")
        try await FileSystemExchange(rootDirectoryURL: directory.url.appendingPathComponent("folder"), store: local.store).retrieve()
        #expect(local.versionIds == sender.versionIds)
    }
}

/// An `rclone serve webdav` process of the test's own, without auth, on a loopback port.
struct RcloneServer {
    let process: Process
    let port: Int

    /// Starts rclone serving `directory` on `port` (a free one when nil) and waits until it answers.
    init(serving directory: URL, port: Int? = nil) async throws {
        let chosen = port ?? Int.random(in: 40_000..<58_000)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/rclone")
        process.arguments = ["serve", "webdav", directory.path, "--addr", "127.0.0.1:\(chosen)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        self.port = chosen
        for _ in 0..<100 {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(chosen)/")
            request.method = .init(rawValue: "PROPFIND")
            request.headers.add(name: "Depth", value: "0")
            if let answer = try? await HTTPClient.shared.execute(request, timeout: .seconds(2)), answer.status.code == 207 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        process.terminate()
        throw TestFailure("rclone did not come up on port \(chosen)")
    }

    /// SIGKILL, then waits for the process to end (off the cooperative pool).
    func kill() async {
        #if canImport(Glibc)
        _ = Glibc.kill(process.processIdentifier, SIGKILL)
        #endif
        let process = self.process
        _ = try? await offCooperativePool { process.waitUntilExit() }
    }
}
