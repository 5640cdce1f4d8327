import Foundation
import LLVSCore

/// A replica of a versioned store as the convergence harness drives it.
///
/// The harness knows stores only through this protocol, so it depends on nothing above the
/// core vocabulary: the store package conforms `Store` to it (`StoreReplica` in
/// `LLVSStoreTesting`) over each zone backend, and a port or another backend can run the
/// same properties by conforming too — the way Irmin's backends each run `irmin-test`.
public protocol FuzzReplica: AnyObject {
    /// Every version the replica holds, newest first in its topological order (a version
    /// before each of its predecessors).
    func versionsInTopologicalOrder() throws -> [Version]

    /// The versions added after the first `count` the replica got, in the order it got
    /// them (each after its predecessors). The harness asks for what is new after every
    /// operation, so this must cost what it returns, not what the replica holds.
    func versions(addedAfter count: Int) throws -> [Version]

    /// The identifiers of the versions without successors.
    func headIdentifiers() throws -> Set<Version.ID>

    /// All best common ancestors of two versions, in any order.
    func mergeBases(of first: Version.ID, and second: Version.ID) throws -> [Version.ID]

    /// Every value at a version, with the version that stored its data.
    func values(at version: Version.ID) throws -> [Value.ID: ReferenceModel.StoredValue]

    /// Adds a version with exactly this identifier, predecessors and timestamp, applying
    /// `changes` to its first predecessor's values (as `Store.addVersion` does).
    func add(_ version: Version, changes: [Value.Change]) throws

    /// Merges two versions with the built-in arbiter of `rule`; returns the identifier of
    /// the merge, or of the version a fast-forward lands on.
    func merge(_ first: Version.ID, with second: Version.ID, rule: ReferenceModel.ArbiterRule) throws -> Version.ID

    /// Merges every head into `version` with the arbiter of `rule`; returns the final
    /// merge's identifier, or nil when nothing needed merging.
    func mergeHeads(into version: Version.ID, rule: ReferenceModel.ArbiterRule) throws -> Version.ID?

    /// The changes `version` made relative to its first predecessor (what exchanges ship).
    func valueChanges(madeIn version: Version.ID) throws -> [Value.Change]

    /// The changes that turn the values at `first` into those at `second`.
    func valueChanges(between first: Version.ID, and second: Version.ID) throws -> [Value.Change]

    /// Receives the versions of `sender` this replica lacks — all of them, or only
    /// `version` and its ancestors — through the replica's exchange path.
    func receive(from sender: Self, upTo version: Version.ID?) async throws

    /// Receives everything the channel that all replicas share holds after `senders` sent
    /// everything they hold into it at the same time.
    func receive(concurrentlyFrom senders: [Self]) async throws

    /// Receives the versions of `sender`, which offers those its channel lacks newest
    /// first (a merge before its predecessors) while this replica retrieves after each
    /// offer; the last retrieve completes the transfer.
    func receive(outOfOrderFrom sender: Self) async throws

    /// Sends everything to the shared channel, then offers it a copy of `version` with a
    /// later timestamp. Returns true when the channel refused the copy with its typed
    /// conflict error, false when it took it, and nil when the replica has no channel.
    func offerConflictingCopy(of version: Version.ID) async throws -> Bool?

    /// How many times this replica's merges have called their arbiter so far (virtual
    /// ancestors included), or nil when it does not count them.
    var arbiterCallCount: Int? { get }

    /// The same replica opened again from its storage, as after an app restart.
    func reopened() throws -> Self

    /// A new, empty replica of the same kind (same backend).
    func makeEmptyReplica() throws -> Self
}

extension FuzzReplica {
    /// Receives from each sender in turn (a replica without a shared channel).
    public func receive(concurrentlyFrom senders: [Self]) async throws {
        for sender in senders where sender !== self { try await receive(from: sender, upTo: nil) }
    }

    /// Receives everything from `sender` (a replica without a shared channel).
    public func receive(outOfOrderFrom sender: Self) async throws {
        try await receive(from: sender, upTo: nil)
    }

    /// Nil: no channel.
    public func offerConflictingCopy(of version: Version.ID) async throws -> Bool? { nil }

    /// Nil: not counted.
    public var arbiterCallCount: Int? { nil }
}
