import Foundation
import LLVSCore
import LLVSExchange
@testable import LLVSSyncPostgres
import LLVSSyncProtocol
import LLVSSupport
import LLVSSyncStorage
import LLVSTesting
import Testing
@testable import LLVSSyncServer

/// Long polls of several server instances over one PostgreSQL database: a push through one
/// wakes the polls waiting on the others through `LISTEN`/`NOTIFY` (not the storage poll,
/// set to 30 s here), a lost listening connection is made again and what was announced
/// meanwhile is found, and the polling feed alone wakes them within its interval.
@Suite("Change feeds across server instances", .enabled(if: postgresURL != nil))
struct ChangeFeedTests {
    /// Two servers over the database, each with `feed` and `pollInterval`.
    static func servers(feed: @escaping @Sendable (PostgresSyncStorage) -> any SyncChangeFeed,
                        pollInterval: Duration) async throws -> (RunningServer, RunningServer) {
        let url = try #require(postgresURL)
        var running: [RunningServer] = []
        for _ in 0..<2 {
            let storage = try await PostgresSyncStorage(url: url)
            running.append(try await RunningServer(storage: storage) {
                $0.changeFeed = feed(storage)
                $0.storagePollInterval = pollInterval
            })
        }
        return (running[0], running[1])
    }

    /// Waits on `server`'s events for `store` past `cursor`; the answer and how long it took.
    static func poll(_ server: RunningServer, _ store: SyncStoreName, after cursor: String, timeout: Int = 20) async throws
        -> (response: EventsResponse, waited: Duration, answered: ContinuousClock.Instant) {
        let started = ContinuousClock.now
        let url = "\(server.storeURL(store).absoluteString)/\(SyncAPI.StorePath.events)?timeout=\(timeout)&after=\(cursor)"
        let (status, body) = try await RawClient().request(.GET, url, token: testToken)
        #expect(status == 200, "\(String(decoding: body, as: UTF8.self))")
        let answered = ContinuousClock.now
        return (try JSONDecoder().decode(EventsResponse.self, from: body), answered - started, answered)
    }

    /// Pushes one new version to `store` through `server`; the cursor after it.
    static func push(_ client: Client, to server: RunningServer, _ store: SyncStoreName) async throws {
        try client.saveMany(1)
        try await client.exchange(server.storeURL(store)).send()
    }

    /// A poll waiting on B answers a push through A well within the 30-s storage poll.
    @Test func aPushThroughOneInstanceWakesPollsOnAnother() async throws {
        let (a, b) = try await Self.servers(feed: { PostgresChangeFeed(storage: $0) }, pollInterval: .seconds(30))
        let store = uniqueStoreName("feed-wake")
        let writer = try Client("feed-writer")
        try await Self.push(writer, to: a, store)
        let cursor = try await b.storage.latestCursor(in: store).description
        try await Task.sleep(for: .milliseconds(300))
        async let answer = Self.poll(b, store, after: cursor)
        try await Task.sleep(for: .milliseconds(300))
        try await Self.push(writer, to: a, store)
        let pushed = ContinuousClock.now
        let (response, waited, answered) = try await answer
        #expect(response.newVersionsAvailable)
        #expect(waited >= .milliseconds(250), "answered after \(waited), before the push")
        #expect(answered - pushed < .seconds(5), "woken \(answered - pushed) after the push")
        await a.stop()
        await b.stop()
    }

