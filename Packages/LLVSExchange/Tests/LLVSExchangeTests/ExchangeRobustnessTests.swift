import Foundation
import LLVSCore
import LLVSExchange
import LLVSExchangeTesting
import LLVSStore
import LLVSSupport
import LLVSTesting
import LLVSZones
import Testing

/// Interrupted transfers, out-of-order arrival and damaged files in the shared directory.
@Suite struct ExchangeRobustnessTests {
    /// A store with a linear history of `count` versions and one branch off the middle.
    func storeWithHistory(_ count: Int, backend: Backend = .file) throws -> Replica {
        let replica = try Replica("source", backend: backend)
        var versions: [Version] = []
        for step in 0..<count { versions.append(try replica.save(["k\(step % 4)": "value \(step)"])) }
        try replica.save(["side": "branch"], basedOn: versions[count / 2].id)
        return replica
    }

    /// Files of a logged version are immutable: another record or other changes under the
    /// same identifier are refused with a typed error and leave the files as they were, so
    /// a reader never sees one version's record beside another's changes. Before, the
    /// second sender's files silently replaced the first's. The same bytes again are a
    /// no-op.
    /// Declared value data sizes come from the other side and may be any 64-bit number:
    /// summed for batches and progress, they saturate instead of trapping, and the
    /// versions arrive (a store adds a version whatever size it declares).
    @Test func declaredSizesNearInt64MaxAreBatchedWithoutOverflow() async throws {
        let space = MemoryExchangeSpace()
        let source = try Store(rootDirectoryURL: try TemporaryDirectory().url, storage: MemoryStorage())
        var previous: Version.ID?
        var sent: [VersionChanges] = []
        for index in 0..<3 {
            let version = Version(id: Version.ID("huge-\(index)"), predecessors: previous.map { .init(idOfFirst: $0) },
                                  timestamp: Double(index), valueDataSize: .max - Int64(index))
            sent.append((version: version, valueChanges: [.insert(Value(idString: "k\(index)", data: Data("v".utf8)))]))
            previous = version.id
        }
        try await MemoryExchange(space: space, store: source).send(versionChanges: sent)
        let target = try Store(rootDirectoryURL: try TemporaryDirectory().url, storage: MemoryStorage())
        let last = Locked<ExchangeProgress?>(nil)
        let added = try await MemoryExchange(space: space, store: target).retrieve { report in last.withLock { $0 = report } }
        #expect(Set(added) == ["huge-0", "huge-1", "huge-2"])
        let report = try #require(last.withLock { $0 })
        #expect(report.totalByteCount == .max && report.completedByteCount == .max)
    }

