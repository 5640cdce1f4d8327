import Foundation
import LLVS
import LLVSSyncServer
import LLVSSyncStorage
import Logging

/// A sync server in this process, on a free loopback port, over a `SQLiteSyncStorage` in a
/// temporary directory; ``stop()`` shuts it down and removes the directory.
final class LoopbackSyncServer: Sendable {
    /// The token the server accepts for every store.
    static let token = "llvs-bench-token-0123456789abcdef"

    /// The port the server listens on.
    let port: Int
    /// The directory holding the server's database.
    let directory: URL
    private let task: Task<Void, any Error>

    private init(port: Int, directory: URL, task: Task<Void, any Error>) {
        self.port = port
        self.directory = directory
        self.task = task
    }

    /// Starts a server and waits until it listens.
    ///
    /// - Throws: When the storage cannot be opened or the server stops before listening.
    static func start() async throws -> LoopbackSyncServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("llvs-bench-server-\(UUID().uuidString)")
        let storage = try SQLiteSyncStorage(fileURL: directory.appendingPathComponent("server.sqlite"))
        var logger = Logger(label: "llvs-bench.server")
        // Stopping the server cancels idle client connections, which Hummingbird logs as errors.
        logger.logLevel = .critical
        let configuration = SyncServerConfiguration(host: "127.0.0.1", port: 0, accessTokens: try AccessTokens(["*": [token]]), logger: logger)
        let server = SyncServer(storage: storage, configuration: configuration)
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let task = Task {
            defer { continuation.finish() }
            try await server.run { continuation.yield($0) }
        }
        var bound: Int?
        for await port in ports {
            bound = port
            break
        }
        guard let bound, bound > 0 else {
            task.cancel()
            let outcome = await task.result
            try? FileManager.default.removeItem(at: directory)
            if case .failure(let error) = outcome { throw error }
            throw BenchmarkError.wrongResult("the sync server stopped before listening")
        }
        return LoopbackSyncServer(port: bound, directory: directory, task: task)
    }

    /// The URL of the server store `name`, for an `HTTPExchange`.
    func storeURL(_ name: String) throws -> URL {
        guard let url = URL(string: "http://127.0.0.1:\(port)/v1/stores/\(name)") else {
            throw BenchmarkError.wrongResult("no URL for server store '\(name)'")
        }
        return url
    }

    /// An exchange between `store` and the server store `name`.
    func exchange(_ name: String, store: Store) throws -> HTTPExchange {
        try HTTPExchange(storeURL: storeURL(name), store: store, accessToken: Self.token)
    }

    /// Stops the server (finishing requests in flight), waits until it has stopped and
    /// removes its database.
    /// The blind store `name` of this server, as an encrypted exchange's transport.
    func blobTransport(_ name: String) throws -> HTTPBlobTransport {
        guard let url = URL(string: "http://127.0.0.1:\(port)/v1/blind/\(name)") else {
            throw BenchmarkError.wrongResult("no URL for blind store '\(name)'")
        }
        return try HTTPBlobTransport(storeURL: url, accessToken: Self.token)
    }

    func stop() async {
        task.cancel()
        _ = await task.result
        try? FileManager.default.removeItem(at: directory)
    }
}
