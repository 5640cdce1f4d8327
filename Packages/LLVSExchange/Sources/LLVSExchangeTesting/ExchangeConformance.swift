import Foundation
import LLVSCore
import LLVSExchange
import LLVSStore
import LLVSSupport
import LLVSTesting
import Testing

/// The checks every `Exchange` passes, whatever carries its versions: what
/// `ZoneConformance` is for storage backends. A new exchange is done when it passes every
/// check. Its tests run each one against fresh locations of the other side:
///
/// ```swift
/// @Test(arguments: ExchangeConformance.Check.allCases)
/// func myExchangeConforms(_ check: ExchangeConformance.Check) async throws {
///     let root = try TemporaryDirectory()
///     try await ExchangeConformance { name in
///         let directory = root.url.appendingPathComponent(name)
///         return { store in MyExchange(directory: directory, store: store) }
///     }.run(check)
/// }
/// ```
///
/// `makeLocation` is called with a name no other location of the run has and returns a
/// maker of exchanges between a store and that location: every exchange it makes reaches
/// the same other side (a directory, a server store, a space), empty at first. The stores
/// are the checks' own, in temporary directories. Failures are recorded with Swift Testing
/// expectations naming the check.
public struct ExchangeConformance: Sendable {
    /// One property every exchange has.
    public enum Check: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// A branching history with merges goes over and back whole: every version, its
        /// record, metadata and values.
        case movesHistoriesWhole
        /// A send or retrieve that fails part way (a batch of each version alone) is
        /// completed by the next one, with nothing lost or added twice.
        case resumesInterruptedTransfers
        /// Versions listed and returned in reverse order, and offers of versions the other
        /// side holds already (a fresh exchange sending everything again), are taken.
        case takesOutOfOrderOffers
        /// Several stores sending to one location at once, in several rounds, lose nothing.
        case keepsConcurrentSenders
        /// Value and version identifiers and metadata holding path separators, `..`, NUL,
        /// quotes, control characters, canonically equivalent Unicode and long strings, and
        /// value data of every byte, arrive unchanged.
        case keepsHostileIdentifiers
        /// A version whose identifier the other side holds with another record or other
        /// changes is refused, and the other side keeps its copy.
        case refusesConflictingCopies
        /// A restoration state whose cursor lies past the end of the location (it came from
        /// a longer one) costs a full listing, never a version skipped.
        case ignoresCursorsPastTheEnd
        /// A send and a retrieve run at once on one exchange, many times, both keep what
        /// they record in the restoration state.
        case keepsStateOfConcurrentSendAndRetrieve
        /// A `SnapshotExchange` sends a snapshot that a new store restores and then
        /// retrieves what came after it; at a location that keeps no snapshots
        /// (``keepsSnapshots``), the snapshot is refused with an error and nothing else
        /// changes (passes trivially for exchanges without snapshots).
        case restoresSnapshots