    /// The listening connections are killed (`pg_terminate_backend`) and a push made before
    /// they are back: the feed listens again and its resynchronization wakes the poll, long
    /// before the 30-s storage poll would.
    @Test func aLostListeningConnectionIsMadeAgainAndMissesNothing() async throws {
        let url = try #require(postgresURL)
        let (a, b) = try await Self.servers(feed: { PostgresChangeFeed(storage: $0) }, pollInterval: .seconds(30))
        let store = uniqueStoreName("feed-lost")
        let writer = try Client("feed-lost-writer")
        try await Self.push(writer, to: a, store)
        let cursor = try await b.storage.latestCursor(in: store).description
        try await Task.sleep(for: .milliseconds(300))
        async let answer = Self.poll(b, store, after: cursor)
        try await Task.sleep(for: .milliseconds(300))
        try await PostgresSyncStorage.execute([
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND pid <> pg_backend_pid()",
        ], url: url)
        try await Self.push(writer, to: a, store)
        let pushed = ContinuousClock.now
        let (response, waited, answered) = try await answer
        #expect(response.newVersionsAvailable)
        #expect(waited >= .milliseconds(250), "answered after \(waited), before the push")
        #expect(answered - pushed < .seconds(10), "woken \(answered - pushed) after the push")

        // Listening again: the next push wakes a poll at once.
        let next = response.cursor
        try await Task.sleep(for: .seconds(1))
        async let again = Self.poll(b, store, after: next)
        try await Task.sleep(for: .milliseconds(300))
        try await Self.push(writer, to: a, store)
        let pushedAgain = ContinuousClock.now
        let (second, secondWait, secondAnswered) = try await again
        #expect(second.newVersionsAvailable)
        #expect(secondWait >= .milliseconds(250), "answered after \(secondWait), before the push")
        #expect(secondAnswered - pushedAgain < .seconds(5), "woken \(secondAnswered - pushedAgain) after the push")
        await a.stop()
        await b.stop()
    }

    /// Without notifications, each instance's storage poll wakes its waiting clients.
    @Test func thePollingFeedWakesWithinItsInterval() async throws {
        let (a, b) = try await Self.servers(feed: { _ in PollingChangeFeed() }, pollInterval: .milliseconds(300))
        let store = uniqueStoreName("feed-polling")
        let writer = try Client("feed-polling-writer")
        try await Self.push(writer, to: a, store)
        let cursor = try await b.storage.latestCursor(in: store).description
        async let answer = Self.poll(b, store, after: cursor)
        try await Task.sleep(for: .milliseconds(500))
        try await Self.push(writer, to: a, store)
        let pushed = ContinuousClock.now
        let (response, waited, answered) = try await answer
        #expect(response.newVersionsAvailable)
        #expect(waited >= .milliseconds(250), "answered after \(waited), before the push")
        #expect(answered - pushed < .seconds(10), "woken \(answered - pushed) after the push")
        await a.stop()
        await b.stop()
    }

