import Foundation
import LLVSCore
import LLVSExchangeTesting
import LLVSStoreTesting
import LLVSTesting

/// A store replica with one deliberate fault, to show that the harness notices it: each
/// property's check must fail for the fault aimed at it.
final class FaultyReplica: FuzzReplica {
    /// The faults, one per property.
    enum Fault: CaseIterable, Sendable {
        /// Merges resolve conflicts with the other built-in arbiter.
        case mergesWithTheOtherArbiter
        /// Merging heads does nothing.
        case mergeHeadsDoesNothing
        /// Merging a version with an ancestor writes a merge version.
        case mergeWritesOnFastForward
        /// Merge bases omit all but the first.
        case oneMergeBaseOnly
        /// The changes a version made lose their last change.
        case valueChangesDropTheLast
        /// Diffs leave out removals.
        case diffsOmitRemovals
        /// Reopening loses the newest version.
        case reopeningLosesVersions
        /// A merge's record lists its predecessors in call order and its changes start
        /// from the version merged into, as before one identifier had one record: merge(a,
        /// b) and merge(b, a) make one identifier with two records.
        case mergeRecordsInCallOrder
        /// Merges carry the replica's own metadata (a coordinator's default metadata, as
        /// before merges carried none), so replicas never settle on one head.
        case mergesCarryReplicaMetadata

        /// The property whose check must catch the fault.
        var property: ConvergenceProperty {
            switch self {
            case .mergesWithTheOtherArbiter: return .mergesMatchModel
            case .mergeHeadsDoesNothing: return .convergence
            case .mergeWritesOnFastForward: return .fastForward
            case .oneMergeBaseOnly: return .historyInvariants
            case .valueChangesDropTheLast: return .replayRebuilds
            case .diffsOmitRemovals: return .diffsConsistent
            case .reopeningLosesVersions: return .reopenIdentical
            case .mergeRecordsInCallOrder: return .oneIdOneRecord
            case .mergesCarryReplicaMetadata: return .convergence
            }
        }
    }

    let base: ExchangeReplica
    let fault: Fault
    /// The metadata this replica's merges carry under ``Fault/mergesCarryReplicaMetadata``.
    let ownMetadata: Version.Metadata = [Version.MetadataKey(rawValue: "device"): Version.MetadataValue(data: Data(UUID().uuidString.utf8))]
    /// Under ``Fault/mergeRecordsInCallOrder``, the merges this replica made with the
    /// later identifier first, by identifier: the call's order.
    var callOrder: [Version.ID: (first: Version.ID, second: Version.ID)] = [:]

    init(_ base: ExchangeReplica, fault: Fault) {
        self.base = base
        self.fault = fault
    }

    func versions(addedAfter count: Int) throws -> [Version] {
        try base.versions(addedAfter: count).map { version in
            guard let order = callOrder[version.id] else { return version }
            var reordered = version
            reordered.predecessors = .init(idOfFirst: order.first, idOfSecond: order.second)
            return reordered
        }
    }

    func versionsInTopologicalOrder() throws -> [Version] {
        try base.versionsInTopologicalOrder()
    }

    func headIdentifiers() throws -> Set<Version.ID> {
        try base.headIdentifiers()
    }

    func mergeBases(of first: Version.ID, and second: Version.ID) throws -> [Version.ID] {
        let bases = try base.mergeBases(of: first, and: second).sorted()
        return fault == .oneMergeBaseOnly ? Array(bases.prefix(1)) : bases
    }

    func values(at version: Version.ID) throws -> [Value.ID: ReferenceModel.StoredValue] {
        try base.values(at: version)
    }

    func add(_ version: Version, changes: [Value.Change]) throws {
        try base.add(version, changes: changes)
    }

    func merge(_ first: Version.ID, with second: Version.ID, rule: ReferenceModel.ArbiterRule) throws -> Version.ID {
        switch fault {
        case .mergesWithTheOtherArbiter:
            return try base.merge(first, with: second, rule: rule == .mostRecentBranch ? .mostRecentChange : .mostRecentBranch)
        case .mergeWritesOnFastForward where first != second:
            let isAncestor = try base.base.store.queryHistory { try $0.isAncestor(first, of: second) || $0.isAncestor(second, of: first) }
            guard isAncestor else { fallthrough }
            let version = try base.base.store.makeVersion(basedOn: .init(idOfFirst: first, idOfSecond: second), storing: [])
            return version.id
        case .mergesCarryReplicaMetadata:
            return try base.base.merge(first, with: second, rule: rule, metadata: ownMetadata)
        case .mergeRecordsInCallOrder where second < first:
            let countBefore = base.base.store.queryHistory { $0.count }
            let merged = try base.merge(first, with: second, rule: rule)
            if base.base.store.queryHistory({ $0.count }) > countBefore { callOrder[merged] = (first, second) }
            return merged
        default:
            return try base.merge(first, with: second, rule: rule)
        }
    }

    func mergeHeads(into version: Version.ID, rule: ReferenceModel.ArbiterRule) throws -> Version.ID? {
        switch fault {
        case .mergeHeadsDoesNothing: return nil
        case .mergesCarryReplicaMetadata: return try base.base.mergeHeads(into: version, rule: rule, metadata: ownMetadata)
        default: return try base.mergeHeads(into: version, rule: rule)
        }
    }

    func valueChanges(madeIn version: Version.ID) throws -> [Value.Change] {
        if let order = callOrder[version] { return try base.valueChanges(between: order.first, and: version) }
        let changes = try base.valueChanges(madeIn: version)
        return fault == .valueChangesDropTheLast ? Array(changes.dropLast()) : changes
    }

    func valueChanges(between first: Version.ID, and second: Version.ID) throws -> [Value.Change] {
        let changes = try base.valueChanges(between: first, and: second)
        guard fault == .diffsOmitRemovals else { return changes }
        return changes.filter { if case .remove = $0 { return false } else { return true } }
    }

    func receive(from sender: FaultyReplica, upTo version: Version.ID?) async throws {
        try await base.receive(from: sender.base, upTo: version)
    }

    func receive(concurrentlyFrom senders: [FaultyReplica]) async throws {
        try await base.receive(concurrentlyFrom: senders.map(\.base))
    }

    func receive(outOfOrderFrom sender: FaultyReplica) async throws {
        try await base.receive(outOfOrderFrom: sender.base)
    }

    func offerConflictingCopy(of version: Version.ID) async throws -> Bool? {
        try await base.offerConflictingCopy(of: version)
    }

    var arbiterCallCount: Int? { base.arbiterCallCount }

    func reopened() throws -> FaultyReplica {
        guard fault == .reopeningLosesVersions else { return FaultyReplica(try base.reopened(), fault: fault) }
        let copy = try base.makeEmptyReplica()
        for version in try base.versionsInTopologicalOrder().dropFirst().reversed() {
            try copy.add(version, changes: try base.valueChanges(madeIn: version.id))
        }
        return FaultyReplica(copy, fault: fault)
    }

    func makeEmptyReplica() throws -> FaultyReplica {
        FaultyReplica(try base.makeEmptyReplica(), fault: fault)
    }
}
