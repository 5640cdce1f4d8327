import Foundation
import LLVSCore
import LLVSExchange
import LLVSExchangeTesting
import LLVSStore
import LLVSSupport
import LLVSTesting
import LLVSZones
import Testing

/// The in-process exchange: the same algorithm over a shared space.
@Suite struct MemoryExchangeTests {
    func memoryStore() throws -> (TemporaryDirectory, Store) {
        let directory = try TemporaryDirectory()
        return (directory, try Store(rootDirectoryURL: directory.url, storage: MemoryStorage()))
    }

    /// A store holding a chain of `count` versions, each inserting one value of 100 bytes.
    func chainOfHundredByteVersions(_ count: Int) throws -> (TemporaryDirectory, Store) {
        let (directory, store) = try memoryStore()
        var tip: Version.ID?
        for step in 0..<count {
            tip = try store.makeVersion(basedOnPredecessor: tip, inserting: [Value(idString: "v\(step)", data: Data(count: 100))]).id
        }
        return (directory, store)
    }

    @Test func storesInOneProcessSyncThroughASpace() async throws {
        let space = MemoryExchangeSpace()
        let (_, a) = try memoryStore(), (_, b) = try memoryStore()
        let first = try a.makeVersion(basedOnPredecessor: nil, inserting: [Value(idString: "x", data: Data("1".utf8))])
        try a.makeVersion(basedOnPredecessor: first.id, updating: [Value(idString: "x", data: Data("2".utf8))])
        #expect(try await MemoryExchange(space: space, store: a).send().count == 2)
        #expect(space.versionCount == 2)
        let exchangeB = MemoryExchange(space: space, store: b)
        #expect(try await exchangeB.retrieve().count == 2)
        #expect(try b.value(idString: "x", at: try #require(b.mostRecentHead).id)?.data == Data("2".utf8))
        #expect(try await exchangeB.send().isEmpty, "b knows the space holds everything it has")
    }

