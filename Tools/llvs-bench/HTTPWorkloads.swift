import Foundation
import LLVS

/// W9 of BENCHMARKS.md: `HTTPExchange` through the sync server on loopback. The server runs
/// in this process over SQLite; the backend is that of the client stores.
///
/// 1. Push every version of a 1,000-version ``ExchangeHistory`` store to an empty server
///    store, then pull them all into an empty store (which must then hold all of them).
/// 2. 20 clients, each with a store of its own, concurrently make 50 versions (shaped the
///    same way) and push after each one to one shared server store; the whole phase is
///    timed. Lost versions are those the clients pushed that the server does not list;
///    there must be none.
///
/// Small scale: 100 versions, then 5 clients × 10 versions.
enum HTTPWorkloads {
    /// The server store of the push and pull.
    static let transferStoreName = "w9-transfer"
    /// The server store the concurrent clients share.
    static let sharedStoreName = "w9-clients"

    /// Runs W9 and records push ms, pull ms, versions/s and lost versions; throws when the
    /// pull is incomplete or a version is lost.
    static func w9(backend: String, scale: Scale, report: Report) async throws {
        let versionCount = scale == .full ? 1_000 : 100
        let clientCount = scale == .full ? 20 : 5
        let versionsPerClient = scale == .full ? 50 : 10
        let server = try await LoopbackSyncServer.start()
        let outcome: Result<Void, any Error>
        do {
            try await pushAndPull(backend: backend, versionCount: versionCount, server: server, report: report)
            try await concurrentPushes(backend: backend, clientCount: clientCount, versionsPerClient: versionsPerClient,
                                       server: server, report: report)
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        await server.stop()
        try outcome.get()
    }

    /// Pushes a `versionCount`-version store to the server, then pulls it into an empty store.
    private static func pushAndPull(backend: String, versionCount: Int, server: LoopbackSyncServer, report: Report) async throws {
        let (source, head) = try ExchangeHistory.makeStore(backend: backend, versionCount: versionCount, seed: 9)
        let clock = ContinuousClock()
        var pushed: [Version.ID] = []
        let pushTime = try await clock.measure {
            pushed = try await server.exchange(transferStoreName, store: source.store).send()
        }
        let target = try BenchmarkStore(backend: backend)
        var pulled: [Version.ID] = []
        let pullTime = try await clock.measure {
            pulled = try await server.exchange(transferStoreName, store: target.store).retrieve()
        }
        let held = target.store.queryHistory { $0.allVersionIdentifiers.count }
        guard pushed.count == versionCount, pulled.count == versionCount, held == versionCount,
              try target.store.valueReferences(at: head).count == ExchangeHistory.initialValueCount else {
            throw BenchmarkError.wrongResult("W9 pushed \(pushed.count), pulled \(pulled.count), holds \(held) of \(versionCount) versions")
        }
        let parameters = ["versions": versionCount]
        report.record("W9", backend, "push_ms", milliseconds(of: pushTime), unit: "ms", parameters: parameters)
        report.record("W9", backend, "pull_ms", milliseconds(of: pullTime), unit: "ms", parameters: parameters)
    }

    /// `clientCount` clients each make `versionsPerClient` versions, pushing after each,
    /// all at once; then counts the versions the server does not list.
    private static func concurrentPushes(backend: String, clientCount: Int, versionsPerClient: Int,
                                         server: LoopbackSyncServer, report: Report) async throws {
        var made: [Version.ID] = []
        var pushed: [Version.ID] = []
        let time = try await ContinuousClock().measure {
            try await withThrowingTaskGroup(of: (made: [Version.ID], pushed: [Version.ID]).self) { group in
                for client in 0..<clientCount {
                    group.addTask {
                        try await runClient(backend: backend, seed: 900 + UInt64(client), versionCount: versionsPerClient, server: server)
                    }
                }
                for try await client in group {
                    made += client.made
                    pushed += client.pushed
                }
            }
        }
        let lister = try BenchmarkStore(backend: backend)
        let listed = try await server.exchange(sharedStoreName, store: lister.store).retrieveAllVersionIdentifiers()
        let lost = Set(pushed).subtracting(listed).count
        let total = clientCount * versionsPerClient
        let ms = milliseconds(of: time)
        let parameters = ["clients": clientCount, "versions_per_client": versionsPerClient]
        report.record("W9", backend, "concurrent_push_ms", ms, unit: "ms", parameters: parameters)
        report.record("W9", backend, "versions_per_s", Double(total) / (ms / 1_000), unit: "versions/s", parameters: parameters)
        report.record("W9", backend, "lost_versions", Double(lost), unit: "versions", parameters: parameters)
        guard lost == 0 else {
            throw BenchmarkError.wrongResult("W9 lost \(lost) of \(pushed.count) versions the clients pushed")
        }
        guard made.count == total, Set(pushed) == Set(made), listed.count == total, Set(listed).count == total else {
            throw BenchmarkError.wrongResult("W9 clients made \(made.count) and pushed \(Set(pushed).count) of \(total) versions; "
                                             + "the server lists \(listed.count) (\(Set(listed).count) distinct)")
        }
    }

    /// One client: a store of its own, `versionCount` versions, a push after each.
    /// Returns the versions it made and those its pushes reported sent.
    private static func runClient(backend: String, seed: UInt64, versionCount: Int,
                                  server: LoopbackSyncServer) async throws -> (made: [Version.ID], pushed: [Version.ID]) {
        let bench = try BenchmarkStore(backend: backend)
        let exchange = try server.exchange(sharedStoreName, store: bench.store)
        var history = ExchangeHistory(seed: seed)
        var made: [Version.ID] = []
        var pushed: [Version.ID] = []
        for _ in 0..<versionCount {
            made.append(try history.addVersion(to: bench.store))
            pushed += try await exchange.send()
        }
        return (made, pushed)
    }
}