        /// The check's name.
        public var testDescription: String { rawValue }
    }

    /// Makes exchanges between a store and one location of the other side.
    public typealias ExchangeMaker = @Sendable (Store) async throws -> any Exchange

    /// Makes a new, empty location named as given and returns its exchange maker.
    public let makeLocation: @Sendable (String) async throws -> ExchangeMaker
    /// Whether the locations keep snapshots. When not, a `SnapshotExchange`'s snapshot is
    /// refused with an error and the location goes on working.
    public let keepsSnapshots: Bool

    /// The suite for the exchanges `makeLocation` makes, whose locations keep snapshots or not.
    public init(keepsSnapshots: Bool = true, makeLocation: @escaping @Sendable (String) async throws -> ExchangeMaker) {
        self.keepsSnapshots = keepsSnapshots
        self.makeLocation = makeLocation
    }

    /// Runs one check, recording failures as issues.
    ///
    /// - Throws: Any error the exchange or a store throws where the check expects none.
    public func run(_ check: Check) async throws {
        let prefix = "\(check.rawValue)-\(UUID().uuidString.prefix(8))"
        let stores = try Stores()
        let location = { (suffix: String) in try await makeLocation("\(prefix)-\(suffix)") }
        switch check {
        case .movesHistoriesWhole: try await movesHistoriesWhole(try await location("a"), stores)
        case .resumesInterruptedTransfers: try await resumesInterruptedTransfers(try await location("a"), stores)
        case .takesOutOfOrderOffers: try await takesOutOfOrderOffers(try await location("a"), stores)
        case .keepsConcurrentSenders: try await keepsConcurrentSenders(try await location("a"), stores)
        case .keepsHostileIdentifiers: try await keepsHostileIdentifiers(try await location("a"), stores)
        case .refusesConflictingCopies: try await refusesConflictingCopies(try await location("a"), stores)
        case .ignoresCursorsPastTheEnd: try await ignoresCursorsPastTheEnd(try await location("long"), try await location("short"), stores)
        case .keepsStateOfConcurrentSendAndRetrieve: try await keepsStateOfConcurrentSendAndRetrieve(try await location("a"), stores)
        case .restoresSnapshots: try await restoresSnapshots(try await location("a"), stores)
        }
    }

    // MARK: The checks

    private func movesHistoriesWhole(_ location: ExchangeMaker, _ stores: Stores) async throws {
        let a = try stores.make(), b = try stores.make()
        try Self.branchingHistory(in: a, tag: "a")
        #expect(try await location(a).send().count == a.versionCount)
        let retrieved = try await location(b).retrieve()
        #expect(retrieved.count == a.versionCount)
        try Self.expectSame(a, b)
        // And back, on top of what came.
        try Self.linearHistory(in: b, count: 5, tag: "b")
        try await location(b).send()
        try await location(a).retrieve()
        try Self.expectSame(a, b)
    }

    private func resumesInterruptedTransfers(_ location: ExchangeMaker, _ stores: Stores) async throws {
        let a = try stores.make(), b = try stores.make()
        try Self.branchingHistory(in: a, tag: "a")
        let sender = try await location(a)
        await #expect(throws: InjectedFault.self) {
            try await FaultyExchange(sender, failing: ("send", 4), maximumBatchByteCount: 1).send()
        }
        let resumed = try await FaultyExchange(sender, maximumBatchByteCount: 1).send()
        #expect(resumed.count < a.versionCount, "the resumed send sent again what the first had sent: \(resumed.count)")
        let receiver = try await location(b)
        await #expect(throws: InjectedFault.self) {
            try await FaultyExchange(receiver, failing: ("retrieveValueChanges", 3), maximumBatchByteCount: 1).retrieve()
        }
        #expect(b.versionCount > 0 && b.versionCount < a.versionCount)
        let rest = try await FaultyExchange(receiver, maximumBatchByteCount: 1).retrieve()
        #expect(rest.count + 2 == a.versionCount, "the interrupted retrieve had added 2 versions")
        try Self.expectSame(a, b)
    }

    private func takesOutOfOrderOffers(_ location: ExchangeMaker, _ stores: Stores) async throws {
        let a = try stores.make(), b = try stores.make()
        try Self.branchingHistory(in: a, tag: "a")
        try await location(a).send()
        // Offers of versions the other side holds, again, alone and mixed with new ones.
        let held = try Self.versionChanges(of: a)
        try await location(a).send(versionChanges: held)
        try Self.linearHistory(in: a, count: 3, tag: "more")
        try await location(a).send(versionChanges: try Self.versionChanges(of: a))
        // Listings and returned versions in reverse order.
        #expect(try await FaultyExchange(try await location(b), reverseListing: true).retrieve().count == a.versionCount)
        try Self.expectSame(a, b)
        // And handed to the retrieve one identifier a part, each version's predecessors in
        // parts after its own.
        let c = try stores.make()
        let parted = FaultyExchange(try await location(c), reverseListing: true, listingPartCount: 1)
        #expect(try await parted.retrieve().count == a.versionCount)
        try Self.expectSame(a, c)
    }

    private func keepsConcurrentSenders(_ location: ExchangeMaker, _ stores: Stores) async throws {
        let origin = try stores.make()
        try Self.linearHistory(in: origin, count: 2, tag: "root")
        try await location(origin).send()
        var senders: [Store] = []
        for _ in 0..<4 {
            let sender = try stores.make()
            try await location(sender).retrieve()
            senders.append(sender)
        }
        let exchanges = try await senders.asyncMap { try await location($0) }
        for round in 0..<3 {
            for (index, sender) in senders.enumerated() { try Self.linearHistory(in: sender, count: 4, tag: "s\(index)r\(round)") }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for exchange in exchanges { group.addTask { try await exchange.send() } }
                try await group.waitForAll()
            }
        }
        let reader = try stores.make()
        try await location(reader).retrieve()
        #expect(reader.versionCount == 2 + 4 * 3 * 4)
        for (sender, exchange) in zip(senders, exchanges) {
            try await exchange.retrieve()
            #expect(sender.versionIds == reader.versionIds)
        }
    }

    private func keepsHostileIdentifiers(_ location: ExchangeMaker, _ stores: Stores) async throws {
        let a = try stores.make(), b = try stores.make()
        let hostile = Self.hostileStrings
        var predecessor: Version.ID?
        for (index, text) in hostile.enumerated() {
            var metadata: Version.Metadata = [:]
            metadata[.init(rawValue: "note \(text)")] = .init(data: Data(text.utf8))
            let version = Version(id: .init("\(text)#\(index)"), predecessors: predecessor.map { .init(idOfFirst: $0) }, metadata: metadata)
            let data = Data((0...255).map { UInt8($0) }) + Data(text.utf8)
            _ = try a.addVersion(version, storing: [.update(Value(id: .init(text), data: data))])
            predecessor = version.id
        }
        try await location(a).send()
        try await location(b).retrieve()
        try Self.expectSame(a, b)
        let head = try #require(predecessor)
        for text in hostile {
            #expect(try b.value(id: .init(text), at: head)?.data == Data((0...255).map { UInt8($0) }) + Data(text.utf8),
                    "value \(text.debugDescription)")
        }
    }

    private func refusesConflictingCopies(_ location: ExchangeMaker, _ stores: Stores) async throws {
        let a = try stores.make(), b = try stores.make()
        let id = Version.ID("conflicting-\(UUID().uuidString)")
        let original: [Value.Change] = [.update(Value(idString: "x", data: Data("original".utf8)))]
        _ = try a.addVersion(Version(id: id, timestamp: 1_000), storing: original)
        try await location(a).send()
        // Offered straight to the other side: another record under the same identifier, the
        // same record with other changes, and the conflict inside a batch of new versions.
        let exchange = try await location(b)
        await #expect(throws: (any Error).self, "another record") {
            try await exchange.send(versionChanges: [(Version(id: id, timestamp: 2_000), original)])
        }
        await #expect(throws: (any Error).self, "other changes") {
            try await exchange.send(versionChanges: [(Version(id: id, timestamp: 1_000), [.update(Value(idString: "x", data: Data("forged".utf8)))])])
        }
        let fresh = Version(timestamp: 3_000)
        await #expect(throws: (any Error).self, "in a batch") {
            try await exchange.send(versionChanges: [(fresh, original), (Version(id: id, metadata: [.branch: .init(data: Data("b".utf8))]), original)])
        }
        try await exchange.retrieve()
        #expect(b.versionIds.contains(id))
        #expect(b.version(identifiedBy: id)?.timestamp == 1_000)
        #expect(b.version(identifiedBy: id)?.metadata == [:])
        #expect(try b.value(idString: "x", at: id)?.data == Data("original".utf8))
    }

    private func ignoresCursorsPastTheEnd(_ long: ExchangeMaker, _ short: ExchangeMaker, _ stores: Stores) async throws {
        let a = try stores.make(), b = try stores.make(), c = try stores.make(), d = try stores.make()
        try Self.linearHistory(in: a, count: 20, tag: "long")
        try await long(a).send()
        let reader = try await long(b)
        try await reader.retrieve()
        let pastTheEnd = try #require(reader.restorationState)
        try Self.linearHistory(in: c, count: 3, tag: "short")
        try await short(c).send()
        // A state from the longer location, its cursor past this one's end.
        let exchange = try await short(d)
        exchange.restorationState = pastTheEnd
        #expect(try await exchange.retrieve().count == 3)
        try Self.expectSame(c, d)
        // And a sender holding that state sends what the location lacks.
        try Self.linearHistory(in: d, count: 2, tag: "after")
        let sender = try await short(d)
        sender.restorationState = pastTheEnd
        try await sender.send()
        try await short(c).retrieve()
        try Self.expectSame(c, d)
    }

    private func keepsStateOfConcurrentSendAndRetrieve(_ location: ExchangeMaker, _ stores: Stores) async throws {
        let local = try stores.make(), remote = try stores.make()
        let exchange = try await location(local)
        let remoteExchange = try await location(remote)
        // The state changes in one step: changes from many threads at once, each taking a
        // while between its read and its write, all count.
        // (On threads of their own: the concurrency pool's threads are not for blocking.)
        let changes = 200
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                DispatchQueue.concurrentPerform(iterations: changes) { _ in
                    exchange.updateRestorationState { data in
                        let count = data.flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0
                        Thread.sleep(forTimeInterval: 0.000_1)
                        data = Data(String(count + 1).utf8)
                    }
                }
                done.resume()
            }.start()
        }
        #expect(exchange.restorationState.flatMap { Int(String(decoding: $0, as: UTF8.self)) } == changes,
                "changes made at once were lost: updateRestorationState is not one step")
        exchange.restorationState = nil
        for round in 0..<25 {
            try Self.linearHistory(in: remote, count: 2, tag: "remote\(round)")
            try await remoteExchange.send()
            try Self.linearHistory(in: local, count: 2, tag: "local\(round)")
            async let sent = exchange.send()
            async let retrieved = exchange.retrieve()
            let (sentIds, retrievedIds) = try await (sent, retrieved)
            // Everything each recorded is still known to be on the other side.
            let remembered = Self.rememberedRemoteHeads(exchange.restorationState)
            let known = Set(remembered).union(remembered.flatMap { local.ancestors(of: $0) })
            let lost = Set(sentIds + retrievedIds).subtracting(known)
            #expect(lost.isEmpty, "round \(round): the state forgot \(lost.count) of \(sentIds.count) sent and \(retrievedIds.count) retrieved")
            if !lost.isEmpty { break }
        }
    }

    private func restoresSnapshots(_ location: ExchangeMaker, _ stores: Stores) async throws {
        let a = try stores.make(snapshots: true), c = try stores.make(snapshots: true)
        guard let sender = try await location(a) as? any SnapshotExchange else { return }
        try Self.branchingHistory(in: a, tag: "a")
        try await sender.send()
        guard keepsSnapshots else {
            await #expect(throws: (any Error).self, "a location without snapshots refuses one") { try await sender.sendSnapshot(chunkSize: 1_024) }
            #expect(try await (location(c) as? any SnapshotExchange)?.restoreSnapshot() == nil)
            try await location(c).retrieve()
            try Self.expectSame(a, c)
            return
        }
        #expect(try await sender.sendSnapshot(chunkSize: 1_024) != nil)
        let inSnapshot = a.versionCount
        try Self.linearHistory(in: a, count: 3, tag: "after")
        try await sender.send()
        let receiver = try #require(try await location(c) as? any SnapshotExchange)
        let manifest = try #require(try await receiver.restoreSnapshot())
        #expect(manifest.versionCount == inSnapshot)
        #expect(c.versionCount == inSnapshot)
        try await receiver.retrieve()
        try Self.expectSame(a, c)
    }

    // MARK: Histories and comparisons

    /// Strings that are hostile as paths, in JSON, in SQL and in URLs; the longest is 200
    /// bytes, within the sync server's limit of 256 bytes for a version identifier (an
    /// exchange may refuse longer identifiers with an error naming the limit).
    static let hostileStrings: [String] = [
        "../../etc/passwd", "a/b\\c", "nul\u{0}inside", "quote\"and'apostrophe", "new\nline\ttab\r", "é", "e\u{301}",
        "🧪 emoji", "%2F%00%", "{\"json\": [1]}", "<script>&amp;", "'; DROP TABLE versions; --", " leading and trailing ",
        "?query=1&x#fragment", "\u{7F}\u{1B}[31m", "\u{FEFF}bom", String(repeating: "long", count: 50),
    ]

    /// Linear versions on the most recent head, each changing two values.
    static func linearHistory(in store: Store, count: Int, tag: String) throws {
        var head = store.mostRecentHead?.id
        for index in 0..<count {
            head = try store.makeVersion(basedOnPredecessor: head, storing: [
                .update(Value(idString: "\(tag)-\(index)", data: Data("\(tag) \(index)".utf8))),
                .update(Value(idString: "shared-\(index % 3)", data: Data("\(tag) \(index) shared".utf8))),
            ]).id
        }
    }

    /// A root, two branches of three versions and a merge of them, and a version on it.
    static func branchingHistory(in store: Store, tag: String) throws {
        let root = try store.makeVersion(basedOnPredecessor: store.mostRecentHead?.id, storing: [
            .update(Value(idString: "\(tag)-root", data: Data("root".utf8))),
        ])
        var tips: [Version.ID] = []
        for branch in ["left", "right"] {
            var head = root.id
            for index in 0..<3 {
                head = try store.makeVersion(basedOnPredecessor: head, storing: [
                    .update(Value(idString: "\(tag)-\(branch)-\(index)", data: Data(branch.utf8))),
                ], metadata: [.branch: .init(data: Data(branch.utf8))]).id
            }
            tips.append(head)
        }
        let merge = Version(predecessors: .init(idOfFirst: tips[0], idOfSecond: tips[1]))
        _ = try store.addVersion(merge, storing: [.update(Value(idString: "\(tag)-merged", data: Data("both".utf8)))])
        _ = try store.makeVersion(basedOnPredecessor: merge.id, storing: [.remove(.init("\(tag)-root"))])
    }

    /// Every version of `store` with its changes, predecessors first, as a send offers them.
    static func versionChanges(of store: Store) throws -> [VersionChanges] {
        let ordered = store.queryHistory { history in history.allVersionIdentifiers.compactMap(history.version(identifiedBy:)) }
            .sorted { $0.timestamp < $1.timestamp }
        var placed: Set<Version.ID> = [], result: [VersionChanges] = [], pending = ordered
        while !pending.isEmpty {
            let ready = pending.filter { $0.predecessorIds.allSatisfy(placed.contains) }
            guard !ready.isEmpty else { break }
            for version in ready {
                var shipped = version
                shipped.successors = .init()
                result.append((shipped, try store.valueChanges(madeInVersionIdentifiedBy: version.id)))
                placed.insert(version.id)
            }
            pending.removeAll { placed.contains($0.id) }
        }
        return result
    }

    /// Expects both stores to hold the same versions, records and values.
    static func expectSame(_ a: Store, _ b: Store, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(a.versionIds == b.versionIds, "versions", sourceLocation: sourceLocation)
        for id in a.versionIds.intersection(b.versionIds) {
            let (x, y) = (a.version(identifiedBy: id), b.version(identifiedBy: id))
            guard x?.predecessors != y?.predecessors || x?.timestamp != y?.timestamp || x?.metadata != y?.metadata else { continue }
            Issue.record("version \(id) differs: \(String(describing: x)) and \(String(describing: y))", sourceLocation: sourceLocation)
        }
        for head in a.queryHistory({ $0.headIdentifiers }) where b.versionIds.contains(head) {
            #expect(try a.contents(at: head) == b.contents(at: head), "values at \(head)", sourceLocation: sourceLocation)
        }
    }

    /// The remote heads a restoration state remembers (SPEC.md section 12: a JSON object
    /// with `remoteHeads`).
    static func rememberedRemoteHeads(_ state: Data?) -> [Version.ID] {
        struct Remembered: Decodable { var remoteHeads: [Version.ID] }
        return state.flatMap { try? JSONDecoder().decode(Remembered.self, from: $0) }?.remoteHeads ?? []
    }
}

