import Foundation
import LLVSCore
import LLVSExchangeTesting
import LLVSHTTPExchange
import LLVSStore
import LLVSTesting
import Testing

/// The HTTP exchange against `llvs serve` (a store served by the built binary) passes every
/// check of `ExchangeConformance`: each location is a new store served by its own process.
/// A served store keeps no snapshots (the server refuses one with 501). The checks run one
/// at a time, and the processes are started off the concurrency pool (starting one blocks
/// while it waits for the tool), so the other suites' servers and clients keep their threads.
@Suite(.serialized) struct ServeConformanceTests {
    static let token = "serve-conformance-token-0123456789"

    @Test(arguments: ExchangeConformance.Check.allCases)
    func servedStoresConform(_ check: ExchangeConformance.Check) async throws {
        let servers = try ServedStores()
        try await ExchangeConformance(keepsSnapshots: false) { name in
            let url = try await servers.serveNewStoreOffThePool(named: name)
            return { store in
                try HTTPExchange(storeURL: url, store: store, accessToken: Self.token,
                                 retryPolicy: .init(maximumAttempts: 6, initialDelay: .milliseconds(50)), notificationPollSeconds: 5)
            }
        }.run(check)
        servers.stopAll()
    }
}

/// Stores served by `llvs serve`, each by a process of its own, stopped when released.
final class ServedStores: @unchecked Sendable {
    // Unchecked: the processes and the scratch directory are only touched under `lock`.
    private let lock = NSLock()
    private var processes: [BackgroundTool] = []
    private let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory()
    }

    /// Makes a store named `name`, serves it and returns its URL.
    ///
    /// - Throws: When the tool fails or announces no URL.
    func serveNewStore(named name: String) throws -> URL {
        let llvs = try ToolRunner("llvs")
        let path = scratch.path(name)
        try llvs.succeed(["init", "--store", path])
        let server = try BackgroundTool(llvs, ["serve", "--port", "0", "--token", ServeConformanceTests.token, "--store", path])
        lock.withLock { processes.append(server) }
        let prefix = "Serving \(path) at "
        guard let line = try server.lines(atLeast: 1).first(where: { $0.hasPrefix(prefix) }), let url = URL(string: String(line.dropFirst(prefix.count))) else {
            throw BackgroundTool.Failure(description: "no URL announced: \(server.stdout) \(server.stderr)")
        }
        return url
    }

    /// ``serveNewStore(named:)`` on a thread of its own, off the concurrency pool.
    ///
    /// - Throws: What ``serveNewStore(named:)`` throws.
    func serveNewStoreOffThePool(named name: String) async throws -> URL {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try self.serveNewStore(named: name) }) }.start()
        }
    }

    /// Stops every server.
    func stopAll() {
        lock.withLock {
            for process in processes { _ = process.stop() }
            processes = []
        }
    }
}
