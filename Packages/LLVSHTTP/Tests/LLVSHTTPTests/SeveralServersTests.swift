import Foundation
import LLVSCore
import LLVSExchange
import LLVSHTTPExchange
import LLVSSyncPostgres
import LLVSSyncProtocol
import LLVSTesting
import Testing

/// PostgreSQL is required in CI: without it the PostgreSQL half of every suite would be
/// skipped silently.
@Suite("PostgreSQL availability")
struct PostgresAvailabilityTests {
    @Test("CI runs the PostgreSQL tests (LLVS_TEST_POSTGRES_URL is set)")
    func configuredInCI() {
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            #expect(postgresURL != nil, "CI must start PostgreSQL (Scripts/postgres start) and export LLVS_TEST_POSTGRES_URL")
        }
    }
}

/// Two stateless server processes' worth of servers (two `SyncServer`s, each with its own
/// connection pool) over one PostgreSQL database serve the same stores consistently.
@Suite("Several servers over one PostgreSQL database", .enabled(if: postgresURL != nil))
struct SeveralServersTests {
    @Test("Clients on different servers converge, concurrent pushes keep distinct cursors, and long polls see the other server's pushes")
    func twoServers() async throws {
        let url = try #require(postgresURL)
        let serverA = try await RunningServer(storage: try await PostgresSyncStorage(url: url))
        let serverB = try await RunningServer(storage: try await PostgresSyncStorage(url: url))
        defer { Task { await serverA.stop(); await serverB.stop() } }
        let name = uniqueStoreName("two-servers")

        let clients = try (0..<4).map { try Client("s\($0)") }
        for client in clients { try client.saveMany(15) }
        let exchanges = try clients.enumerated().map { index, client in
            try client.exchange((index.isMultiple(of: 2) ? serverA : serverB).storeURL(name), batchBytes: 500)
        }
        // A listener on server B hears pushes made through server A.
        let listener = try Client("listener")
        let listening = try listener.exchange(serverB.storeURL(name))
        var events = listening.newVersionsAvailable.makeAsyncIterator()

        try await withThrowingTaskGroup(of: Void.self) { group in
            for exchange in exchanges { group.addTask { try await exchange.send() } }
            try await group.waitForAll()
        }
        let heard: Void? = await events.next()
        #expect(heard != nil)
        #expect(try await listening.retrieve().count == 60)

        let listedA = try await serverA.storage.listVersions(in: name, after: nil, limit: 10_000)
        let listedB = try await serverB.storage.listVersions(in: name, after: nil, limit: 10_000)
        #expect(listedA == listedB)
        #expect(listedA.versionIds.count == 60 && Set(listedA.versionIds).count == 60)
        #expect(listedA.cursor.sequence == 60)

        // Every client pulls through the other server and ends with everything.
        for (index, client) in clients.enumerated() {
            let other = try client.exchange((index.isMultiple(of: 2) ? serverB : serverA).storeURL(name))
            try await other.retrieve()
            #expect(client.versionIds == Set(listedA.versionIds))
        }
        // A cursor from server A continues on server B.
        let late = try Client("late")
        let throughA = try late.exchange(serverA.storeURL(name))
        #expect(try await throughA.retrieve().count == 60)
        try clients[0].save(["after": "cursor"])
        try await exchanges[0].send()
        let throughB = try late.exchange(serverB.storeURL(name))
        throughB.restorationState = throughA.restorationState
        #expect(try await throughB.retrieveVersionIdentifiers(after: nil).versionIds.count == 61)
        #expect(try await throughB.retrieve().count == 1)
    }
}