/// The stores a check makes, each in a directory of its own, removed with the last store.
private final class Stores: @unchecked Sendable {
    // Unchecked: used by the one task running the check.
    private let root: TemporaryDirectory
    private var count = 0

    init() throws {
        root = try TemporaryDirectory(prefix: "llvs-exchange-conformance")
    }

    /// A new, empty store (on the file backend, which takes snapshots; in memory otherwise).
    func make(snapshots: Bool = false) throws -> Store {
        count += 1
        let url = root.url.appendingPathComponent("store-\(count)")
        return snapshots ? try Store(rootDirectoryURL: url) : try Store(rootDirectoryURL: url, storage: MemoryStorage())
    }
}

extension Store {
    fileprivate var versionIds: Set<Version.ID> { queryHistory { Set($0.allVersionIdentifiers) } }
    fileprivate var versionCount: Int { queryHistory { $0.allVersionIdentifiers.count } }

    fileprivate func ancestors(of id: Version.ID) -> [Version.ID] {
        queryHistory { history in history.allVersionIdentifiers.filter { (try? history.isAncestor($0, of: id)) ?? false } }
    }

    fileprivate func contents(at version: Version.ID) throws -> [String: Data] {
        var contents: [String: Data] = [:]
        try enumerate(version: version) { reference in contents[reference.valueId.rawValue] = try value(storedAt: reference)?.data }
        return contents
    }
}

