import Foundation
import LLVSEncryption
import LLVSEncryptionTesting
import LLVSExchangeTesting
import LLVSHTTPExchange
import LLVSStore
import LLVSSyncPostgres
import LLVSSyncStorage
import LLVSTesting
import Testing

/// `EncryptedExchange` over the HTTP exchange and the sync server, on SQLite and on
/// PostgreSQL: it passes `ExchangeConformance`, and what the server keeps holds nothing of
/// the versions in the clear.
@Suite(.serialized) struct EncryptedHTTPExchangeTests {
    @Test(arguments: ExchangeConformance.Check.allCases, StorageKind.available)
    func encryptedHTTPExchangeConforms(_ check: ExchangeConformance.Check, storage: StorageKind) async throws {
        let server = try await SharedServers.server(for: storage)
        try await ExchangeConformance { _ in
            let url = server.storeURL(uniqueStoreName("encrypted"))
            let keys = EncryptionKeys(storeKey: StoreEncryptionKey())
            return { store in
                EncryptedExchange(sealing: try HTTPExchange(storeURL: url, store: store, accessToken: testToken,
                                                            retryPolicy: .init(maximumAttempts: 6, initialDelay: .milliseconds(50)),
                                                            notificationPollSeconds: 5), keys: keys)
            }
        }.run(check)
    }

