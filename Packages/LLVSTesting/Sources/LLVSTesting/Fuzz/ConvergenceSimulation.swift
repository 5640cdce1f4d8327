import Foundation
import LLVSCore

/// The multi-replica simulator: plays a ``FuzzHistory`` on real replicas and on the
/// ``ReferenceModel`` side by side, and reports every way the replicas depart from the
/// properties being checked.
///
/// Versions get deterministic identifiers (`s<step>r<replica>`) and the history's
/// timestamps, so a history replays identically: the same seed or JSON file gives the same
/// merges, conflicts and tie-breaks on every run. Replicas exchange versions with
/// ``FuzzReplica/receive(from:upTo:)``, in the order the history says.
///
/// ```swift
/// let violations = try ConvergenceSimulation.check(history, properties: [.convergence]) {
///     try StoreReplica(backend: .file)
/// }
/// ```
public struct ConvergenceSimulation<Replica: FuzzReplica> {
    /// The history being played.
    public let history: FuzzHistory
    /// The properties checked.
    public let properties: Set<ConvergenceProperty>
    /// The oracle: every version made so far, with its full dictionary of values.
    public private(set) var model = ReferenceModel()
    /// The replicas.
    public private(set) var replicas: [Replica]
    /// Everything found so far.
    public private(set) var violations: [PropertyViolation] = []

    /// Per replica, the versions it holds in the order it got them (what picks index).
    var held: [[Version.ID]]
    var heldSets: [Set<Version.ID>]
    /// The step being played, or nil during the final checks.
    var step: Int?

    /// Plays `history` on fresh replicas from `makeReplica` and runs the final checks of
    /// `properties`; returns the violations found (empty when the history passes).
    ///
    /// - Throws: Whatever a replica throws — an operation the harness only makes valid
    ///   requests for, so a throw is itself a failure.
    public static func check(_ history: FuzzHistory, properties: Set<ConvergenceProperty> = Set(ConvergenceProperty.allCases),
                             makeReplica: () throws -> Replica) async throws -> [PropertyViolation] {
        var simulation = try ConvergenceSimulation(history: history, properties: properties, makeReplica: makeReplica)
        try await simulation.playOperations()
        try await simulation.runFinalChecks()
        return simulation.violations
    }

    /// Plays `history` and returns its first failure, or nil when it satisfies every
    /// property in `properties`. A replica that throws fails the lowest-numbered property
    /// checked, with the error as the message.
    public static func firstFailure(of history: FuzzHistory, properties: Set<ConvergenceProperty>,
                                    makeReplica: () throws -> Replica) async -> PropertyViolation? {
        do {
            return try await check(history, properties: properties, makeReplica: makeReplica).first
        } catch {
            let property = properties.min { $0.rawValue < $1.rawValue } ?? .mergesMatchModel
            return PropertyViolation(property, step: nil, "a replica threw \(error)")
        }
    }

    /// Creates the replicas; plays nothing yet.
    ///
    /// - Throws: Whatever `makeReplica` throws.
    public init(history: FuzzHistory, properties: Set<ConvergenceProperty>, makeReplica: () throws -> Replica) throws {
        self.history = history
        self.properties = properties
        self.replicas = try (0..<history.replicaCount).map { _ in try makeReplica() }
        self.held = Array(repeating: [], count: history.replicaCount)
        self.heldSets = Array(repeating: [], count: history.replicaCount)
    }

    /// Plays every operation, checking properties 1, 3 and 5 as it goes.
    ///
    /// - Throws: Whatever a replica throws.
    public mutating func playOperations() async throws {
        for (index, operation) in history.operations.enumerated() {
            step = index
            try await play(operation, at: index)
        }
        step = nil
    }

    mutating func play(_ operation: FuzzOperation, at step: Int) async throws {
        switch operation {
        case let .write(replica, base, time, edits):
            let r = replicaIndex(replica)
            let predecessors = base.flatMap { pick(r, $0) }.map { [$0] } ?? []
            try write(on: r, predecessors: predecessors, time: time, edits: edits, step: step)
        case let .handMerge(replica, first, second, time, edits):
            let r = replicaIndex(replica)
            let a = pick(r, first), b = pick(r, second)
            let predecessors = [a, a == b ? nil : b].compactMap { $0 }
            try write(on: r, predecessors: predecessors, time: time, edits: edits, step: step)
        case let .merge(replica, first, second, rule):
            let r = replicaIndex(replica)
            guard let a = pick(r, first), let b = pick(r, second) else { return }
            try merge(on: r, a, b, rule: rule)
        case let .mergeHeads(replica, into, rule):
            let r = replicaIndex(replica)
            guard let target = pick(r, into) else { return }
            _ = try mergeHeads(on: r, into: target, rule: rule)
        case let .exchange(from, to, upTo):
            let sender = replicaIndex(from), receiver = replicaIndex(to)
            guard sender != receiver, !held[sender].isEmpty else { return }
            try await exchange(from: sender, to: receiver, upTo: upTo.flatMap { pick(sender, $0) })
        }
    }

    // MARK: Operations

    mutating func write(on r: Int, predecessors: [Version.ID], time: Int, edits: [KeyEdit], step: Int) throws {
        let id = Version.ID("s\(step)r\(r)")
        var latest: [Value.ID: Data?] = [:]
        for edit in edits { latest[edit.valueId] = .some(edit.data(in: id)) }
        let changes: [Value.Change] = latest.sorted { $0.key < $1.key }.map { valueId, data in
            data.map { .update(Value(id: valueId, data: $0)) } ?? .remove(valueId)
        }
        let predecessorsValue = predecessors.first.map { Version.Predecessors(idOfFirst: $0, idOfSecond: predecessors.count > 1 ? predecessors[1] : nil) }
        try replicas[r].add(Version(id: id, predecessors: predecessorsValue, timestamp: Double(time)), changes: changes)
        model.addVersion(id: id, predecessors: predecessors, timestamp: Double(time), changes: latest)
        try absorbNewVersions(of: r)
    }