extension Sequence {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}

/// The error a ``FaultyExchange`` throws where it was told to fail.
public struct InjectedFault: Error, Equatable, CustomStringConvertible {
    /// The part that failed.
    public let call: String
    /// The failure of the part `call`.
    public init(call: String) {
        self.call = call
    }
    /// Names the part.
    public var description: String { "injected failure of \(call)" }
}

/// An exchange in front of another that sends and retrieves a version per batch (or as
/// told), can list and return versions in reverse order and hand a listing to a retrieve in
/// small parts, and can fail the n-th call of a part (a dropped connection, a killed
/// transfer). The sync algorithm is the real one; its
/// restoration state is the inner exchange's.
public final class FaultyExchange: ForwardingExchange {
    /// The exchange in front of which this one stands.
    public let inner: any Exchange
    /// Whether listings and returned versions are reversed.
    public let reverseListing: Bool
    /// How many identifiers each part of a listing holds at most
    /// (`Exchange.retrieveVersionIdentifiers(after:inParts:)`); nil for one part.
    public let listingPartCount: Int?
    /// The part and call number that fail, if any.
    public let failingCall: (name: String, number: Int)?
    /// See `Exchange.maximumBatchByteCount`.
    public let maximumBatchByteCount: Int
    /// See `Exchange.sendBatchByteCount`.
    public let sendBatchByteCount: Int
    /// See `Exchange.firstSendBatchByteCount`: `inner`'s, unless batch sizes are given.
    public let firstSendBatchByteCount: Int
    /// See `Exchange.firstRetrieveBatchByteCount`: `inner`'s, unless a size is given.
    public let firstRetrieveBatchByteCount: Int
    /// See `Exchange.sendBatchBytesPerVersion`: `inner`'s, unless given.
    public let sendBatchBytesPerVersion: Int
    /// See `Exchange.prefersFewBatches`: `inner`'s, unless given.
    public let prefersFewBatches: Bool
    private let calls = Locked([String: Int]())
    private let sends = Locked((inFlight: 0, most: 0, batches: [[Version.ID]]()))
    private let retrieves = Locked([[Version.ID]]())