    /// As in a shared directory, a version the space holds is never replaced: another
    /// record or other changes under its identifier are refused with a typed error, and
    /// nothing of that batch is added. Before, the space ignored them silently.
    @Test func aVersionTheSpaceHoldsIsNeverReplaced() async throws {
        let space = MemoryExchangeSpace()
        let (_, a) = try memoryStore()
        let version = try a.makeVersion(basedOnPredecessor: nil, inserting: [Value(idString: "x", data: Data("1".utf8))])
        let exchange = MemoryExchange(space: space, store: a)
        try await exchange.send()
        let changes = try a.valueChanges(madeInVersionIdentifiedBy: version.id)
        try await exchange.send(versionChanges: [(version, changes)])
        var later = version
        later.timestamp += 1
        let newcomer = Version(id: "newcomer", predecessors: .init(idOfFirst: version.id), timestamp: 5)
        for (record, recordChanges) in [(later, changes), (version, [Value.Change.update(Value(idString: "x", data: Data("2".utf8)))])] {
            let error = await #expect(throws: ExchangeError.self) {
                try await exchange.send(versionChanges: [(newcomer, []), (record, recordChanges)])
            }
            guard case .conflictingVersion(let id, _)? = error else {
                Issue.record("expected conflictingVersion, got \(String(describing: error))")
                continue
            }
            #expect(id == version.id)
        }
        #expect(space.versionCount == 1, "nothing of a refused batch is added")
        let (_, b) = try memoryStore()
        try await MemoryExchange(space: space, store: b).retrieve()
        #expect(b.version(identifiedBy: version.id)?.timestamp == version.timestamp)
        #expect(try b.value(idString: "x", at: version.id)?.data == Data("1".utf8))
    }

    /// A send reads each batch while the one before is being sent, yet sends one batch at a
    /// time, predecessors first, and the other side gets the whole history.
    @Test func batchesAreSentOneAtATimePredecessorsFirst() async throws {
        let space = MemoryExchangeSpace()
        let (_, a) = try memoryStore(), (_, b) = try memoryStore()
        var heads: [Version.ID] = []
        var head = try a.makeVersion(basedOnPredecessor: nil, inserting: [Value(idString: "root", data: Data("0".utf8))]).id
        for branch in 0..<3 {
            var tip = head
            for step in 0..<8 {
                tip = try a.makeVersion(basedOnPredecessor: tip, inserting: [Value(idString: "b\(branch)-\(step)", data: Data(count: 100))]).id
            }
            heads.append(tip)
        }
        head = try a.makeVersion(basedOn: .init(idOfFirst: heads[0], idOfSecond: heads[1]), storing: []).id
        let sender = FaultyExchange(MemoryExchange(space: space, store: a), maximumBatchByteCount: 150)
        let sent = try await sender.send()
        #expect(sent.count == 26, "the root, three branches of 8 and a merge")
        #expect(sender.sentBatches.count >= 20, "batches of at most 150 bytes of 100-byte versions")
        #expect(sender.mostSendsInFlight == 1)
        #expect(sender.sentBatches.flatMap { $0 } == sent)
        var before: Set<Version.ID> = []
        for id in sent {
            let version = try #require(a.version(identifiedBy: id))
            #expect(version.predecessorIds.allSatisfy(before.contains), "\(id) was sent before a predecessor")
            before.insert(id)
        }
        #expect(try await MemoryExchange(space: space, store: b).retrieve().count == 26)
        #expect(try b.valueReferences(at: head).count == a.valueReferences(at: head).count)
    }

    /// A send reads and sends batches of the send batch size; a retrieve adds batches of the
    /// (larger) maximum.
    @Test func sendsUseTheSendBatchSizeAndRetrievesTheMaximum() async throws {
        let space = MemoryExchangeSpace()
        let (_, a) = try chainOfHundredByteVersions(12), (_, b) = try memoryStore()
        let sender = FaultyExchange(MemoryExchange(space: space, store: a), maximumBatchByteCount: 5_000, sendBatchByteCount: 250)
        #expect(try await sender.send().count == 12)
        #expect(sender.sentBatches.map(\.count) == [2, 2, 2, 2, 2, 2], "at most 250 bytes of 100-byte versions a batch")
        let receiver = FaultyExchange(MemoryExchange(space: space, store: b), maximumBatchByteCount: 5_000, sendBatchByteCount: 250)
        #expect(try await receiver.retrieve().count == 12)
        #expect(receiver.callCount("retrieveValueChanges") == 1, "1,200 bytes fit one batch of 5,000")
        // A send batch larger than the maximum is held to the maximum.
        let (_, c) = try memoryStore()
        let capped = FaultyExchange(MemoryExchange(space: MemoryExchangeSpace(), store: c), maximumBatchByteCount: 250, sendBatchByteCount: 5_000)
        try await MemoryExchange(space: space, store: c).retrieve()
        #expect(try await capped.send().count == 12)
        #expect(capped.sentBatches.map(\.count) == [2, 2, 2, 2, 2, 2])
    }

    /// A send's batches grow from the first batch size, doubling, to the send batch size,
    /// and shrink back to it at the end, each within half as much again as the one after it;
    /// every version goes once, in order.
    @Test func sendBatchesGrowFromTheFirstBatchSize() async throws {
        let space = MemoryExchangeSpace()
        let (_, a) = try chainOfHundredByteVersions(20), (_, b) = try memoryStore()
        let sender = FaultyExchange(MemoryExchange(space: space, store: a), maximumBatchByteCount: 5_000, sendBatchByteCount: 800,
                                    firstSendBatchByteCount: 100)
        let sent = try await sender.send()
        #expect(sender.sentBatches.map(\.count) == [1, 2, 4, 3, 3, 3, 2, 1, 1],
                "100, 200 and 400 bytes growing; 300, 200, 100 and 100 bytes shrinking (within 337, 225, 150 and 100); the 600 bytes between in two batches within 505")
        #expect(Array(sender.sentBatches.joined()) == sent)
        #expect(try await MemoryExchange(space: space, store: b).retrieve().count == 20)
        // A first size above the send batch size is held to it.
        let (_, c) = try memoryStore()
        let held = FaultyExchange(MemoryExchange(space: MemoryExchangeSpace(), store: c), maximumBatchByteCount: 5_000, sendBatchByteCount: 250,
                                  firstSendBatchByteCount: 10_000)
        try await MemoryExchange(space: space, store: c).retrieve()
        #expect(try await held.send().count == 20)
        #expect(held.sentBatches.map(\.count) == Array(repeating: 2, count: 10))
    }

    /// For an exchange that prefers few batches, a send still reads and prepares parts that
    /// grow from the first size (each prepared while the next is read), and joins
    /// consecutive parts into batches within the exchange's maximum, each part keeping its
    /// own work, in order; every version goes once, in order.
    @Test func aSendJoinsThePartsOfAnExchangeThatPrefersFewBatches() async throws {
        let space = MemoryExchangeSpace()
        let (_, a) = try chainOfHundredByteVersions(20), (_, b) = try memoryStore()
        let probe = PartsProbe(MemoryExchange(space: space, store: a))
        let joining = FaultyExchange(probe)
        #expect(joining.prefersFewBatches && joining.maximumBatchByteCount == 600)
        let sent = try await joining.send()
        #expect(joining.callCount("prepare") == 12,
                "1 and 2 versions growing (within 100 and 200 bytes), 2, 1 and 1 shrinking (225, 150, 100), the 13 between in 7 parts within 250")
        #expect(probe.sentParts.withLock { $0 } == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]],
                "consecutive parts joined while within 600 bytes")
        #expect(joining.sentBatches.map(\.count) == [5, 6, 5, 4])
        #expect(joining.mostSendsInFlight == 1)
        #expect(Array(joining.sentBatches.joined()) == sent && sent.count == 20)
        #expect(try await MemoryExchange(space: space, store: b).retrieve().count == 20)
        // A part that fails to prepare stops the send; the batches sent before it stay, and
        // the next send completes what is left.
        let (_, c) = try chainOfHundredByteVersions(20), (_, d) = try memoryStore()
        let interrupted = MemoryExchangeSpace()
        let failing = FaultyExchange(PartsProbe(MemoryExchange(space: interrupted, store: c)), failing: ("prepare", 9))
        await #expect(throws: InjectedFault.self) { try await failing.send() }
        #expect(failing.sentBatches.first?.count == 5, "the first batch (parts 0-2) was sent before part 8 failed")
        #expect(try await PartsProbe(MemoryExchange(space: interrupted, store: c)).send().count <= 15, "the first batch is not sent again")
        #expect(try await MemoryExchange(space: interrupted, store: d).retrieve().count == 20)
        // Joined batches flatten: a batch joining a joined batch and a part has three parts.
        let part = PreparedBatch(versionChanges: [], work: 1)
        #expect(PreparedBatch(joining: [PreparedBatch(joining: [part, part]), part]).joinedWork.count == 3)
    }

    /// Each version of a send counts `sendBatchBytesPerVersion` bytes beside its value data:
    /// 100-byte versions counted 400 bytes more go two to a batch of 1,000 bytes. By default
    /// a version counts its value data alone, and the twelve go in two equal batches.
    @Test func sendBatchesCountTheBytesPerVersion() async throws {
        let space = MemoryExchangeSpace()
        let (_, a) = try chainOfHundredByteVersions(12)
        #expect(MemoryExchange(space: space, store: a).sendBatchBytesPerVersion == 0)
        let counted = FaultyExchange(MemoryExchange(space: space, store: a), maximumBatchByteCount: 5_000, sendBatchByteCount: 1_000,
                                     sendBatchBytesPerVersion: 400)
        let sent = try await counted.send()
        #expect(counted.sentBatches.map(\.count) == [2, 2, 2, 2, 2, 2], "500 bytes a version within 1,000")
        #expect(Array(counted.sentBatches.joined()) == sent && sent.count == 12)
        let (_, b) = try chainOfHundredByteVersions(12)
        let uncounted = FaultyExchange(MemoryExchange(space: MemoryExchangeSpace(), store: b), maximumBatchByteCount: 5_000, sendBatchByteCount: 1_000)
        #expect(try await uncounted.send().count == 12)
        #expect(uncounted.sentBatches.map(\.count) == [6, 6])
        // A count near Int.max holds each version to a batch of its own, without overflow.
        let (_, c) = try chainOfHundredByteVersions(3)
        let huge = FaultyExchange(MemoryExchange(space: MemoryExchangeSpace(), store: c), maximumBatchByteCount: 5_000, sendBatchByteCount: 1_000,
                                  sendBatchBytesPerVersion: .max)
        #expect(try await huge.send().count == 3)
        #expect(huge.sentBatches.map(\.count) == [1, 1, 1])
        // A negative count (an exchange's mistake) counts as none: batches of value data alone.
        let (_, d) = try chainOfHundredByteVersions(12)
        let negative = FaultyExchange(MemoryExchange(space: MemoryExchangeSpace(), store: d), maximumBatchByteCount: 5_000, sendBatchByteCount: 1_000,
                                      sendBatchBytesPerVersion: -400)
        #expect(try await negative.send().count == 12)
        #expect(negative.sentBatches.map(\.count) == [6, 6])
    }

    /// A retrieve's batches grow from the first retrieve batch size, doubling, to the
    /// maximum; every version is added once, each after its predecessor. By default a
    /// retrieve's batches are alike.
    @Test func retrieveBatchesGrowFromTheFirstBatchSize() async throws {
        let space = MemoryExchangeSpace()
        let (_, a) = try chainOfHundredByteVersions(20), (_, b) = try memoryStore()
        let sent = try await MemoryExchange(space: space, store: a).send()
        #expect(MemoryExchange(space: space, store: b).firstRetrieveBatchByteCount == MemoryExchange(space: space, store: b).maximumBatchByteCount)
        let receiver = FaultyExchange(MemoryExchange(space: space, store: b), maximumBatchByteCount: 800, firstRetrieveBatchByteCount: 100)
        let added = try await receiver.retrieve()
        // 100, 200 and 400 bytes of 100-byte versions, then the 13 left in two runs within 800.
        #expect(receiver.retrievedBatches.map(\.count) == [1, 2, 4, 7, 6])
        #expect(Array(receiver.retrievedBatches.joined()) == added)
        #expect(Set(added) == Set(sent) && added.count == 20)
        // Without a first size, batches of up to 800 bytes from the start.
        let (_, c) = try memoryStore()
        let alike = FaultyExchange(MemoryExchange(space: space, store: c), maximumBatchByteCount: 800)
        #expect(try await alike.retrieve().count == 20)
        #expect(alike.retrievedBatches.map(\.count) == [7, 7, 6])
    }

    /// A send prepares each batch while the one before it is being sent: here the sending of
    /// a batch waits until the next batch is prepared, which a send preparing only after
    /// sending never does (the wait times out, and the order of events differs).
    @Test func aSendPreparesTheNextBatchWhileOneIsSent() async throws {
        let space = MemoryExchangeSpace()
        let (_, a) = try chainOfHundredByteVersions(8), (_, b) = try memoryStore()
        let probe = PipelineProbe(MemoryExchange(space: space, store: a), batchCount: 4)
        #expect(try await probe.send().count == 8)
        #expect(probe.state.withLock { $0.events } == ["prepare 0", "prepare 1", "sent 0", "prepare 2", "sent 1", "prepare 3", "sent 2", "sent 3"])
        #expect(probe.state.withLock { $0.timedOut } == 0)
        #expect(try await MemoryExchange(space: space, store: b).retrieve().count == 8)
    }

    @Test func listenersHearOfVersionsTheirStoreLacks() async throws {
        let space = MemoryExchangeSpace()
        let (_, a) = try memoryStore(), (_, b) = try memoryStore()
        let watcher = MemoryExchange(space: space, store: b)
        var signals = watcher.newVersionsAvailable.makeAsyncIterator()
        try a.makeVersion(basedOnPredecessor: nil, inserting: [Value(idString: "x", data: Data("1".utf8))])
        try await MemoryExchange(space: space, store: a).send()
        let signal: Void? = await signals.next()
        #expect(signal != nil)
        #expect(try await watcher.retrieve().count == 1)
    }

    @Test func aCursorFromAnotherSpaceRestartsTheListing() async throws {
        let (_, a) = try memoryStore()
        try a.makeVersion(basedOnPredecessor: nil, inserting: [Value(idString: "x", data: Data("1".utf8))])
        let first = MemoryExchange(space: MemoryExchangeSpace(), store: a)
        try await first.send()
        let page = try await first.retrieveVersionIdentifiers(after: nil)
        let other = MemoryExchange(space: MemoryExchangeSpace(), store: a)
        let restarted = try await other.retrieveVersionIdentifiers(after: page.cursor)
        #expect(restarted.isCompleteListing)
        #expect(restarted.versionIds.isEmpty)
        // The exchange state carried over from the first space does not stop a full send.
        other.restorationState = first.restorationState
        #expect(try await other.send().count == 1)
    }
}

