import Foundation
import LLVSCoordinator
import LLVSCore
import LLVSExchange
import LLVSStore
import LLVSSupport
import LLVSTesting
import Testing

/// Coordinators syncing through a shared directory: the TheMessage flow of the Quick Start.
@Suite struct CoordinatorSyncTests {
    @Test func aMessagePostedOnOneReplicaIsReadOnTheOther() async throws {
        let shared = try TemporaryDirectory(prefix: "llvs-coordinator-shared")
        let a = try SyncedReplica("a", sharedDirectory: shared.url)
        let b = try SyncedReplica("b", sharedDirectory: shared.url)

        try a.post("Hello from A")
        try await a.sync()
        #expect(try b.text() == nil)
        try await b.sync()
        #expect(try b.text() == "Hello from A")
        #expect(b.coordinator.currentVersion == a.coordinator.currentVersion, "B fast-forwarded to A's version")

        try b.post("Reply from B")
        try await b.sync()
        try await a.sync()
        #expect(try a.text() == "Reply from B")
    }

    @Test func concurrentPostsConvergeToOneValueAndOneHead() async throws {
        let shared = try TemporaryDirectory(prefix: "llvs-coordinator-shared")
        let a = try SyncedReplica("a", sharedDirectory: shared.url)
        let b = try SyncedReplica("b", sharedDirectory: shared.url)
        try a.post("first")
        try await a.sync()
        try await b.sync()

        // Both post before seeing each other's post.
        try a.post("A's post")
        try a.post("only A", key: "A-ONLY")
        try b.post("B's post")
        try b.post("only B", key: "B-ONLY")
        try await a.sync()
        try await b.sync()
        try await a.sync()
        try await b.sync()

        #expect(try a.texts() == b.texts())
        #expect(try a.texts()["A-ONLY"] == "only A")
        #expect(try a.texts()["B-ONLY"] == "only B")
        #expect(try ["A's post", "B's post"].contains(a.text()))
        #expect(a.coordinator.currentVersion == b.coordinator.currentVersion)
        #expect(a.coordinator.store.queryHistory { $0.headIdentifiers } == [a.coordinator.currentVersion])
        #expect(b.coordinator.store.queryHistory { $0.headIdentifiers } == [b.coordinator.currentVersion])
        #expect(versionIds(of: a.coordinator.store) == versionIds(of: b.coordinator.store))
    }

    /// Alternating `exchange()` then `merge()` keeps making merge versions (each replica
    /// merges a head the other has not seen); `sync()` sends its merge at once, so the
    /// replicas settle on one head.
    @Test func alternatingSyncsSettleOnOneHead() async throws {
        let shared = try TemporaryDirectory(prefix: "llvs-coordinator-shared")
        let a = try SyncedReplica("a", sharedDirectory: shared.url)
        let b = try SyncedReplica("b", sharedDirectory: shared.url)
        try b.post("b1")
        try await b.coordinator.exchange()
        try a.post("a1")
        try b.post("b2")
        for _ in 0..<2 {
            try await a.coordinator.sync()
            try await b.coordinator.sync()
        }
        let settled = versionIds(of: a.coordinator.store)
        try await a.coordinator.sync()
        try await b.coordinator.sync()
        #expect(versionIds(of: a.coordinator.store) == settled, "no new merge versions once settled")
        #expect(versionIds(of: b.coordinator.store) == settled)
        #expect(a.coordinator.currentVersion == b.coordinator.currentVersion)
        #expect(a.coordinator.store.queryHistory { $0.headIdentifiers } == [a.coordinator.currentVersion])
    }