    /// The storage poll's one query gives what a read per store gives, for stores pushed to
    /// and stores never pushed to, versions and blobs.
    @Test func oneQueryReadsTheCursorsOfManyStores() async throws {
        let storage = try await PostgresSyncStorage(url: try #require(postgresURL))
        let stores = (0..<5).map { uniqueStoreName("batch-\($0)") }
        for (index, store) in stores.enumerated() where index.isMultiple(of: 2) {
            _ = try await storage.push([storedVersion("batch-\(index)")], to: store)
        }
        let batched = try await storage.latestCursors(in: stores)
        for store in stores { #expect(batched[store] == (try await storage.latestCursor(in: store)), "\(store)") }
        let blobs = try await storage.latestBlobCursors(in: stores)
        for store in stores { #expect(blobs[store] == (try await storage.latestBlobCursor(in: store)), "\(store)") }
        storage.close()
    }

    /// Announcements within the coalescing interval go out as one statement, and a listener
    /// hears each store once per statement, with its latest sequence.
    @Test func announcementsAreCoalesced() async throws {
        let storage = try await PostgresSyncStorage(url: try #require(postgresURL))
        let feed = PostgresChangeFeed(storage: storage, coalescingInterval: .milliseconds(50))
        let heard = Locked<[SyncStoreName]>([])
        let listening = Task { await feed.run { if case .changed(let store) = $0 { heard.withLock { $0.append(store) } } } }
        // Listening takes a moment (long on a loaded machine): a probe is announced until heard.
        let probe = uniqueStoreName("coalesced-probe")
        let listeningDeadline = ContinuousClock.now + .seconds(60)
        while !heard.withLock({ $0.contains(probe) }), ContinuousClock.now < listeningDeadline {
            await feed.announce(probe, sequence: 1)
            try await Task.sleep(for: .milliseconds(200))
        }
        try #require(heard.withLock { $0.contains(probe) }, "the feed never listened")
        let statementsBefore = feed.sentStatementCount
        let stores = (0..<3).map { uniqueStoreName("coalesced-\($0)") }
        for round in 1...20 {
            for store in stores { await feed.announce(store, sequence: Int64(round)) }
        }
        // Other tests' servers notify on the same channel: only these stores count.
        let ours = { heard.withLock { $0.filter(stores.contains) } }
        let deadline = ContinuousClock.now + .seconds(30)
        while Set(ours()) != Set(stores), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(Set(ours()) == Set(stores))
        #expect(ours().count <= 2 * stores.count, "each store heard \(ours().count) times in all for 20 announcements each")
        #expect(feed.sentStatementCount - statementsBefore <= 2, "\(feed.sentStatementCount - statementsBefore) statements for 60 announcements")
        listening.cancel()
        storage.close()
    }

    /// A feed whose listening connection is killed again and again listens again after
    /// 100 ms each time, not after the 5 s a database that stays down earns: the wait grows
    /// only while attempts fail before listening.
    @Test func aListeningConnectionLostAgainAndAgainIsMadeAgainQuickly() {
        var retry = PostgresChangeFeed.ListenRetry()
        #expect(retry.delay == .milliseconds(50))
        for _ in 0..<20 { retry.connectionLost(afterListening: true) }
        #expect(retry.delay == .milliseconds(100), "each killed connection had been listening")
        retry.connectionLost(afterListening: false)
        retry.connectionLost(afterListening: false)
        #expect(retry.delay == .milliseconds(400))
        for _ in 0..<10 { retry.connectionLost(afterListening: false) }
        #expect(retry.delay == .seconds(5), "a database that stays down is tried every 5 s")
        retry.connectionLost(afterListening: true)
        #expect(retry.delay == .milliseconds(100))
        retry.listenEnded()
        #expect(retry.delay == .milliseconds(50))
    }

    @Test func payloadsNameTheStoreAndSequenceOnly() throws {
        let store = try #require(SyncStoreName(rawValue: "notes"))
        #expect(PostgresChangeFeed.payload(store: store, sequence: 42) == "42 notes")
        #expect(PostgresChangeFeed.store(inPayload: "42 notes") == store)
        for hostile in ["", "notes", "x notes", "42 ", "42 ../etc", "42 \u{0}", "-1 NOTES!"] {
            #expect(PostgresChangeFeed.store(inPayload: hostile) == nil, "\(hostile)")
        }
    }
}

/// The hub long polls wait on: however many polls wait on a store, a change costs one
/// storage read, and the storage poll one query for every waited store.
@Suite struct LongPollHubTests {
    /// The storage time limit of the hubs whose tests are not about it: a loaded run can
    /// hold a real read past the server's 2 s, which a server's long poll absorbs by reading
    /// again but a test calling the hub directly would not.
    static let unlimited = Duration.seconds(600)

    @Test func oneReadPerChangeWhateverTheNumberOfWaitingPolls() async throws {
        let directory = try TemporaryDirectory(prefix: "llvs-hub")
        let storage = try SQLiteSyncStorage(fileURL: directory.url.appendingPathComponent("server.sqlite"))
        let hub = LongPollHub(storage: storage, retention: .zero, storageTimeLimit: Self.unlimited)
        let store = uniqueStoreName("hub")
        let key = LongPollHub.Key(store: store, kind: .versions)
        let (before, generation) = try await hub.latest(key)
        let readsBefore = hub.readCount
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    await hub.wait(for: key, after: generation, upTo: .seconds(20))
                    return try await hub.latest(key).cursor != before
                }
            }
            try await Task.sleep(for: .milliseconds(300))
            let outcome = try await storage.push([storedVersion("hub-a")], to: store)
            #expect(!outcome.added.isEmpty)
            hub.changed(store)
            var woken = 0
            for try await moved in group where moved { woken += 1 }
            #expect(woken == 200)
        }
        #expect(hub.readCount - readsBefore <= 2, "\(hub.readCount - readsBefore) reads for 200 polls")
        // A change between a poll's read and its wait is not missed: the wait returns at once.
        let (_, seen) = try await hub.latest(key)
        hub.changed(store)
        let started = ContinuousClock.now
        await hub.wait(for: key, after: seen, upTo: .seconds(20))
        #expect(ContinuousClock.now - started < .seconds(5))
        // The storage poll: one query for all waited stores, and nothing when none is waited on.
        let polled = hub.readCount
        try await hub.pollWaitedStores()
        #expect(hub.readCount == polled)
    }
}

extension LongPollHubTests {
    /// A client polling again after its poll ended (a timeout, a wake) finds its store's
    /// cursor known, even when it was the store's only waiting client: the hub keeps the
    /// store, polled with the others, for its retention.
    @Test func aStoreIsRememberedForItsRetentionAfterItsLastPoll() async throws {
        let directory = try TemporaryDirectory(prefix: "llvs-hub-retention")
        let storage = try SQLiteSyncStorage(fileURL: directory.url.appendingPathComponent("server.sqlite"))
        let store = uniqueStoreName("hub-retention")
        _ = try await storage.push([storedVersion("hub-retention-a")], to: store)
        for (retention, rereads) in [(Duration.seconds(30), 0), (.zero, 1)] {
            let hub = LongPollHub(storage: storage, retention: retention, storageTimeLimit: Self.unlimited)
            let key = LongPollHub.Key(store: store, kind: .versions)
            let (_, generation) = try await hub.latest(key)
            await hub.wait(for: key, after: generation, upTo: .milliseconds(10))
            try await hub.pollWaitedStores()
            let reads = hub.readCount
            _ = try await hub.latest(key)
            #expect(hub.readCount - reads == rereads, "retention \(retention)")
        }
    }
}

/// A storage whose next `hangs` cursor reads never answer, not even to cancellation (a
/// driver that lost a connection without telling), and which reads `base` otherwise.
final class HangingCursorStorage: SyncStorage {
    let base: any SyncStorage
    let hangs: Locked<Int>
    let kind = "hanging"