    mutating func merge(on r: Int, _ first: Version.ID, _ second: Version.ID, rule: ReferenceModel.ArbiterRule) throws {
        let countBefore = held[r].count
        let result = try replicas[r].merge(first, with: second, rule: rule)
        let added = try absorbNewVersions(of: r)
        let fastForward: Version.ID? = first == second ? first
            : model.isAncestorOrSelf(first, of: second) ? second
            : model.isAncestorOrSelf(second, of: first) ? first : nil
        if let fastForward {
            expect(.fastForward, result == fastForward && added.isEmpty,
                   "merging \(first) with \(second) gave \(result) and wrote \(added.count) version(s); expected \(fastForward) and none")
            return
        }
        expect(.mergesMatchModel, added.count <= 1 && held[r].count <= countBefore + 1,
               "merging \(first) with \(second) wrote \(added.count) versions")
        try checkMerge(result, of: first, and: second, rule: rule, on: r, timestamp: added.first { $0.id == result }?.timestamp)
    }

    /// Merges heads, checking every merge version it writes against the model.
    mutating func mergeHeads(on r: Int, into target: Version.ID, rule: ReferenceModel.ArbiterRule) throws -> Version.ID? {
        let result = try replicas[r].mergeHeads(into: target, rule: rule)
        for version in try absorbNewVersions(of: r) {
            let predecessors = version.predecessorIds
            guard predecessors.count == 2 else {
                record(.mergesMatchModel, "merging heads wrote \(version.id) with \(predecessors.count) predecessor(s)")
                continue
            }
            try checkMerge(version.id, of: predecessors[0], and: predecessors[1], rule: rule, on: r, timestamp: version.timestamp)
        }
        let heads = try replicas[r].headIdentifiers()
        expect(.convergence, heads.count == 1, "after merging heads into \(target), replica \(r) has heads \(heads.sorted())")
        return result
    }

    mutating func exchange(from sender: Int, to receiver: Int, upTo version: Version.ID?) async throws {
        try await replicas[receiver].receive(from: replicas[sender], upTo: version)
        let expected = version.map { model.ancestors(of: $0) } ?? heldSets[sender]
        let missing = expected.subtracting(heldSets[receiver])
        let received = try absorbNewVersions(of: receiver)
        expect(.replayRebuilds, missing.subtracting(received.map(\.id)).isEmpty,
               "replica \(receiver) did not receive \(missing.subtracting(received.map(\.id)).sorted()) from replica \(sender)")
        guard properties.contains(.replayRebuilds) else { return }
        for version in received {
            let actual = try replicas[receiver].values(at: version.id)
            let expected = model.versions[version.id]?.values ?? [:]
            expect(.replayRebuilds, actual == expected,
                   "version \(version.id) received by replica \(receiver): \(ValueDifference(expected: expected, actual: actual))")
        }
    }

    /// Checks that the merge `result` of `first` and `second` has the model's values and
    /// records it in the model; `timestamp` is the merge version's, when this step wrote it.
    mutating func checkMerge(_ result: Version.ID, of first: Version.ID, and second: Version.ID,
                             rule: ReferenceModel.ArbiterRule, on r: Int, timestamp: Double?) throws {
        guard properties.contains(.mergesMatchModel) || model.versions[result] == nil else { return }
        let expected = model.mergedValues(first: first, second: second, rule: rule)
        if let known = model.versions[result] {
            expect(.mergesMatchModel, known.values == expected,
                   "merge \(result) of \(first) and \(second) (\(rule)) reuses the identifier of a merge with other values")
        } else if let timestamp {
            model.addMerge(id: result, first: first, second: second, timestamp: timestamp, values: expected)
        } else {
            record(.mergesMatchModel, "merge \(result) of \(first) and \(second) is neither new nor a version made before")
        }
        if properties.contains(.mergesMatchModel) {
            let actual = try replicas[r].values(at: result)
            expect(.mergesMatchModel, actual == expected,
                   "merge \(result) of \(first) and \(second) (\(rule)): \(ValueDifference(expected: expected, actual: actual))")
        }
    }

    // MARK: Bookkeeping

    func replicaIndex(_ number: Int) -> Int { Int(number.magnitude % UInt(history.replicaCount)) }

    /// The version `number` picks among those replica `r` holds, or nil if it holds none.
    func pick(_ r: Int, _ number: Int) -> Version.ID? {
        held[r].isEmpty ? nil : held[r][Int(number.magnitude % UInt(held[r].count))]
    }

    /// Records the versions replica `r` gained since the last call; returns them oldest
    /// first.
    @discardableResult
    mutating func absorbNewVersions(of r: Int) throws -> [Version] {
        let new = try replicas[r].versionsInTopologicalOrder().filter { !heldSets[r].contains($0.id) }.reversed()
        for version in new {
            held[r].append(version.id)
            heldSets[r].insert(version.id)
        }
        return Array(new)
    }

    mutating func expect(_ property: ConvergenceProperty, _ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { record(property, message()) }
    }

    mutating func record(_ property: ConvergenceProperty, _ message: String) {
        guard properties.contains(property) else { return }
        violations.append(PropertyViolation(property, step: step, message))
    }
}