    /// Each replica names itself in the metadata of its saves, and the two sync in
    /// lockstep: both exchange until each holds the other's versions, then both merge.
    /// Merges carry no metadata, so both make the same merge and they settle on it. With
    /// each replica's default metadata in its merges (and so in their ids), they made two
    /// different merges every round and never settled.
    @Test func replicasWithDifferentDefaultMetadataSettleOnOneHead() async throws {
        let shared = try TemporaryDirectory(prefix: "llvs-coordinator-shared")
        let a = try SyncedReplica("a", sharedDirectory: shared.url)
        let b = try SyncedReplica("b", sharedDirectory: shared.url)
        let laptop = try Version.MetadataValue("laptop"), phone = try Version.MetadataValue("phone")
        a.coordinator.defaultMetadataForNewVersions = ["device": laptop]
        b.coordinator.defaultMetadataForNewVersions = ["device": phone]
        try a.post("a1")
        try b.post("b1")
        func lockstepRound() async throws {
            try await a.coordinator.exchange()
            try await b.coordinator.exchange()
            try await a.coordinator.exchange()
            try a.coordinator.performMerge()
            try b.coordinator.performMerge()
        }
        for _ in 0..<4 { try await lockstepRound() }
        let settled = versionIds(of: a.coordinator.store)
        try await lockstepRound()
        #expect(versionIds(of: a.coordinator.store) == settled, "no new merge versions once settled")
        #expect(versionIds(of: b.coordinator.store) == settled)
        #expect(a.coordinator.currentVersion == b.coordinator.currentVersion)
        #expect(a.coordinator.store.queryHistory { $0.headIdentifiers } == [a.coordinator.currentVersion])
        let versions = try settled.map { try #require(a.coordinator.store.version(identifiedBy: $0)) }
        #expect(versions.filter { $0.predecessors?.idOfSecond != nil }.allSatisfy { $0.metadata.isEmpty }, "merges carry no metadata")
        #expect(Set(versions.compactMap { $0.metadata["device"] }) == [laptop, phone], "saves carry their replica's")
    }

    @Test func theCompletionHandlerFormCallsBack() async throws {
        let shared = try TemporaryDirectory(prefix: "llvs-coordinator-shared")
        let a = try SyncedReplica("a", sharedDirectory: shared.url)
        let b = try SyncedReplica("b", sharedDirectory: shared.url)
        try a.post("via callbacks")
        let coordinatorA = a.coordinator, coordinatorB = b.coordinator
        let errorA: (any Error)? = await withCheckedContinuation { continuation in
            coordinatorA.exchange { error in continuation.resume(returning: error) }
        }
        #expect(errorA == nil)
        // The Quick Start's sync(): exchange, then merge in the completion handler.
        let merged: Bool = await withCheckedContinuation { continuation in
            coordinatorB.exchange { _ in continuation.resume(returning: coordinatorB.merge()) }
        }
        #expect(merged)
        #expect(try b.text() == "via callbacks")

        // Without an exchange the handler is called at once, without an error.
        let directories = try CoordinatorDirectories("alone")
        let alone = try directories.makeCoordinator()
        let errorAlone: (any Error)? = await withCheckedContinuation { continuation in
            alone.exchange { error in continuation.resume(returning: error) }
        }
        #expect(errorAlone == nil)
        // A call without a handler still exchanges.
        try a.post("no handler")
        coordinatorA.exchange(executingUponCompletion: nil)
        #expect(try await eventually { try await coordinatorB.exchange(); coordinatorB.merge(); return try b.text() == "no handler" })
    }

    @Test func anExchangeErrorReachesTheCaller() async throws {
        let shared = try TemporaryDirectory(prefix: "llvs-coordinator-shared")
        let a = try SyncedReplica("a", sharedDirectory: shared.url)
        try a.post("x")
        // A marker of an unknown format makes every exchange fail.
        try Data(#"{"format":"llvs-file-exchange","formatVersion":99,"identifier":"X"}"#.utf8)
            .write(to: shared.url.appendingPathComponent("llvs-exchange.json"))
        await #expect(throws: ExchangeError.self) { try await a.coordinator.exchange() }
        let coordinator = a.coordinator
        let error: (any Error)? = await withCheckedContinuation { continuation in
            coordinator.exchange { continuation.resume(returning: $0) }
        }
        #expect(error is ExchangeError)
    }

    @Test func concurrentExchangesRunOneAtATime() async throws {
        let shared = try TemporaryDirectory(prefix: "llvs-coordinator-shared")
        let directories = try CoordinatorDirectories("a")
        let coordinator = try directories.makeCoordinator()
        let inner = FileSystemExchange(rootDirectoryURL: shared.url, store: coordinator.store)
        let recording = RecordingExchange(inner)
        coordinator.exchange = recording
        for index in 0..<5 { try coordinator.save(updating: [textValue("K\(index)", "\(index)")]) }

        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<6 {
                group.addTask {
                    try coordinator.save(updating: [textValue("T\(index)", "\(index)")])
                    try await coordinator.exchange()
                }
            }
            try await group.waitForAll()
        }
        let events = recording.recordedEvents
        #expect(events.count == 12)
        #expect(events == Array(repeating: ["retrieve", "send"], count: 6).flatMap { $0 }, "exchanges never overlap")
        let listed = try await inner.retrieveAllVersionIdentifiers()
        #expect(listed.count == Set(listed).count, "no version was sent twice")
        #expect(Set(listed) == versionIds(of: coordinator.store))
    }

    @Test func completionHandlerExchangesAreServedInCallOrder() async throws {
        let shared = try TemporaryDirectory(prefix: "llvs-coordinator-shared")
        let a = try SyncedReplica("a", sharedDirectory: shared.url)
        let order = Locked([Int]())
        let coordinator = a.coordinator
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            for index in 0..<5 {
                coordinator.exchange { _ in
                    let finished = order.withLock { order in
                        order.append(index)
                        return order.count == 5
                    }
                    if finished { done.resume() }
                }
            }
        }
        #expect(order.withLock { $0 } == [0, 1, 2, 3, 4])
    }
}