    init(_ base: any SyncStorage, hangs: Int) {
        self.base = base
        self.hangs = Locked(hangs)
    }

    /// Never returns when a hang is due.
    func hangIfDue() async {
        guard hangs.withLock({ count -> Bool in defer { count -= 1 }; return count > 0 }) else { return }
        await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
    }

    func latestCursor(in store: SyncStoreName) async throws -> SyncCursor {
        await hangIfDue()
        return try await base.latestCursor(in: store)
    }
    func latestCursors(in stores: [SyncStoreName]) async throws -> [SyncStoreName: SyncCursor] {
        await hangIfDue()
        return try await base.latestCursors(in: stores)
    }
    func checkHealth() async throws { try await base.checkHealth() }
    func listVersions(in store: SyncStoreName, after cursor: SyncCursor?, limit: Int) async throws -> SyncListingPage {
        try await base.listVersions(in: store, after: cursor, limit: limit)
    }
    func versionRecords(in store: SyncStoreName, identifiedBy ids: [Version.ID]) async throws -> [Data] {
        try await base.versionRecords(in: store, identifiedBy: ids)
    }
    func valueChanges(in store: SyncStoreName, identifiedBy ids: [Version.ID]) async throws -> [(Version.ID, Data)] {
        try await base.valueChanges(in: store, identifiedBy: ids)
    }
    func push(_ versions: [StoredVersion], to store: SyncStoreName) async throws -> SyncPushOutcome {
        try await base.push(versions, to: store)
    }
    func snapshotManifest(in store: SyncStoreName) async throws -> Data? { try await base.snapshotManifest(in: store) }
    func storeSnapshotChunk(_ data: Data, index: Int, snapshotId: String, in store: SyncStoreName) async throws {
        try await base.storeSnapshotChunk(data, index: index, snapshotId: snapshotId, in: store)
    }
    func snapshotChunk(index: Int, snapshotId: String, in store: SyncStoreName) async throws -> Data? {
        try await base.snapshotChunk(index: index, snapshotId: snapshotId, in: store)
    }
    func publishSnapshot(_ manifest: SnapshotManifest, in store: SyncStoreName) async throws {
        try await base.publishSnapshot(manifest, in: store)
    }
}

extension LongPollHubTests {
    /// A storage read that never answers fails the polls that joined it once the hub's time
    /// limit has passed, and the next poll reads anew and finds the push; the storage poll is
    /// bounded the same way, so a hung poll does not stop the ones after it. (Without the
    /// limit the test hangs, and its one-minute time limit fails it.)
    @Test(.timeLimit(.minutes(1))) func aStorageReadThatNeverAnswersHoldsUpNoPollPastTheTimeLimit() async throws {
        let directory = try TemporaryDirectory(prefix: "llvs-hub-hang")
        let base = try SQLiteSyncStorage(fileURL: directory.url.appendingPathComponent("server.sqlite"))
        let storage = HangingCursorStorage(base, hangs: 1)
        // Long enough for a real read on a loaded machine, short enough for a test.
        let limit = Duration.seconds(3)
        let hub = LongPollHub(storage: storage, retention: .seconds(30), storageTimeLimit: limit)
        let store = uniqueStoreName("hub-hang")
        let key = LongPollHub.Key(store: store, kind: .versions)
        enum Outcome: Sendable { case timedOut, read, failedOtherwise(String) }
        let outcomes = try await withThrowingTaskGroup(of: Outcome.self) { group in
            for _ in 0..<5 {
                group.addTask {
                    do {
                        _ = try await hub.latest(key)
                        return .read
                    } catch is StorageTimeLimitExceeded {
                        return .timedOut
                    } catch {
                        return .failedOtherwise("\(error)")
                    }
                }
            }
            return try await group.reduce(into: [Outcome]()) { $0.append($1) }
        }
        let timedOut = outcomes.filter { if case .timedOut = $0 { true } else { false } }.count
        let read = outcomes.filter { if case .read = $0 { true } else { false } }.count
        #expect(timedOut >= 1 && timedOut + read == 5, "the polls that joined the hung read fail with the time limit: \(outcomes)")

        _ = try await base.push([storedVersion("hub-hang-a")], to: store)
        hub.changed(store)
        let (cursor, generation) = try await Self.readingAgainPastTimeouts { try await hub.latest(key) }
        #expect(cursor.sequence == 1, "the next poll reads anew: \(cursor)")

        storage.hangs.withLock { $0 = 1 }
        await hub.wait(for: key, after: generation, upTo: .milliseconds(10))
        await #expect(throws: StorageTimeLimitExceeded.self) { try await hub.pollWaitedStores() }
        _ = try await base.push([storedVersion("hub-hang-b")], to: store)
        try await Self.readingAgainPastTimeouts { try await hub.pollWaitedStores() }
        let after = try await Self.readingAgainPastTimeouts { try await hub.latest(key) }
        #expect(after.cursor.sequence == 2, "the poll after the hung one finds the push")
    }

