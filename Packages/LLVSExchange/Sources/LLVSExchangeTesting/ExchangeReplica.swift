import Foundation
import LLVSCore
import LLVSExchange
import LLVSStore
import LLVSStoreTesting
import LLVSTesting

/// A store replica of the convergence harness whose exchanges go through the real exchange
/// path: `receive(from:upTo:)` has the sender run `Exchange.send(upTo:)` into a channel and
/// the receiver run `Exchange.retrieve()` from it — a `MemoryExchangeSpace` between memory
/// stores, a shared directory (`FileSystemExchange`) between file stores.
///
/// Each ordered pair of replicas has its own channel and its own pair of exchange objects,
/// kept for the whole history, so the cursors and remembered remote heads of the sync
/// algorithm are exercised across repeated exchanges; a channel only ever holds what its
/// sender sent to its receiver, so a partial exchange (`upTo`) stays partial. Beside those,
/// every replica of a history shares one more channel (a ``SharedExchangeChannel``: one
/// directory, one space), through which replicas send at the same time, offer versions out
/// of order and offer conflicting copies.
///
/// ```swift
/// let makeReplica = ExchangeReplica.factory(backend: .file)
/// let violations = try await ConvergenceSimulation.check(history, makeReplica: makeReplica)
/// ```
///
/// An exchange that wraps another (an encrypting one) runs the same histories through
/// `factory(backend:wrapping:)`: every exchange the replicas make is wrapped.
public final class ExchangeReplica: FuzzReplica {
    /// The store replica underneath.
    public let base: StoreReplica
    /// The channel every replica of the history shares.
    public let sharedChannel: SharedExchangeChannel
    private var channels: [ObjectIdentifier: Channel] = [:]
    /// This replica's exchange into the shared channel, kept for the whole history.
    private lazy var sharedExchange: any Exchange = sharedChannel.exchange(for: base.store)

    /// One direction between two replicas.
    struct Channel {
        var sending: any Exchange
        var receiving: any Exchange
        var directory: TemporaryDirectory?
    }

    /// Wraps a store replica that shares `sharedChannel` with the other replicas.
    public init(base: StoreReplica, sharing sharedChannel: SharedExchangeChannel) {
        self.base = base
        self.sharedChannel = sharedChannel
    }

    /// A new, empty replica on `backend`, sharing `sharedChannel` with the other replicas.
    ///
    /// - Throws: When the store cannot be created.
    public convenience init(backend: StoreReplica.Backend, sharing sharedChannel: SharedExchangeChannel) throws {
        self.init(base: try StoreReplica(backend: backend), sharing: sharedChannel)
    }

    /// A maker of new, empty replicas on `backend` that all share one channel, made with
    /// the first replica: what a simulation's `makeReplica` is. Each call of `factory`
    /// makes a new channel, so call it once per history.
    ///
    /// - Parameters:
    ///   - backend: The storage of every replica.
    ///   - wrapping: Applied to every exchange the replicas make (their channels to
    ///     each other and to the shared channel), for exchanges that wrap another.
    public static func factory(backend: StoreReplica.Backend,
                               wrapping: @escaping @Sendable (any Exchange) -> any Exchange = { $0 }) -> () throws -> ExchangeReplica {
        var channel: SharedExchangeChannel?
        return {
            let shared = try channel ?? SharedExchangeChannel(backend: backend, wrapping: wrapping)
            channel = shared
            return try ExchangeReplica(backend: backend, sharing: shared)
        }
    }

    public func versionsInTopologicalOrder() throws -> [Version] { try base.versionsInTopologicalOrder() }
    public func versions(addedAfter count: Int) throws -> [Version] { try base.versions(addedAfter: count) }
    public func headIdentifiers() throws -> Set<Version.ID> { try base.headIdentifiers() }
    public func mergeBases(of first: Version.ID, and second: Version.ID) throws -> [Version.ID] { try base.mergeBases(of: first, and: second) }
    public func values(at version: Version.ID) throws -> [Value.ID: ReferenceModel.StoredValue] { try base.values(at: version) }
    public func add(_ version: Version, changes: [Value.Change]) throws { try base.add(version, changes: changes) }
    public func merge(_ first: Version.ID, with second: Version.ID, rule: ReferenceModel.ArbiterRule) throws -> Version.ID {
        try base.merge(first, with: second, rule: rule)
    }
    public func mergeHeads(into version: Version.ID, rule: ReferenceModel.ArbiterRule) throws -> Version.ID? {
        try base.mergeHeads(into: version, rule: rule)
    }
    public func valueChanges(madeIn version: Version.ID) throws -> [Value.Change] { try base.valueChanges(madeIn: version) }
    public var arbiterCallCount: Int? { base.arbiterCallCount }
    public func valueChanges(between first: Version.ID, and second: Version.ID) throws -> [Value.Change] {
        try base.valueChanges(between: first, and: second)
    }

    /// The sender sends `version` and its ancestors (everything when nil) into the pair's
    /// channel; this replica retrieves from it.
    ///
    /// - Throws: What the exchanges throw.
    public func receive(from sender: ExchangeReplica, upTo version: Version.ID?) async throws {
        let channel = try channel(from: sender)
        try await channel.sending.send(upTo: version.map { [$0] })
        try await channel.receiving.retrieve()
    }