    /// Stands in front of `inner`, with `inner`'s batch sizes unless given (a maximum given
    /// alone is the send batch size too, and a send batch size the first one's; a first
    /// retrieve batch size, bytes per version or preference for few batches not given are
    /// `inner`'s), listing in parts of at most `listingPartCount` identifiers (at least 1)
    /// when given.
    public init(_ inner: any Exchange, reverseListing: Bool = false, listingPartCount: Int? = nil, failing failingCall: (String, Int)? = nil,
                maximumBatchByteCount: Int? = nil, sendBatchByteCount: Int? = nil, firstSendBatchByteCount: Int? = nil,
                firstRetrieveBatchByteCount: Int? = nil, sendBatchBytesPerVersion: Int? = nil, prefersFewBatches: Bool? = nil) {
        self.inner = inner
        self.reverseListing = reverseListing
        self.listingPartCount = listingPartCount.map { max(1, $0) }
        self.failingCall = failingCall
        self.maximumBatchByteCount = maximumBatchByteCount ?? inner.maximumBatchByteCount
        self.sendBatchByteCount = sendBatchByteCount ?? maximumBatchByteCount ?? inner.sendBatchByteCount
        self.firstSendBatchByteCount = firstSendBatchByteCount
            ?? (sendBatchByteCount == nil && maximumBatchByteCount == nil ? inner.firstSendBatchByteCount : self.sendBatchByteCount)
        self.firstRetrieveBatchByteCount = firstRetrieveBatchByteCount ?? inner.firstRetrieveBatchByteCount
        self.sendBatchBytesPerVersion = sendBatchBytesPerVersion ?? inner.sendBatchBytesPerVersion
        self.prefersFewBatches = prefersFewBatches ?? inner.prefersFewBatches
    }

