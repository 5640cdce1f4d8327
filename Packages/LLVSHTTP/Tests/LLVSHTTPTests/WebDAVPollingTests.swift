import Foundation
import LLVSExchange
import LLVSWebDAV
import Testing

/// Watching a WebDAV folder for new versions: an idle poll is one conditional `GET` of the
/// log's change token, polls back off while the folder is idle, and a send (or a writer
/// that did not update the token) is still noticed.
@Suite("WebDAV polling", .enabled(if: !WebDAVServer.available.isEmpty))
struct WebDAVPollingTests {
    /// Waits for the next signal of `signals`, failing the test after `timeout`.
    static func nextSignal(_ signals: AsyncStream<Void>, within timeout: Duration = .seconds(15)) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in signals { return true }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// The token comes from the server's ETag (so an unchanged one is answered `304` with no
    /// body), stays while nothing is sent, and changes with each send.
    @Test(arguments: WebDAVServer.available)
    func theChangeTokenIsAnETagThatChangesWithEachSend(server: WebDAVServer) async throws {
        let writer = try Client("token-writer")
        let folder = server.folder("token")
        let exchange = try server.exchange(folder, store: writer.store)
        let log = exchange.folder.log(at: "log")
        #expect(try await log.changeToken(ifDifferentFrom: nil) == "absent")
        try writer.saveMany(2)
        try await exchange.send()
        let first = try #require(try await log.changeToken(ifDifferentFrom: nil))
        #expect(first.hasPrefix("etag "), "\(server.name) sends no ETag for the change token: \(first)")
        let before = exchange.folder.requestCount
        #expect(try await log.changeToken(ifDifferentFrom: first) == first)
        // One request (a retry after the server dropped a kept-alive connection adds one).
        #expect(exchange.folder.requestCount - before <= 2)
        try writer.saveMany(1)
        try await exchange.send()
        let second = try await log.changeToken(ifDifferentFrom: first)
        #expect(second != first && second?.hasPrefix("etag ") == true)
    }

    /// While the folder is idle the watcher's polls back off (50 ms doubling to 400 ms: about
    /// five polls in two seconds, against forty at a fixed 50 ms), each one request; then a
    /// send from another store is signalled.
    @Test(arguments: WebDAVServer.overTLS)
    func idlePollsBackOffAndCostOneRequest(server: WebDAVServer) async throws {
        let writer = try Client("idle-writer"), watcher = try Client("idle-watcher")
        let folder = server.folder("idle")
        try writer.saveMany(3)
        try await server.exchange(folder, store: writer.store).send()
        let watching = try server.exchange(folder, store: watcher.store, polling: .milliseconds(50), maximumPolling: .milliseconds(400))
        try await watching.retrieve()
        // The watcher holds everything: the stream's first poll reads the log and signals nothing.
        let signals = watching.newVersionsAvailable
        try await Task.sleep(for: .milliseconds(300))
        let idleStart = watching.folder.requestCount
        try await Task.sleep(for: .seconds(2))
        let idleRequests = watching.folder.requestCount - idleStart
        // About five polls (fewer on a loaded machine), each one request; at most one of them
        // reads the log (a listing more). A fixed 50 ms would be forty.
        #expect(idleRequests <= 12, "\(idleRequests) requests in 2 s of idle polling")

        try writer.saveMany(2)
        try await server.exchange(folder, store: writer.store).send()
        #expect(await Self.nextSignal(signals), "a send after an idle spell is signalled")
        try await watching.retrieve()
        #expect(watcher.versionIds == writer.versionIds)
    }

    /// A sender whose write of the change token failed (here every `PUT` of it answers 507)
    /// still completes its send, and a watcher still notices it: after
    /// `FolderExchange.pollsBetweenLogReads` idle polls it reads the log anyway.
    @Test func aSendWhoseTokenWasNotWrittenIsStillNoticed() async throws {
        let server = try #require(WebDAVServer.apache.first)
        let writer = try Client("tokenless-writer"), watcher = try Client("tokenless-watcher")
        let folder = server.folder("tokenless")
        try writer.saveMany(2)
        try await server.exchange(folder, store: writer.store).send()
        let watching = try server.exchange(folder, store: watcher.store, polling: .milliseconds(20), maximumPolling: .milliseconds(80))
        try await watching.retrieve()
        let signals = watching.newVersionsAvailable
        try await Task.sleep(for: .milliseconds(300))
        let token = try await watching.folder.log(at: "log").changeToken(ifDifferentFrom: nil)

        let proxy = try await WebDAVFaultProxy(upstream: folder, client: try WebDAVServer.client())
        proxy.fail("PUT", with: 507, times: 1_000, pathSuffix: "/log/last-append")
        try writer.saveMany(2)
        try await server.exchange(proxy.url(of: folder), store: writer.store).send()
        await proxy.stop()
        #expect(try await watching.folder.log(at: "log").changeToken(ifDifferentFrom: nil) == token)
        #expect(await Self.nextSignal(signals), "the send is noticed though the change token did not change")
        try await watching.retrieve()
        #expect(watcher.versionIds == writer.versionIds)
    }
}