    /// The senders send everything they hold into the shared channel at the same time,
    /// then this replica retrieves everything the channel holds.
    ///
    /// - Throws: What the exchanges throw.
    public func receive(concurrentlyFrom senders: [ExchangeReplica]) async throws {
        let exchanges = senders.map(\.sharedExchange)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for exchange in exchanges { group.addTask { _ = try await exchange.send() } }
            try await group.waitForAll()
        }
        try await sharedExchange.retrieve()
    }

    /// The sender offers the shared channel the versions it holds that the channel lacks,
    /// newest first, in up to ``outOfOrderOfferCount`` offers (each newest first inside
    /// too), and this replica retrieves after each: until the last offer, merges are listed
    /// whose predecessors are nowhere, which a retrieve must leave for later
    /// (`ExchangeError.missingPredecessors(_:)`) while adding what it can. After the last
    /// offer the channel again holds every predecessor of what it holds, as the exchange
    /// algorithm expects of a channel once a send is complete.
    ///
    /// - Throws: What the exchanges throw, but for that expected error before the last offer.
    public func receive(outOfOrderFrom sender: ExchangeReplica) async throws {
        let inChannel = Set(try await sender.sharedExchange.retrieveAllVersionIdentifiers())
        let lacking = try sender.versionsInTopologicalOrder().filter { !inChannel.contains($0.id) }
        let size = max(1, (lacking.count + Self.outOfOrderOfferCount - 1) / Self.outOfOrderOfferCount)
        for start in stride(from: 0, to: lacking.count, by: size) {
            let offer = try lacking[start..<min(start + size, lacking.count)].map { version in
                var shipped = version
                shipped.successors = .init()
                return (shipped, try sender.base.store.valueChanges(madeInVersionIdentifiedBy: version.id))
            }
            try await sender.sharedExchange.send(versionChanges: offer)
            do {
                try await sharedExchange.retrieve()
            } catch ExchangeError.missingPredecessors where start + size < lacking.count {
                continue
            }
        }
        // Nothing to offer: what the channel holds already is all there is to retrieve.
        if lacking.isEmpty { try await sharedExchange.retrieve() }
    }

    /// How many offers an out-of-order exchange makes at most.
    public static let outOfOrderOfferCount = 6

    /// Sends everything to the shared channel, then offers it `version` with its timestamp
    /// one second later and the same changes.
    ///
    /// - Returns: True when the channel refused the copy with
    ///   `ExchangeError.conflictingVersion(_:location:)`, false when it took it, and nil
    ///   when this replica does not hold `version`.
    /// - Throws: What the exchanges throw but that refusal.
    public func offerConflictingCopy(of version: Version.ID) async throws -> Bool? {
        try await sharedExchange.send()
        guard var copy = base.store.version(identifiedBy: version) else { return nil }
        copy.successors = .init()
        copy.timestamp += 1
        do {
            try await sharedExchange.send(versionChanges: [(copy, try base.store.valueChanges(madeInVersionIdentifiedBy: version))])
            return false
        } catch ExchangeError.conflictingVersion(let id, _) where id == version {
            return true
        }
    }

    private func channel(from sender: ExchangeReplica) throws -> Channel {
        if let existing = channels[ObjectIdentifier(sender)] { return existing }
        let channel: Channel
        switch base.backend {
        case .memory:
            let space = MemoryExchangeSpace()
            channel = Channel(sending: sharedChannel.wrapping(MemoryExchange(space: space, store: sender.base.store)),
                              receiving: sharedChannel.wrapping(MemoryExchange(space: space, store: base.store)), directory: nil)
        case .file, .sqlite:
            let directory = try TemporaryDirectory(prefix: "llvs-fuzz-exchange")
            channel = Channel(sending: sharedChannel.wrapping(FileSystemExchange(rootDirectoryURL: directory.url, store: sender.base.store)),
                              receiving: sharedChannel.wrapping(FileSystemExchange(rootDirectoryURL: directory.url, store: base.store)),
                              directory: directory)
        }
        channels[ObjectIdentifier(sender)] = channel
        return channel
    }

    public func reopened() throws -> ExchangeReplica {
        ExchangeReplica(base: try base.reopened(), sharing: sharedChannel)
    }

    public func makeEmptyReplica() throws -> ExchangeReplica {
        ExchangeReplica(base: try base.makeEmptyReplica(), sharing: sharedChannel)
    }
}

/// The one channel all replicas of a history share: a `MemoryExchangeSpace` between
/// memory stores, a shared directory (`FileSystemExchange`) between file and SQLite stores.
public final class SharedExchangeChannel {
    /// The backend of the replicas that share it.
    public let backend: StoreReplica.Backend
    let space = MemoryExchangeSpace()
    let directory: TemporaryDirectory?
    /// Applied to every exchange the replicas sharing this channel make.
    let wrapping: @Sendable (any Exchange) -> any Exchange

    /// A new, empty channel for replicas on `backend`, whose exchanges are passed through
    /// `wrapping` (unchanged by default).
    ///
    /// - Throws: When the directory cannot be created.
    public init(backend: StoreReplica.Backend, wrapping: @escaping @Sendable (any Exchange) -> any Exchange = { $0 }) throws {
        self.backend = backend
        self.wrapping = wrapping
        directory = backend == .memory ? nil : try TemporaryDirectory(prefix: "llvs-fuzz-shared")
    }

    /// A new exchange between `store` and the channel.
    func exchange(for store: Store) -> any Exchange {
        guard let directory else { return wrapping(MemoryExchange(space: space, store: store)) }
        return wrapping(FileSystemExchange(rootDirectoryURL: directory.url, store: store))
    }
}