    /// How many times the part `name` was called.
    public func callCount(_ name: String) -> Int { calls.withLock { $0[name, default: 0] } }

    /// The most batches that were being sent at once (a send loop sends one at a time).
    public var mostSendsInFlight: Int { sends.withLock { $0.most } }

    /// The identifiers of each batch sent, in the order their sends began.
    public var sentBatches: [[Version.ID]] { sends.withLock { $0.batches } }

    /// The identifiers of each batch whose changes were retrieved, in the order asked.
    public var retrievedBatches: [[Version.ID]] { retrieves.withLock { $0 } }

    private func count(_ name: String) throws {
        let number = calls.withLock { calls in
            calls[name, default: 0] += 1
            return calls[name, default: 0]
        }
        if let failingCall, failingCall.name == name, failingCall.number == number { throw InjectedFault(call: name) }
    }

    /// Forwards, counting.
    ///
    /// - Throws: The inner exchange's error, or ``InjectedFault``.
    public func prepareToRetrieve() async throws { try count("prepareToRetrieve"); try await inner.prepareToRetrieve() }

    /// Forwards, counting.
    ///
    /// - Throws: The inner exchange's error, or ``InjectedFault``.
    public func prepareToSend() async throws { try count("prepareToSend"); try await inner.prepareToSend() }