/// An exchange in front of another whose send of batch k waits (up to 10 s) until batch
/// k + 1 is prepared, recording the order of preparations and sends; batches of 250 bytes.
final class PipelineProbe: ForwardingExchange {
    let inner: any Exchange
    let batchCount: Int
    let state = Locked((events: [String](), prepared: 0, timedOut: 0))

    init(_ inner: any Exchange, batchCount: Int) {
        self.inner = inner
        self.batchCount = batchCount
    }

    var sendBatchByteCount: Int { 250 }

    func prepare(forSending versionChanges: [VersionChanges]) throws -> PreparedBatch {
        let number = state.withLock { state in
            state.events.append("prepare \(state.prepared)")
            state.prepared += 1
            return state.prepared - 1
        }
        return PreparedBatch(versionChanges: versionChanges, work: number)
    }

    func send(prepared batch: PreparedBatch) async throws {
        let number = batch.work as? Int ?? -1
        let deadline = ContinuousClock.now + .seconds(10)
        while number + 1 < batchCount, state.withLock({ $0.prepared }) <= number + 1 {
            guard ContinuousClock.now < deadline else {
                state.withLock { $0.timedOut += 1 }
                break
            }
            try await Task.sleep(for: .milliseconds(1))
        }
        try await inner.send(versionChanges: batch.versionChanges)
        state.withLock { $0.events.append("sent \(number)") }
    }
}

/// An exchange preferring few batches, with batches of at most 600 bytes read and prepared in
/// parts growing from 100 to 250 bytes, each part's work its number; records the part
/// numbers of each batch sent.
final class PartsProbe: ForwardingExchange {
    let inner: any Exchange
    let prepared = Locked(0)
    let sentParts = Locked([[Int]]())

    init(_ inner: any Exchange) {
        self.inner = inner
    }

    var maximumBatchByteCount: Int { 600 }
    var sendBatchByteCount: Int { 250 }
    var firstSendBatchByteCount: Int { 100 }
    var prefersFewBatches: Bool { true }

    func prepare(forSending versionChanges: [VersionChanges]) throws -> PreparedBatch {
        let number = prepared.withLock { count in
            count += 1
            return count - 1
        }
        return PreparedBatch(versionChanges: versionChanges, work: number)
    }

    func send(prepared batch: PreparedBatch) async throws {
        let work = batch.joinedWork.isEmpty ? [batch.work] : batch.joinedWork
        sentParts.withLock { $0.append(work.map { $0 as? Int ?? -1 }) }
        try await inner.send(prepared: batch)
    }
}
