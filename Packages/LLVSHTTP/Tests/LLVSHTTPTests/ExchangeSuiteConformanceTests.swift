import Foundation
import LLVSExchangeTesting
import LLVSHTTPExchange
import LLVSSyncStorage
import LLVSTesting
import Testing

/// The HTTP exchange passes every check of `ExchangeConformance` against the sync server
/// on each server storage (SQLite; PostgreSQL when the run has one). Each storage's server
/// starts once for the whole run; every location is a store of its own on it. The checks
/// run one at a time, to keep the run's load down.
@Suite(.serialized) struct ExchangeSuiteConformanceTests {
    @Test(arguments: ExchangeConformance.Check.allCases, StorageKind.available)
    func httpExchangeConforms(_ check: ExchangeConformance.Check, storage: StorageKind) async throws {
        let server = try await SharedServers.server(for: storage)
        try await ExchangeConformance { _ in
            let url = server.storeURL(uniqueStoreName("conformance"))
            return { store in
                try HTTPExchange(storeURL: url, store: store, accessToken: testToken,
                                 retryPolicy: .init(maximumAttempts: 6, initialDelay: .milliseconds(50)), notificationPollSeconds: 5)
            }
        }.run(check)
    }
}

/// Servers shared by the tests of a run, one per storage kind, started on first use.
enum SharedServers {
    private static let directory = Result { try TemporaryDirectory(prefix: "llvs-shared-server") }
    private static let sqlite = Task { () async throws -> RunningServer in
        try await RunningServer(storage: try makeStorage(.sqlite, in: try directory.get()))
    }
    private static let postgres = Task { () async throws -> RunningServer in
        try await RunningServer(storage: try makeStorage(.postgres, in: try directory.get()))
    }

    /// The running server over storage of `kind`.
    ///
    /// - Throws: When it could not start.
    static func server(for kind: StorageKind) async throws -> RunningServer {
        switch kind {
        case .sqlite: try await sqlite.value
        case .postgres: try await postgres.value
        }
    }
}