    /// Forwards, counting and reversing.
    ///
    /// - Throws: The inner exchange's error, or ``InjectedFault``.
    public func retrieveAllVersionIdentifiers() async throws -> [Version.ID] {
        try count("retrieveAllVersionIdentifiers")
        let ids = try await inner.retrieveAllVersionIdentifiers()
        return reverseListing ? ids.reversed() : ids
    }

    /// Forwards, counting and reversing.
    ///
    /// - Throws: The inner exchange's error, or ``InjectedFault``.
    public func retrieveVersionIdentifiers(after cursor: ExchangeCursor?) async throws -> VersionIdentifierPage {
        try count("retrieveVersionIdentifiers")
        var page = try await inner.retrieveVersionIdentifiers(after: cursor)
        if reverseListing { page.versionIds.reverse() }
        return page
    }

    /// Lists as ``retrieveVersionIdentifiers(after:)`` does (counted as one call of it), in
    /// parts of at most ``listingPartCount`` identifiers; when nil, in the inner exchange's
    /// parts (each reversed when listings are).
    ///
    /// - Throws: The inner exchange's error, ``InjectedFault``, or what `body` throws.
    public func retrieveVersionIdentifiers(after cursor: ExchangeCursor?,
                                           inParts body: ([Version.ID]) async throws -> Void) async throws -> VersionIdentifierPage {
        guard let partCount = listingPartCount else {
            try count("retrieveVersionIdentifiers")
            var page = try await inner.retrieveVersionIdentifiers(after: cursor) { part in
                try await body(reverseListing ? part.reversed() : part)
            }
            if reverseListing { page.versionIds.reverse() }
            return page
        }
        let page = try await retrieveVersionIdentifiers(after: cursor)
        var start = 0
        repeat {
            let end = min(page.versionIds.count, start + partCount)
            try await body(Array(page.versionIds[start..<end]))
            start = end
        } while start < page.versionIds.count
        return page
    }

