import AsyncHTTPClient
import Foundation
import Logging
import LLVSCore
import LLVSExchange
import LLVSHTTPExchange
import LLVSStore
import LLVSSyncPostgres
import LLVSSyncProtocol
import LLVSSyncServer
import LLVSSyncStorage
import LLVSTesting
import NIOCore
import NIOHTTP1
import Testing

/// The token every test server accepts for every store.
let testToken = "test-token-0123456789abcdef"

/// The PostgreSQL server `Scripts/postgres start` runs, when the environment names it.
let postgresURL = ProcessInfo.processInfo.environment["LLVS_TEST_POSTGRES_URL"]

/// The server storages the tests run against: SQLite always, PostgreSQL when
/// `LLVS_TEST_POSTGRES_URL` is set (CI sets it; `PostgresAvailabilityTests` fails in CI
/// without it).
enum StorageKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite, postgres

    static var available: [StorageKind] { postgresURL == nil ? [.sqlite] : [.sqlite, .postgres] }

    var testDescription: String { rawValue }
}

/// A fresh storage of `kind`. SQLite storages live in `directory`; PostgreSQL ones share the
/// test database, so tests use store names of their own (``uniqueStoreName(_:)``).
func makeStorage(_ kind: StorageKind, in directory: TemporaryDirectory) async throws -> any SyncStorage {
    switch kind {
    case .sqlite:
        return try SQLiteSyncStorage(fileURL: directory.url.appendingPathComponent("server.sqlite"))
    case .postgres:
        return try await PostgresSyncStorage(url: try #require(postgresURL))
    }
}

/// A store name no other test uses.
func uniqueStoreName(_ prefix: String = "store") -> SyncStoreName {
    SyncStoreName(rawValue: "\(prefix)-\(UUID().uuidString.prefix(13))")!
}

/// A sync server running on a free loopback port in a task of its own.
final class RunningServer: Sendable {
    let storage: any SyncStorage
    let port: Int
    private let task: Task<Void, any Error>

    /// Starts a server over `storage`, with `configure` applied to its configuration, and
    /// waits until it listens.
    init(storage: any SyncStorage, port: Int = 0, tokens: AccessTokens? = nil, maximumBodyByteCount: Int = SyncLimits.defaultMaximumBodyByteCount,
         configure: @Sendable (inout SyncServerConfiguration) -> Void = { _ in }) async throws {
        var logger = Logger(label: "test-server")
        // Stopping a test server cancels its connections, which Hummingbird logs as errors.
        logger.logLevel = ProcessInfo.processInfo.environment["LLVS_TEST_LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .critical
        var configuration = SyncServerConfiguration(port: port, accessTokens: try tokens ?? AccessTokens(["*": [testToken]]),
                                                    maximumBodyByteCount: maximumBodyByteCount,
                                                    storagePollInterval: .milliseconds(200), logger: logger)
        // A loaded test run can keep a healthy storage from answering within the 2-s default:
        // only the tests of an unanswering storage want the short check.
        configuration.storageCheckTimeout = .seconds(60)
        configure(&configuration)
        let server = SyncServer(storage: storage, configuration: configuration)
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        task = Task {
            defer { continuation.finish() }
            try await server.run { continuation.yield($0) }
        }
        var bound: Int?
        for await port in ports {
            bound = port
            break
        }
        guard let bound else {
            _ = try await task.value
            throw TestFailure("the server stopped before listening")
        }
        self.storage = storage
        self.port = bound
    }

    /// The base URL.
    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// The URL of a store.
    func storeURL(_ name: SyncStoreName) -> URL {
        URL(string: "\(baseURL)\(SyncAPI.storesPath)/\(name)")!
    }

    /// Stops the server (finishing requests in flight) and waits until it has stopped.
    func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A store in its own temporary directory, with an exchange to a server store.
final class Client: Sendable {
    let directory: TemporaryDirectory
    let store: Store
    let name: String

    init(_ name: String = "client") throws {
        self.name = name
        directory = try TemporaryDirectory(prefix: "llvs-http-\(name)")
        store = try Store(rootDirectoryURL: directory.url.appendingPathComponent("store"))
    }

    /// An exchange with `storeURL`, retrying quickly; its notification long polls wait
    /// `pollSeconds` each.
    func exchange(_ storeURL: URL, token: String? = testToken, retry: HTTPRetryPolicy = .init(maximumAttempts: 6, initialDelay: .milliseconds(50)),
                  batchBytes: Int = 5_000_000, pollSeconds: Int = 5) throws -> HTTPExchange {
        try HTTPExchange(storeURL: storeURL, store: store, accessToken: token, retryPolicy: retry,
                         maximumBatchByteCount: batchBytes, notificationPollSeconds: pollSeconds)
    }

    /// Saves `values` (id → text) on the most recent head.
    @discardableResult
    func save(_ values: [String: String]) throws -> Version {
        let changes = values.sorted { $0.key < $1.key }.map { Value.Change.update(Value(idString: $0.key, data: Data($0.value.utf8))) }
        return try store.makeVersion(basedOnPredecessor: store.mostRecentHead?.id, storing: changes)
    }

    /// Saves `count` versions, each changing `valueBytes` bytes of one of 20 values.
    func saveMany(_ count: Int, valueBytes: Int = 64) throws {
        for index in 0..<count {
            try save(["\(name)-\(index % 20)": String(repeating: "x", count: valueBytes) + "\(index)"])
        }
    }

    var versionIds: Set<Version.ID> { store.queryHistory { Set($0.allVersionIdentifiers) } }
    var heads: Set<Version.ID> { store.queryHistory { $0.headIdentifiers } }

    /// The text of every value at `version`.
    func texts(at version: Version.ID) throws -> [String: String] {
        var result: [String: String] = [:]
        for reference in try store.valueReferences(at: version) {
            result[reference.valueId.rawValue] = try store.value(storedAt: reference).map { String(decoding: $0.data, as: UTF8.self) }
        }
        return result
    }
}

/// Raw HTTP requests, for the tests of what the server refuses.
struct RawClient {
    let client = HTTPClient.shared

    func request(_ method: HTTPMethod, _ url: String, token: String? = nil, body: Data? = nil,
                 headers: [(String, String)] = []) async throws -> (status: Int, body: Data) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(body) }
        let response = try await client.execute(request, timeout: .seconds(120))
        let data = try await response.body.collect(upTo: 1 << 26)
        return (Int(response.status.code), Data(data.readableBytesView))
    }
}