    /// The keyring through the server: a device restores from the phrase and the server
    /// alone, another joins by its code, and after a removal the removed one gets nothing new.
    @Test(arguments: StorageKind.available)
    func aNewDeviceRestoresFromThePhraseThroughTheServer(storage: StorageKind) async throws {
        let server = try await SharedServers.server(for: storage)
        let url = server.storeURL(uniqueStoreName("keyring"))
        let laptop = try Client("laptop"), restored = try Client("restored"), phone = try Client("phone")
        try laptop.store.makeVersion(basedOnPredecessor: nil, inserting: [Value(idString: "note", data: Data("sealed text".utf8))])
        let laptopDevice = try DeviceIdentity(name: "laptop"), phoneDevice = try DeviceIdentity(name: "phone")
        let storeKey = StoreEncryptionKey()
        let keyring = try Keyring.founding(storeKey: storeKey, founder: laptopDevice)
        let laptopExchange = try EncryptedExchange(sealing: try laptop.exchange(url), keyring: keyring, member: .device(laptopDevice))
        try await laptopExchange.publish(keyring)
        try await laptopExchange.send()

        let fromPhrase = try await EncryptedExchange.restoring(through: try restored.exchange(url), phrase: RecoveryPhrase(storeKey: storeKey))
        #expect(try await fromPhrase.retrieve().count == 1)
        #expect(try restored.texts(at: try #require(restored.store.mostRecentHead?.id)) == ["note": "sealed text"])

        try await EncryptedExchange.requestEnrollment(of: phoneDevice.record, through: try phone.exchange(url))
        try await laptopExchange.retrieve()
        let request = try #require(laptopExchange.enrollmentRequests.first { $0.matches(enrollmentCode: phoneDevice.record.enrollmentCode) })
        try await laptopExchange.publish(try #require(laptopExchange.keyring).adding(request, by: laptopDevice))
        let phoneExchange = try await EncryptedExchange.joining(through: try phone.exchange(url), as: phoneDevice)
        #expect(try await phoneExchange.retrieve().count == 1)

        try await laptopExchange.publish(try #require(laptopExchange.keyring).removing(deviceId: phoneDevice.record.id, by: laptopDevice))
        try laptop.store.makeVersion(basedOnPredecessor: laptop.store.mostRecentHead?.id,
                                     inserting: [Value(idString: "later", data: Data("after the removal".utf8))])
        try await laptopExchange.send()
        #expect(try await phoneExchange.retrieve().isEmpty)
        #expect(phoneExchange.pendingVersionCount == 1)
        #expect(try await fromPhrase.retrieve().isEmpty, "the phrase was replaced by the removal")
    }

    /// The leak check: the corpus synced through a server of its own (its own SQLite file,
    /// or its own PostgreSQL database), with a sealed snapshot of it from which a second
    /// device restores, then every file of the SQLite storage, or a `pg_dump` of the
    /// database, searched for every identifier, timestamp, metadata key and 8-byte window of
    /// a value.
    @Test(arguments: StorageKind.available)
    func theServerKeepsNothingInTheClear(storage: StorageKind) async throws {
        let directory = try TemporaryDirectory(prefix: "llvs-encrypted-leak")
        let database = try LeakDatabase(kind: storage, directory: directory)
        let server = try await RunningServer(storage: try await database.makeStorage())
        let sender = try Client("sender"), receiver = try Client("receiver")
        let versions = try LeakCheck.makeCorpus(in: sender.store)
        let url = server.storeURL(uniqueStoreName("leak"))
        let keys = EncryptionKeys(storeKey: StoreEncryptionKey())
        let sending = EncryptedExchange(sealing: try sender.exchange(url), keys: keys)
        try await sending.send()
        let manifest = try #require(try await sending.sendSnapshot(chunkSize: 16_384))
        let restoring = EncryptedExchange(sealing: try receiver.exchange(url), keys: keys)
        #expect(try await restoring.restoreSnapshot()?.snapshotId == manifest.snapshotId)
        #expect(receiver.versionIds == Set(versions.map(\.id)))
        #expect(try await restoring.retrieve().isEmpty, "the versions in the snapshot are not fetched again")

        let needles = try LeakCheck.needles(of: versions, in: sender.store)
        let hits = try await database.hits(of: needles)
        #expect(hits.isEmpty, "\(hits.count) leaks, first \(hits.prefix(5))")
        // The same search finds the corpus once it is sent in the clear.
        try await sender.exchange(server.storeURL(uniqueStoreName("clear"))).send()
        await server.stop()
        let clearHits = try await database.hits(of: needles)
        #expect(LeakCheck.findsEveryVersionIdentifier(of: versions, in: clearHits), "the search missed the corpus sent in the clear")
        try database.drop()
    }
}

/// A server storage of the leak check's own, and a search of what it keeps.
struct LeakDatabase: Sendable {
    let kind: StorageKind
    let directory: TemporaryDirectory
    /// The PostgreSQL database's URL and name.
    let postgres: (url: String, name: String)?

    init(kind: StorageKind, directory: TemporaryDirectory) throws {
        self.kind = kind
        self.directory = directory
        guard kind == .postgres else {
            postgres = nil
            return
        }
        let base = try #require(postgresURL)
        let name = "llvs_leak_\(UUID().uuidString.prefix(8).lowercased())"
        try Self.run("psql", [base, "-v", "ON_ERROR_STOP=1", "-q", "-c", "CREATE DATABASE \(name)"])
        var components = try #require(URLComponents(string: base))
        components.path = "/\(name)"
        postgres = (try #require(components.string), name)
    }

    func makeStorage() async throws -> any SyncStorage {
        if let postgres { return try await PostgresSyncStorage(url: postgres.url) }
        return try SQLiteSyncStorage(fileURL: directory.url.appendingPathComponent("server.sqlite"))
    }

    /// ``searchedHits(of:)`` on a thread of its own: the search and `pg_dump` take seconds
    /// and block, and on the cooperative pool (two threads on two cores) they would stall
    /// the servers of every other test running meanwhile.
    func hits(of needles: [LeakCheck.Needle]) async throws -> [String] {
        try await offCooperativePool { try searchedHits(of: needles) }
    }

    /// The needles found: in every file of the SQLite storage, or in a data dump of the
    /// PostgreSQL database (where `bytea` columns are written in hex, so each needle is
    /// looked for in hex too).
    func searchedHits(of needles: [LeakCheck.Needle]) throws -> [String] {
        guard let postgres else { return try LeakCheck.hits(of: needles, under: directory.url) }
        let dump = try Self.run("pg_dump", ["--data-only", "--dbname=\(postgres.url)"])
        return LeakCheck.hits(of: needles + LeakCheck.inHex(needles), in: dump, location: "pg_dump of \(postgres.name)")
    }

    func drop() throws {
        guard let postgres, let base = postgresURL else { return }
        try Self.run("psql", [base, "-q", "-c", "DROP DATABASE IF EXISTS \(postgres.name) WITH (FORCE)"])
    }

    /// Runs one of PostgreSQL's client tools (from PATH, else the newest under
    /// /usr/lib/postgresql), returning its standard output.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> Data {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        let installed = versions.sorted { (Int($0) ?? 0) < (Int($1) ?? 0) }.last.map { "/usr/lib/postgresql/\($0)/bin/\(tool)" }
        let process = Process()
        if let installed, FileManager.default.isExecutableFile(atPath: installed) {
            process.executableURL = URL(fileURLWithPath: installed)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [tool] + arguments
        }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestFailure("\(tool) failed (\(process.terminationStatus)): \(String(decoding: message, as: UTF8.self))")
        }
        return data
    }
}