    /// Forwards, counting and reversing.
    ///
    /// - Throws: The inner exchange's error, or ``InjectedFault``.
    public func retrieveVersions(identifiedBy versionIds: [Version.ID]) async throws -> [Version] {
        try count("retrieveVersions")
        let versions = try await inner.retrieveVersions(identifiedBy: reverseListing ? versionIds.reversed() : versionIds)
        return reverseListing ? versions.reversed() : versions
    }

    /// Forwards, counting.
    ///
    /// - Throws: The inner exchange's error, or ``InjectedFault``.
    public func retrieveValueChanges(forVersionsIdentifiedBy versionIds: [Version.ID]) async throws -> [Version.ID: [Value.Change]] {
        try count("retrieveValueChanges")
        retrieves.withLock { $0.append(versionIds) }
        return try await inner.retrieveValueChanges(forVersionsIdentifiedBy: versionIds)
    }

    /// Forwards, counting.
    ///
    /// - Throws: The inner exchange's error, or ``InjectedFault``.
    public func send(versionChanges: [VersionChanges]) async throws {
        try await counting(versionChanges) { try await inner.send(versionChanges: versionChanges) }
    }

    /// Forwards, counting (as "prepare"), so the inner exchange does its own work ahead.
    ///
    /// - Throws: The inner exchange's error, or ``InjectedFault``.
    public func prepare(forSending versionChanges: [VersionChanges]) throws -> PreparedBatch {
        try count("prepare")
        return try inner.prepare(forSending: versionChanges)
    }

    /// Forwards, counting (as "send").
    ///
    /// - Throws: The inner exchange's error, or ``InjectedFault``.
    public func send(prepared batch: PreparedBatch) async throws {
        try await counting(batch.versionChanges) { try await inner.send(prepared: batch) }
    }

    /// Counts a send of `versionChanges` and the sends in flight around `body`.
    private func counting(_ versionChanges: [VersionChanges], _ body: () async throws -> Void) async throws {
        try count("send")
        sends.withLock { sends in
            sends.inFlight += 1
            sends.most = max(sends.most, sends.inFlight)
            sends.batches.append(versionChanges.map(\.version.id))
        }
        defer { sends.withLock { $0.inFlight -= 1 } }
        try await body()
    }
}