    /// A listing handed to the retrieve in parts (one identifier each, in listing order or
    /// reversed, so predecessors often come in later parts) adds what a single part adds:
    /// every version that can be placed, predecessors first, and the same
    /// `missingPredecessors` report for a version whose predecessor is nowhere and for the
    /// version that depends on it.
    @Test(arguments: [nil, 1, 2], [false, true])
    func aListingInPartsAddsWhatOnePartAdds(partCount: Int?, reversed: Bool) async throws {
        let space = MemoryExchangeSpace()
        let source = try Store(rootDirectoryURL: try TemporaryDirectory().url, storage: MemoryStorage())
        func version(_ id: String, _ predecessors: [String], _ timestamp: Double) -> VersionChanges {
            let predecessors = predecessors.isEmpty ? nil
                : Version.Predecessors(idOfFirst: Version.ID(predecessors[0]), idOfSecond: predecessors.count > 1 ? Version.ID(predecessors[1]) : nil)
            return (Version(id: Version.ID(id), predecessors: predecessors, timestamp: timestamp), [.insert(Value(idString: id, data: Data(id.utf8)))])
        }
        // root ← a ← b, root ← c; b + c ← merge; "orphan" waits for "absent", "late" for "orphan".
        let sent = [version("root", [], 1), version("a", ["root"], 2), version("b", ["a"], 3), version("c", ["root"], 4),
                    version("merge", ["b", "c"], 5), version("orphan", ["absent"], 6), version("late", ["orphan"], 7)]
        try await MemoryExchange(space: space, store: source).send(versionChanges: sent)
        let target = try Store(rootDirectoryURL: try TemporaryDirectory().url, storage: MemoryStorage())
        let exchange = FaultyExchange(MemoryExchange(space: space, store: target), reverseListing: reversed, listingPartCount: partCount)
        let reports = Locked<[ExchangeProgress]>([])
        await #expect(throws: ExchangeError.missingPredecessors(["orphan": ["absent"], "late": ["orphan"]])) {
            try await exchange.retrieve { report in reports.withLock { $0.append(report) } }
        }
        let added = target.queryHistory { $0.versionIdentifiers(addedAt: 0..<$0.count) }
        #expect(Set(added) == ["root", "a", "b", "c", "merge"])
        for id in added {
            let index = try #require(added.firstIndex(of: id))
            for predecessor in target.version(identifiedBy: id)?.predecessorIds ?? [] {
                #expect(added.firstIndex(of: predecessor).map { $0 < index } == true, "\(predecessor) added after \(id)")
            }
        }
        let last = try #require(reports.withLock { $0.last })
        #expect(last.completedVersionCount == 5 && last.totalVersionCount == 5)
        #expect(exchange.restorationState == nil, "the cursor moved past versions that were not added")
    }

    @Test func aLoggedVersionIsNeverReplaced() async throws {
        let shared = try makeSharedDirectory(.versionFiles)
        let source = try Replica("source")
        let version = try source.save(["k": "first"])
        let exchange = FileSystemExchange(rootDirectoryURL: shared.url, store: source.store)
        try await exchange.send()
        let files = ["versions", "changes"].map { folder in
            FileManager.default.enumerator(at: shared.url.appendingPathComponent(folder), includingPropertiesForKeys: nil)?
                .compactMap { $0 as? URL }.filter { $0.pathExtension == "json" } ?? []
        }.flatMap { $0 }
        #expect(files.count == 2)
        let before = files.map { FileManager.default.contents(atPath: $0.path) }

        let changes = try source.store.valueChanges(madeInVersionIdentifiedBy: version.id)
        try await exchange.send(versionChanges: [(version, changes)])
        var other = version
        other.timestamp += 1
        let otherChanges = [Value.Change.update(Value(idString: "k", data: Data("second".utf8)))]
        for (record, recordChanges) in [(other, changes), (version, otherChanges)] {
            let error = await #expect(throws: ExchangeError.self) { try await exchange.send(versionChanges: [(record, recordChanges)]) }
            guard case .conflictingVersion(let id, _)? = error else {
                Issue.record("expected conflictingVersion, got \(String(describing: error))")
                continue
            }
            #expect(id == version.id)
        }
        #expect(files.map { FileManager.default.contents(atPath: $0.path) } == before)

        let reader = try Replica("reader")
        try await FileSystemExchange(rootDirectoryURL: shared.url, store: reader.store).retrieve()
        #expect(try reader.texts(at: version.id) == ["k": "first"])
    }

    @Test(arguments: backendsAndFormats)
    func anInterruptedSendIsCompletedByTheNextOne(backend: Backend, format: DirectoryFormat) async throws {
        let shared = try makeSharedDirectory(format)
        let source = try storeWithHistory(12, backend: backend)
        let exchange = FileSystemExchange(rootDirectoryURL: shared.url, store: source.store)
        // Batches of one version; the transport drops on the fifth batch.
        let faulty = FaultyExchange(exchange, failing: ("send", 5), maximumBatchByteCount: 1)
        await #expect(throws: InjectedFault(call: "send")) { try await faulty.send() }

        // The directory is valid: another store retrieves exactly the four complete versions.
        let early = try Replica("early")
        #expect(try await FileSystemExchange(rootDirectoryURL: shared.url, store: early.store).retrieve().count == 4)

        let resumed = FaultyExchange(exchange, maximumBatchByteCount: 1)
        let sent = try await resumed.send()
        #expect(sent.count == 9, "only what the interrupted send did not finish")
        let late = try Replica("late")
        try await FileSystemExchange(rootDirectoryURL: shared.url, store: late.store).retrieve()
        #expect(late.versionIds == source.versionIds)
        #expect(try late.texts(at: source.store.mostRecentHead?.id) == source.texts())
    }

    @Test(arguments: backendsAndFormats)
    func anInterruptedRetrieveIsCompletedByTheNextOne(backend: Backend, format: DirectoryFormat) async throws {
        let shared = try makeSharedDirectory(format)
        let source = try storeWithHistory(12)
        try await FileSystemExchange(rootDirectoryURL: shared.url, store: source.store).send()

        let target = try Replica("target", backend: backend)
        let exchange = FileSystemExchange(rootDirectoryURL: shared.url, store: target.store)
        let faulty = FaultyExchange(exchange, failing: ("retrieveValueChanges", 3), maximumBatchByteCount: 1)
        await #expect(throws: InjectedFault(call: "retrieveValueChanges")) { try await faulty.retrieve() }
        #expect(target.versionIds.count == 2, "the versions of the two complete batches, each after its predecessors")
        #expect(exchange.restorationState == nil, "the cursor is not advanced past versions not yet added")

        // The store is valid and reopens; the next retrieve adds the rest.
        _ = try Store(rootDirectoryURL: target.directory.url, storage: backend.makeStorage())
        #expect(try await exchange.retrieve().count == 11)
        #expect(target.versionIds == source.versionIds)
    }

    /// An exchange that, from its second `retrieveValueChanges` call on, signals that the call
    /// began, and whose batches hold one version each.
    final class SignallingExchange: ForwardingExchange, @unchecked Sendable {
        let inner: any Exchange
        let secondFetchBegan = DispatchSemaphore(value: 0)
        private let calls = Locked(0)
        init(_ inner: any Exchange) { self.inner = inner }
        var maximumBatchByteCount: Int { 1 }
        func retrieveValueChanges(forVersionsIdentifiedBy versionIds: [Version.ID]) async throws -> [Version.ID: [Value.Change]] {
            if calls.withLock({ $0 += 1; return $0 }) == 2 { secondFetchBegan.signal() }
            return try await inner.retrieveValueChanges(forVersionsIdentifiedBy: versionIds)
        }
    }

    /// A retrieve fetches the changes of the next batch while it adds a batch: the second
    /// batch's fetch begins before the first batch's progress report returns (the report
    /// waits for it, for up to 30 s; a retrieve that fetched only after adding would make it
    /// wait the whole time). Batches are still added one at a time, in order.
    ///
    /// The retrieve runs on threads of its own: the report blocks the thread it runs on, and
    /// in the cooperative pool of two cores, beside hundreds of other tests, the fetch it
    /// waits for could stay queued past the timeout.
    @Test func theNextBatchIsFetchedWhileABatchIsAdded() async throws {
        let shared = try makeSharedDirectory()
        let source = try storeWithHistory(4)
        try await FileSystemExchange(rootDirectoryURL: shared.url, store: source.store).send()
        let target = try Replica("target")
        let exchange = SignallingExchange(FileSystemExchange(rootDirectoryURL: shared.url, store: target.store))
        let waits = Locked<[DispatchTimeoutResult]>([])
        let reports = Locked<[Int]>([])
        let reportThreads = Locked<[Bool]>([])
        let executor = DedicatedThreadsExecutor(threadCount: 3)
        defer { executor.shutDown() }
        let added = try await withTaskExecutorPreference(executor) {
            try await exchange.retrieve { report in
                reports.withLock { $0.append(report.completedVersionCount) }
                guard report.completedVersionCount == 1 else { return }
                reportThreads.withLock { $0.append(executor.ownsCurrentThread) }
                let result = exchange.secondFetchBegan.wait(timeout: .now() + 30)
                waits.withLock { $0.append(result) }
            }
        }
        #expect(reportThreads.withLock { $0 } == [true], "the report ran on the executor's threads")
        #expect(waits.withLock { $0 } == [.success], "the second fetch began while the first batch was being added")
        #expect(reports.withLock { $0 } == Array(0...source.versionIds.count))
        #expect(added.count == source.versionIds.count)
        #expect(target.versionIds == source.versionIds)
    }

    @Test(arguments: DirectoryFormat.allCases)
    func versionsListedInReverseAreAddedAfterTheirPredecessors(format: DirectoryFormat) async throws {
        let shared = try makeSharedDirectory(format)
        let source = try storeWithHistory(10)
        try await FileSystemExchange(rootDirectoryURL: shared.url, store: source.store).send()
        let target = try Replica("target")
        let reversed = FaultyExchange(FileSystemExchange(rootDirectoryURL: shared.url, store: target.store), reverseListing: true,
                                      maximumBatchByteCount: 1)
        let added = try await reversed.retrieve()
        #expect(target.versionIds == source.versionIds)
        var position: [Version.ID: Int] = [:]
        for (index, id) in added.enumerated() { position[id] = index }
        for id in added {
            for predecessor in source.store.version(identifiedBy: id)?.predecessorIds ?? [] {
                #expect((position[predecessor] ?? -1) < (position[id] ?? -1))
            }
        }
    }

    @Test(arguments: DirectoryFormat.allCases)
    func versionsWhosePredecessorsAreMissingAreNotAdded(format: DirectoryFormat) async throws {
        let shared = try makeSharedDirectory(format)
        let source = try storeWithHistory(6)
        try await FileSystemExchange(rootDirectoryURL: shared.url, store: source.store).send()
        // Remove the first version's files: everything descends from it.
        let exchange = FileSystemExchange(rootDirectoryURL: shared.url, store: source.store)
        let all = try await exchange.retrieveAllVersionIdentifiers()
        let first = try #require(all.first)
        let memory = MemoryExchangeSpace()
        let relay = MemoryExchange(space: memory, store: source.store)
        try await relay.send(versionChanges: try all.dropFirst().map { id in
            (try #require(source.store.version(identifiedBy: id)), try source.store.valueChanges(madeInVersionIdentifiedBy: id))
        })
        let target = try Replica("target")
        await #expect(throws: ExchangeError.self) { try await MemoryExchange(space: memory, store: target.store).retrieve() }
        #expect(target.versionIds.isEmpty, "no version without its predecessor \(first)")
    }

    @Test(arguments: ["truncated", "garbage", "wrong version", "empty"])
    func aDamagedVersionFileGivesAnErrorNamingIt(_ damage: String) async throws {
        let shared = try makeSharedDirectory(.versionFiles)
        let source = try storeWithHistory(3)
        try await FileSystemExchange(rootDirectoryURL: shared.url, store: source.store).send()
        let victim = try #require(source.store.queryHistory { Array($0) }.last?.id)
        let folder = damage == "wrong version" ? "versions" : "changes"
        let file = try #require(FileManager.default.enumerator(atPath: shared.url.appendingPathComponent(folder).path)?
            .compactMap { $0 as? String }.first { $0.hasSuffix("\(victim.rawValue).json") })
        let url = shared.url.appendingPathComponent(folder).appendingPathComponent(file)
        let original = try Data(contentsOf: url)
        switch damage {
        case "truncated": try original.prefix(original.count / 2).write(to: url)
        case "garbage": try Data("{\"version\": 12, [".utf8).write(to: url)
        case "empty": try Data().write(to: url)
        default:
            let other = try #require(source.store.queryHistory { Array($0) }.first)
            try CanonicalJSON.encode(other).write(to: url)
        }
        let target = try Replica("target")
        let listingBefore = fileListing(target.directory.url)
        do {
            try await FileSystemExchange(rootDirectoryURL: shared.url, store: target.store).retrieve()
            Issue.record("a damaged file must fail the retrieve")
        } catch let error as ExchangeError {
            // Every file carries its checksum, checked before it is decoded.
            guard case let .damagedFile(version, location, _) = error else { Issue.record("unexpected \(error)"); return }
            #expect(location == url.path, "\(error)")
            #expect(version == victim, "\(error)")
        }
        #expect(!target.versionIds.contains(victim), "the damaged version is not added")
        #expect(target.versionIds.isSubset(of: source.versionIds))
        if damage == "wrong version" { #expect(fileListing(target.directory.url) == listingBefore) }
        // Reopening the target shows only complete versions.
        let reopened = try Store(rootDirectoryURL: target.directory.url)
        #expect(reopened.queryHistory { $0.count } == target.versionIds.count)
    }

    @Test(arguments: DirectoryFormat.allCases)
    func aCorruptLogOrMarkerGivesAnErrorNamingIt(format: DirectoryFormat) async throws {
        let shared = try makeSharedDirectory(format)
        let source = try storeWithHistory(3)
        let sender = FileSystemExchange(rootDirectoryURL: shared.url, store: source.store)
        try await sender.send()
        // A second send into the same segment, so that its first record is not its last in
        // either format (one record per version in format 1, per send in format 2).
        try source.save(["later": "1"])
        try await sender.send()
        let logDirectory = shared.url.appendingPathComponent("log")
        let segment = logDirectory.appendingPathComponent(try #require(try FileManager.default.contentsOfDirectory(atPath: logDirectory.path).first))
        var bytes = try Data(contentsOf: segment)
        bytes[12] ^= 0xFF // inside the first record, which is not the last
        try bytes.write(to: segment)
        let target = try Replica("target")
        await #expect(throws: ExchangeError.malformedData(location: segment.path, reason: "record at offset 8 fails its checksum")) {
            try await FileSystemExchange(rootDirectoryURL: shared.url, store: target.store).retrieve()
        }

        let other = try makeSharedDirectory()
        try Data("{\"format\":\"llvs-file-exchange\",\"formatVersion\":99,\"identifier\":\"x\"}".utf8)
            .write(to: other.url.appendingPathComponent("llvs-exchange.json"))
        await #expect(throws: ExchangeError.unsupportedFormat(location: other.url.appendingPathComponent("llvs-exchange.json").path,
                                                              found: "llvs-file-exchange version 99")) {
            try await FileSystemExchange(rootDirectoryURL: other.url, store: target.store).retrieve()
        }
        #expect(target.versionIds.isEmpty)
    }

    /// A sender that crashed before its files reached the disk can leave a truncated file
    /// no log record refers to; the next send replaces it instead of trusting its name.
    @Test func aTruncatedUnloggedFileIsReplacedByTheNextSend() async throws {
        let shared = try makeSharedDirectory(.versionFiles)
        let source = try storeWithHistory(2)
        let exchange = FileSystemExchange(rootDirectoryURL: shared.url, store: source.store)
        try await exchange.prepareToSend()
        let first = try #require(source.store.queryHistory { Array($0) }.last)
        let name = first.id.rawValue + ".json"
        for folder in ["versions", "changes"] {
            let shard = shared.url.appendingPathComponent(folder).appendingPathComponent(FileNaming.shardName(for: first.id))
            try FileManager.default.createDirectory(at: shard, withIntermediateDirectories: true)
            try Data("{\"trunc".utf8).write(to: shard.appendingPathComponent(name))
        }
        try await exchange.send()
        let target = try Replica("target")
        try await FileSystemExchange(rootDirectoryURL: shared.url, store: target.store).retrieve()
        #expect(target.versionIds == source.versionIds)
    }

    @Test(arguments: DirectoryFormat.allCases)
    func aWipedDirectoryIsRefilledBySendingEverythingAgain(format: DirectoryFormat) async throws {
        let shared = try makeSharedDirectory(format)
        let source = try storeWithHistory(4)
        let exchange = FileSystemExchange(rootDirectoryURL: shared.url, store: source.store)
        try await exchange.send()
        for name in try FileManager.default.contentsOfDirectory(atPath: shared.url.path) {
            try FileManager.default.removeItem(at: shared.url.appendingPathComponent(name))
        }
        // A new exchange object sees a new directory identity and relists.
        let fresh = FileSystemExchange(rootDirectoryURL: shared.url, store: source.store)
        fresh.restorationState = exchange.restorationState
        #expect(try await fresh.send().count == source.versionIds.count)
    }
}