    /// `body`, made again after each ``StorageTimeLimitExceeded`` (as a server's long poll
    /// reads again): on a loaded run a real read can take longer than the test's limit.
    static func readingAgainPastTimeouts<T>(_ body: () async throws -> T) async throws -> T {
        while true {
            do { return try await body() } catch is StorageTimeLimitExceeded { continue }
        }
    }
}

extension LongPollHubTests {
    /// Through a server: a client waiting on a store whose first cursor read never answers
    /// is not answered 503, nor held: the hub drops the read after its time limit (2 s) and
    /// the poll reads again, and answers with the store's cursor.
    @Test(.timeLimit(.minutes(1))) func aLongPollReadsAgainPastAReadThatNeverAnswers() async throws {
        let directory = try TemporaryDirectory(prefix: "llvs-hub-hang-server")
        let base = try SQLiteSyncStorage(fileURL: directory.url.appendingPathComponent("server.sqlite"))
        let store = uniqueStoreName("hub-hang-server")
        _ = try await base.push([storedVersion("hub-hang-server-a")], to: store)
        let server = try await RunningServer(storage: HangingCursorStorage(base, hangs: 1))
        let started = ContinuousClock.now
        let url = "\(server.storeURL(store).absoluteString)/\(SyncAPI.StorePath.events)?timeout=20"
        let (status, body) = try await RawClient().request(.GET, url, token: testToken)
        #expect(status == 200, "\(String(decoding: body, as: UTF8.self))")
        let answer = try JSONDecoder().decode(EventsResponse.self, from: body)
        #expect(answer.newVersionsAvailable && answer.cursor.hasSuffix(".1"), "\(answer)")
        #expect(ContinuousClock.now - started < .seconds(20), "answered after the dropped read, not at the poll's timeout")
    }
}

/// `GET /ready`, the load balancer's check.
@Suite struct ReadinessTests {
    @Test func aServingServerIsReady() async throws {
        let directory = try TemporaryDirectory(prefix: "llvs-ready")
        let server = try await RunningServer(storage: try SQLiteSyncStorage(fileURL: directory.url.appendingPathComponent("server.sqlite")))
        let (status, body) = try await RawClient().request(.GET, server.baseURL + SyncAPI.readyPath)
        #expect(status == 200)
        #expect(String(decoding: body, as: UTF8.self).contains("\"status\":\"ready\""))
        await server.stop()
    }

