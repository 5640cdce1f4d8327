import Foundation
import LLVSCore
import LLVSExchange
import LLVSExchangeTesting
import LLVSMerge
import LLVSStore
import LLVSSupport
import LLVSTesting
import Testing

/// Stores converging through a shared directory.
@Suite struct FileSystemExchangeSyncTests {
    /// Sends and retrieves through `exchange`.
    func sync(_ exchange: some Exchange) async throws {
        try await exchange.retrieve()
        try await exchange.send()
    }

    @Test(arguments: backendsAndFormats)
    func twoStoresConvergeWithConcurrentEdits(backend: Backend, format: DirectoryFormat) async throws {
        let shared = try makeSharedDirectory(format)
        let a = try Replica("a", backend: backend), b = try Replica("b", backend: backend)
        let exchangeA = FileSystemExchange(rootDirectoryURL: shared.url, store: a.store)
        let exchangeB = FileSystemExchange(rootDirectoryURL: shared.url, store: b.store)

        try a.save(["title": "draft", "body": "hello"])
        try await sync(exchangeA)
        try await sync(exchangeB)
        #expect(try b.texts() == ["title": "draft", "body": "hello"])

        // Concurrent edits: the same value on both sides, and different values.
        try a.save(["title": "A's title", "a-only": "1"])
        try b.save(["title": "B's title", "b-only": "2"])
        try await sync(exchangeA)
        try await sync(exchangeB)
        try await sync(exchangeA)
        #expect(a.versionIds == b.versionIds)
        #expect(a.heads.count == 2)

        let arbiter = MostRecentChangeFavoringArbiter()
        let mergedA = try a.store.mergeHeads(into: try #require(a.store.mostRecentHead).id, resolvingWith: arbiter)
        let mergedB = try b.store.mergeHeads(into: try #require(b.store.mostRecentHead).id, resolvingWith: arbiter)
        #expect(mergedA?.id == mergedB?.id, "identical merge version on both replicas")
        #expect(try a.texts() == b.texts())
        #expect(try a.texts()["a-only"] == "1")
        #expect(try a.texts()["b-only"] == "2")
        // Both send the same merge: it is stored once and nothing more is left to send.
        try await sync(exchangeA)
        try await sync(exchangeB)
        #expect(try await exchangeA.send().isEmpty)
        #expect(try await exchangeB.retrieve().isEmpty)
        #expect(a.heads == b.heads && a.heads.count == 1)
    }

    @Test(arguments: backendsAndFormats)
    func threeStoresConvergeThroughOneDirectory(backend: Backend, format: DirectoryFormat) async throws {
        let shared = try makeSharedDirectory(format)
        let replicas = try (0..<3).map { try Replica("r\($0)", backend: backend) }
        let exchanges = replicas.map { FileSystemExchange(rootDirectoryURL: shared.url, store: $0.store) }
        for round in 0..<4 {
            // Every replica edits concurrently, then each syncs in turn.
            for (index, replica) in replicas.enumerated() {
                try replica.save(["shared": "r\(index) round \(round)", "r\(index)": "\(round)"])
            }
            for exchange in exchanges { try await sync(exchange) }
            for exchange in exchanges { try await sync(exchange) }
            let arbiter = MostRecentChangeFavoringArbiter()
            for replica in replicas {
                try replica.store.mergeHeads(into: try #require(replica.store.mostRecentHead).id, resolvingWith: arbiter)
            }
        }
        for exchange in exchanges { try await sync(exchange) }
        let first = replicas[0]
        for replica in replicas.dropFirst() {
            #expect(replica.versionIds == first.versionIds)
            #expect(try replica.texts() == first.texts())
        }
        #expect(first.heads.count == 1, "merges with a deterministic arbiter converge to one head")
        #expect(try first.texts()["r2"] == "3")
    }

    @Test(arguments: DirectoryFormat.allCases)
    func concurrentSendersFromSeveralTasksLoseNothing(format: DirectoryFormat) async throws {
        let shared = try makeSharedDirectory(format)
        let replicas = try (0..<4).map { try Replica("c\($0)") }
        for (index, replica) in replicas.enumerated() {
            for step in 0..<15 { try replica.save(["k\(step % 3)": "r\(index)-\(step)"]) }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for replica in replicas {
                group.addTask { try await FileSystemExchange(rootDirectoryURL: shared.url, store: replica.store).send() }
            }
            try await group.waitForAll()
        }
        let reader = try Replica("reader")
        try await FileSystemExchange(rootDirectoryURL: shared.url, store: reader.store).retrieve()
        #expect(reader.versionIds == replicas.reduce(Set()) { $0.union($1.versionIds) })
        #expect(reader.versionIds.count == 60)
    }

    @Test(arguments: DirectoryFormat.allCases)
    func theSecondRetrieveReadsOnlyWhatIsNew(format: DirectoryFormat) async throws {
        let shared = try makeSharedDirectory(format)
        let a = try Replica("a"), b = try Replica("b")
        let sender = FileSystemExchange(rootDirectoryURL: shared.url, store: a.store)
        for step in 0..<20 { try a.save(["v": "\(step)"]) }
        try await sender.send()
        let receiver = FaultyExchange(FileSystemExchange(rootDirectoryURL: shared.url, store: b.store))
        #expect(try await receiver.retrieve().count == 20)

        try a.save(["v": "new"])
        try await sender.send()
        let state = try #require(receiver.restorationState)
        let cursor = try #require(try JSONDecoder().decode(CursorProbe.self, from: state).cursor)
        let page = try await receiver.inner.retrieveVersionIdentifiers(after: cursor)
        #expect(page.versionIds.count == 1 && !page.isCompleteListing, "only the version sent since")
        #expect(try await receiver.retrieve().count == 1)
        #expect(receiver.callCount("retrieveAllVersionIdentifiers") == 0, "never lists everything")

        // The sender knows what the directory holds: nothing to send, no listing needed.
        #expect(try await sender.send().isEmpty)
    }

    @Test(arguments: DirectoryFormat.allCases)
    func progressCountsVersionsAndBytes(format: DirectoryFormat) async throws {
        let shared = try makeSharedDirectory(format)
        let a = try Replica("a"), b = try Replica("b")
        for step in 0..<30 { try a.save(["value-\(step)": String(repeating: "x", count: 1_000)]) }
        let reports = Locked([ExchangeProgress]())
        let sender = FaultyExchange(FileSystemExchange(rootDirectoryURL: shared.url, store: a.store), maximumBatchByteCount: 4_000)
        try await sender.send { report in reports.withLock { $0.append(report) } }
        let sent = reports.withLock { $0 }
        #expect(sent.first?.completedVersionCount == 0)
        #expect(sent.last == ExchangeProgress(direction: .send, completedVersionCount: 30, totalVersionCount: 30,
                                              completedByteCount: 30_000, totalByteCount: 30_000))
        #expect(sender.callCount("send") == 8, "batches of at most 4,000 bytes: 4 versions each")
        #expect(zip(sent, sent.dropFirst()).allSatisfy { $0.completedVersionCount <= $1.completedVersionCount })

        let retrieved = Locked([ExchangeProgress]())
        let receiver = FaultyExchange(FileSystemExchange(rootDirectoryURL: shared.url, store: b.store), maximumBatchByteCount: 10_000)
        try await receiver.retrieve { report in retrieved.withLock { $0.append(report) } }
        #expect(retrieved.withLock { $0.last?.completedByteCount } == 30_000)
        #expect(receiver.callCount("retrieveValueChanges") == 3)
    }

    @Test(arguments: DirectoryFormat.allCases)
    func completionHandlerFormsDeliverResults(format: DirectoryFormat) async throws {
        let shared = try makeSharedDirectory(format)
        let a = try Replica("a"), b = try Replica("b")
        try a.save(["x": "1"])
        let sender = FileSystemExchange(rootDirectoryURL: shared.url, store: a.store)
        let sent: [Version.ID] = try await withCheckedThrowingContinuation { continuation in
            sender.send { continuation.resume(with: $0) }
        }
        #expect(sent.count == 1)
        let receiver = FileSystemExchange(rootDirectoryURL: shared.url, store: b.store)
        let retrieved: [Version.ID] = try await withCheckedThrowingContinuation { continuation in
            receiver.retrieve { continuation.resume(with: $0) }
        }
        #expect(retrieved == sent)
        let ids: [Version.ID] = try await withCheckedThrowingContinuation { continuation in
            receiver.retrieveAllVersionIdentifiers { continuation.resume(with: $0) }
        }
        #expect(ids == sent)
    }

    @Test(arguments: DirectoryFormat.allCases)
    func newVersionsAvailableYieldsWhenAnotherStoreSends(format: DirectoryFormat) async throws {
        let shared = try makeSharedDirectory(format)
        let a = try Replica("a"), b = try Replica("b")
        let watcher = FileSystemExchange(rootDirectoryURL: shared.url, store: b.store, pollingInterval: .milliseconds(20))
        try await watcher.prepareToRetrieve()
        let signals = watcher.newVersionsAvailable
        try a.save(["x": "1"])
        try await FileSystemExchange(rootDirectoryURL: shared.url, store: a.store).send()
        var iterator = signals.makeAsyncIterator()
        let signal: Void? = await iterator.next()
        #expect(signal != nil)
        try await watcher.retrieve()
        #expect(b.versionIds == a.versionIds)
    }

    /// Decodes the exchange's restoration state far enough to reach its cursor.
    struct CursorProbe: Decodable {
        var cursor: ExchangeCursor?
    }
}
