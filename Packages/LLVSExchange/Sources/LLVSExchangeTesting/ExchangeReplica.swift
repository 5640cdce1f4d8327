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
/// sender sent to its receiver, so a partial exchange (`upTo`) stays partial.
public final class ExchangeReplica: FuzzReplica {
    /// The store replica underneath.
    public let base: StoreReplica
    private var channels: [ObjectIdentifier: Channel] = [:]

    /// One direction between two replicas.
    struct Channel {
        var sending: any Exchange
        var receiving: any Exchange
        var directory: TemporaryDirectory?
    }

    /// Wraps a store replica.
    public init(base: StoreReplica) {
        self.base = base
    }

    /// A new, empty replica on `backend`.
    ///
    /// - Throws: When the store cannot be created.
    public convenience init(backend: StoreReplica.Backend) throws {
        self.init(base: try StoreReplica(backend: backend))
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

    private func channel(from sender: ExchangeReplica) throws -> Channel {
        if let existing = channels[ObjectIdentifier(sender)] { return existing }
        let channel: Channel
        switch base.backend {
        case .memory:
            let space = MemoryExchangeSpace()
            channel = Channel(sending: MemoryExchange(space: space, store: sender.base.store),
                              receiving: MemoryExchange(space: space, store: base.store), directory: nil)
        case .file, .sqlite:
            let directory = try TemporaryDirectory(prefix: "llvs-fuzz-exchange")
            channel = Channel(sending: FileSystemExchange(rootDirectoryURL: directory.url, store: sender.base.store),
                              receiving: FileSystemExchange(rootDirectoryURL: directory.url, store: base.store), directory: directory)
        }
        channels[ObjectIdentifier(sender)] = channel
        return channel
    }

    public func reopened() throws -> ExchangeReplica {
        ExchangeReplica(base: try base.reopened())
    }

    public func makeEmptyReplica() throws -> ExchangeReplica {
        ExchangeReplica(base: try base.makeEmptyReplica())
    }
}