    /// A server whose database is gone (dropped under it) is not ready: 503 with the
    /// storage-unavailable error within the storage check's timeout, and `/health` says the
    /// same, so a load balancer sends its clients elsewhere.
    @Test(.enabled(if: postgresURL != nil))
    func aServerWhoseDatabaseIsGoneIsNotReady() async throws {
        let baseURL = try #require(postgresURL)
        let database = "llvs_ready_\(UUID().uuidString.prefix(8).lowercased())"
        var components = try #require(URLComponents(string: baseURL))
        components.path = "/\(database)"
        let url = try #require(components.string)
        try await PostgresSyncStorage.execute(["CREATE DATABASE \(database)"], url: baseURL)
        let server = try await RunningServer(storage: try await PostgresSyncStorage(url: url)) {
            $0.storageCheckTimeout = SyncServerLimits.defaultStorageCheckTimeout
        }
        let (before, _) = try await RawClient().request(.GET, server.baseURL + SyncAPI.readyPath)
        #expect(before == 200)
        try await PostgresSyncStorage.execute(["DROP DATABASE \(database) WITH (FORCE)"], url: baseURL)
        for path in [SyncAPI.readyPath, SyncAPI.healthPath] {
            let started = ContinuousClock.now
            let (status, body) = try await RawClient().request(.GET, server.baseURL + path)
            #expect(status == 503, "\(path): \(String(decoding: body, as: UTF8.self))")
            #expect(String(decoding: body, as: UTF8.self).contains("storageUnavailable"), "\(path)")
            // Within the storage check's 2 s, not the minute a connection attempt can wait
            // (the bound leaves room for a loaded run).
            #expect(ContinuousClock.now - started < .seconds(30), "\(path) answered after \(ContinuousClock.now - started)")
        }
        await server.stop()
    }
}
