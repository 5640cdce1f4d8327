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
/// let violations = try await ConvergenceSimulation.check(history, properties: [.convergence]) {
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
    /// Per replica, how many versions it has listed so far (what ``FuzzReplica/versions(addedAfter:)`` skips).
    var listedCounts: [Int]
    /// Per replica, the versions it holds that no other version it holds builds on.
    var heads: [Set<Version.ID>]
    /// Per version, the record first seen and the replica that listed it (property 8).
    var records: [Version.ID: (record: LoggedRecord, replica: Int)] = [:]
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
            return PropertyViolation(property, step: nil, "a replica threw \(error)", errorClass: ErrorClass.of(error))
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
        self.listedCounts = Array(repeating: 0, count: history.replicaCount)
        self.heads = Array(repeating: [], count: history.replicaCount)
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
            try write(on: r, id: Version.ID("s\(step)r\(r)"), predecessors: predecessors, time: time, edits: edits)
        case let .handMerge(replica, first, second, time, edits):
            let r = replicaIndex(replica)
            let a = pick(r, first), b = pick(r, second)
            let predecessors = [a, a == b ? nil : b].compactMap { $0 }
            try write(on: r, id: Version.ID("s\(step)r\(r)"), predecessors: predecessors, time: time, edits: edits)
        case let .ladder(replica, rungs, key):
            try writeLadder(on: replicaIndex(replica), rungs: max(0, rungs), key: key, step: step)
        case let .braid(replica, levels, key):
            try writeBraid(on: replicaIndex(replica), levels: max(0, levels), key: key, step: step)
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
        case let .concurrentExchange(from, and, to):
            let senders = Set([replicaIndex(from), replicaIndex(and)]).sorted(), receiver = replicaIndex(to)
            guard senders.contains(where: { !held[$0].isEmpty }) else { return }
            let expected = senders.reduce(into: Set<Version.ID>()) { $0.formUnion(heldSets[$1]) }
            try await replicas[receiver].receive(concurrentlyFrom: senders.map { replicas[$0] })
            try checkReceived(by: receiver, expected: expected, from: "replicas \(senders) sending at once")
        case let .outOfOrderExchange(from, to):
            let sender = replicaIndex(from), receiver = replicaIndex(to)
            guard sender != receiver, !held[sender].isEmpty else { return }
            try await replicas[receiver].receive(outOfOrderFrom: replicas[sender])
            try checkReceived(by: receiver, expected: heldSets[sender], from: "replica \(sender), newest first")
        case let .conflictingCopy(replica, version):
            let r = replicaIndex(replica)
            guard let target = pick(r, version) else { return }
            let refused = try await replicas[r].offerConflictingCopy(of: target)
            expect(.oneIdOneRecord, refused != false,
                   "the shared channel took a copy of \(target) with another timestamp from replica \(r) after logging \(target)")
        }
    }

    // MARK: Operations

    /// The metadata of every version a replica writes (as an app's default metadata, such
    /// as a device name): it differs per replica, and no merge may carry it.
    static func writeMetadata(of r: Int) -> Version.Metadata {
        [Version.MetadataKey(rawValue: "device"): Version.MetadataValue(data: Data("replica \(r)".utf8))]
    }

    mutating func write(on r: Int, id: Version.ID, predecessors: [Version.ID], time: Int, edits: [KeyEdit]) throws {
        var latest: [Value.ID: Data?] = [:]
        for edit in edits { latest[edit.valueId] = .some(edit.data(in: id)) }
        let changes: [Value.Change] = latest.sorted { $0.key < $1.key }.map { valueId, data in
            data.map { .update(Value(id: valueId, data: $0)) } ?? .remove(valueId)
        }
        let predecessorsValue = predecessors.first.map { Version.Predecessors(idOfFirst: $0, idOfSecond: predecessors.count > 1 ? predecessors[1] : nil) }
        try replicas[r].add(Version(id: id, predecessors: predecessorsValue, timestamp: Double(time), metadata: Self.writeMetadata(of: r)),
                            changes: changes)
        model.addVersion(id: id, predecessors: predecessors, timestamp: Double(time), changes: latest)
        try absorbNewVersions(of: r)
    }

    /// A ladder of `rungs` rungs on replica `r`, from its newest version (see ``FuzzOperation/ladder(replica:rungs:key:)``).
    mutating func writeLadder(on r: Int, rungs: Int, key: Int, step: Int) throws {
        let base = held[r].last.map { [$0] } ?? []
        var a = Version.ID("s\(step)r\(r)a0"), b = Version.ID("s\(step)r\(r)b0")
        try write(on: r, id: a, predecessors: base, time: step, edits: [KeyEdit(key: key, action: 1)])
        try write(on: r, id: b, predecessors: base, time: step, edits: [KeyEdit(key: key, action: 2)])
        for rung in 0..<rungs {
            let nextA = Version.ID("s\(step)r\(r)a\(rung + 1)"), nextB = Version.ID("s\(step)r\(r)b\(rung + 1)")
            try write(on: r, id: nextA, predecessors: [a, b], time: step, edits: [KeyEdit(key: key, action: 1)])
            try write(on: r, id: nextB, predecessors: [b, a], time: step, edits: [KeyEdit(key: key, action: 2)])
            (a, b) = (nextA, nextB)
        }
    }

    /// A braid of `levels` levels on replica `r`, from its newest version (see ``FuzzOperation/braid(replica:levels:key:)``).
    mutating func writeBraid(on r: Int, levels: Int, key: Int, step: Int) throws {
        let base = held[r].last.map { [$0] } ?? []
        var strands: [Version.ID] = []
        for strand in 0..<3 {
            let id = Version.ID("s\(step)r\(r)t\(strand)l0")
            try write(on: r, id: id, predecessors: base, time: step, edits: [KeyEdit(key: key + strand, action: 1)])
            strands.append(id)
        }
        for level in stride(from: 1, through: levels, by: 1) {
            var next: [Version.ID] = []
            for strand in 0..<3 {
                let pair = Version.ID("s\(step)r\(r)t\(strand)l\(level)p"), top = Version.ID("s\(step)r\(r)t\(strand)l\(level)")
                try write(on: r, id: pair, predecessors: [strands[strand], strands[(strand + 1) % 3]], time: step, edits: [])
                try write(on: r, id: top, predecessors: [pair, strands[(strand + 2) % 3]], time: step,
                          edits: [KeyEdit(key: key + strand, action: 1 + level % 2)])
                next.append(top)
            }
            strands = next
        }
    }

    mutating func merge(on r: Int, _ first: Version.ID, _ second: Version.ID, rule: ReferenceModel.ArbiterRule) throws {
        let countBefore = held[r].count
        let callsBefore = replicas[r].arbiterCallCount
        let result = try replicas[r].merge(first, with: second, rule: rule)
        checkArbiterCalls(on: r, since: callsBefore, bound: { $0.arbiterCallBound(first: first, second: second) },
                          "merging \(first) with \(second)")
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
        try checkMerge(result, of: first, and: second, rule: rule, on: r)
    }

    /// Merges heads, checking the result against the model's own chain: the replica's
    /// heads and the target, less those that are ancestors of another, in byte order of
    /// their identifiers, merged left to right (SPEC.md section 9, "Merging heads").
    mutating func mergeHeads(on r: Int, into target: Version.ID, rule: ReferenceModel.ArbiterRule) throws -> Version.ID? {
        let members = heads[r].union([target])
        let ancestry = Dictionary(uniqueKeysWithValues: members.map { ($0, model.ancestors(of: $0)) })
        let candidates = members.filter { id in !members.contains { other in other != id && ancestry[other]?.contains(id) == true } }.sorted()
        let callsBefore = replicas[r].arbiterCallCount
        let result = try replicas[r].mergeHeads(into: target, rule: rule)
        let added = try absorbNewVersions(of: r)
        var merged = candidates.first ?? target
        var chain: [Version.ID] = []
        var callBound = 0
        for next in candidates.dropFirst() {
            let first = merged
            callBound += model.arbiterCallBound(first: first, second: next)
            guard let expected = model.merge(first: first, second: next, rule: rule) else { break }
            if model.versions[expected.id] == nil { model.add(expected) }
            chain.append(expected.id)
            merged = expected.id
            checkMergeVersion(expected, of: first, and: next, rule: rule, on: r)
        }
        checkArbiterCalls(on: r, since: callsBefore, bound: { _ in callBound }, "merging heads into \(target)")
        let expectedResult: Version.ID? = merged == target ? nil : merged
        expect(.mergesMatchModel, result == expectedResult,
               "merging heads into \(target) on replica \(r) (\(rule)) gave \(result.map(\.rawValue) ?? "nothing"); merging \(candidates) in byte order gives \(expectedResult.map(\.rawValue) ?? "nothing")")
        let unexpected = Set(added.map(\.id)).subtracting(chain)
        expect(.mergesMatchModel, unexpected.isEmpty, "merging heads into \(target) on replica \(r) wrote \(unexpected.sorted()), which the model's chain does not make")
        let headsAfter = heads[r]
        expect(.convergence, headsAfter.count == 1, "after merging heads into \(target), replica \(r) has heads \(headsAfter.sorted())")
        return result
    }

    /// Bounded merges (SPEC.md section 9, "Several merge bases"): the arbiter calls replica
    /// `r` made since `before` are at most the model's `bound` — one per merge written and
    /// one per pairwise step of each distinct set of bases below it (a store that made a
    /// virtual ancestor again for every path to it would call the arbiter exponentially
    /// often in a braid's depth).
    mutating func checkArbiterCalls(on r: Int, since before: Int?, bound: (ReferenceModel) -> Int, _ what: @autoclosure () -> String) {
        guard properties.contains(.mergesMatchModel), let before, let after = replicas[r].arbiterCallCount else { return }
        // The model comes in as an argument: the caller is a mutating method of this simulation.
        let limit = bound(model)
        expect(.mergesMatchModel, after - before <= limit,
               "\(what()) on replica \(r) called the arbiter \(after - before) times; one call per merge and per pairwise step of each distinct set of bases below it makes at most \(limit)")
    }

    /// Checks the merge `result` of `first` and `second` (in this argument order) against
    /// the model's: its identifier by SPEC's formula, its record and its values; then
    /// records it in the model (under the replica's identifier, should they differ).
    mutating func checkMerge(_ result: Version.ID, of first: Version.ID, and second: Version.ID,
                             rule: ReferenceModel.ArbiterRule, on r: Int) throws {
        guard var expected = model.merge(first: first, second: second, rule: rule) else {
            record(.mergesMatchModel, "the model does not know \(first) or \(second)")
            return
        }
        if result != expected.id {
            record(.mergesMatchModel, "merging \(first) with \(second) (\(rule)) on replica \(r) made \(result); SPEC's merge identity gives \(expected.id)")
            expected = expected.renamed(to: result)
        }
        if model.versions[result] == nil { model.add(expected) }
        checkMergeVersion(expected, of: first, and: second, rule: rule, on: r)
    }

    /// Checks that replica `r` holds the model's merge `expected` with its record and values.
    mutating func checkMergeVersion(_ expected: ReferenceModel.ModelVersion, of first: Version.ID, and second: Version.ID,
                                    rule: ReferenceModel.ArbiterRule, on r: Int) {
        guard properties.contains(.mergesMatchModel) else { return }
        guard heldSets[r].contains(expected.id) else {
            record(.mergesMatchModel, "replica \(r) lacks \(expected.id), the model's merge of \(first) with \(second) (\(rule))")
            return
        }
        if let logged = records[expected.id]?.record {
            expect(.mergesMatchModel, logged.predecessors == expected.predecessors && logged.timestamp == expected.timestamp && logged.metadata.isEmpty,
                   "merge \(expected.id) has predecessors \(logged.predecessors), timestamp \(logged.timestamp) and \(logged.metadata.count) metadata entries; expected \(expected.predecessors) (byte order), \(expected.timestamp) and none")
        }
        do {
            let actual = try replicas[r].values(at: expected.id)
            expect(.mergesMatchModel, actual == expected.values,
                   "merge \(expected.id) of \(first) with \(second) (\(rule)): \(ValueDifference(expected: expected.values, actual: actual))")
        } catch {
            record(.mergesMatchModel, "reading merge \(expected.id) on replica \(r) threw \(error)", errorClass: ErrorClass.of(error))
        }
    }

    mutating func exchange(from sender: Int, to receiver: Int, upTo version: Version.ID?) async throws {
        let expected = version.map { model.ancestors(of: $0) } ?? heldSets[sender]
        try await replicas[receiver].receive(from: replicas[sender], upTo: version)
        try checkReceived(by: receiver, expected: expected, from: "replica \(sender)")
    }

    /// Checks that `receiver`, after an exchange, holds every version of `expected`, and
    /// the model's values at each version it got.
    mutating func checkReceived(by receiver: Int, expected: Set<Version.ID>, from source: String) throws {
        let missing = expected.subtracting(heldSets[receiver])
        let received = try absorbNewVersions(of: receiver)
        expect(.replayRebuilds, missing.subtracting(received.map(\.id)).isEmpty,
               "replica \(receiver) did not receive \(missing.subtracting(received.map(\.id)).sorted()) from \(source)")
        guard properties.contains(.replayRebuilds) else { return }
        for version in received {
            let actual = try replicas[receiver].values(at: version.id)
            let expected = model.versions[version.id]?.values ?? [:]
            expect(.replayRebuilds, actual == expected,
                   "version \(version.id) received by replica \(receiver): \(ValueDifference(expected: expected, actual: actual))")
        }
    }

    // MARK: Bookkeeping

    func replicaIndex(_ number: Int) -> Int { Int(number.magnitude % UInt(history.replicaCount)) }

    /// The version `number` picks among those replica `r` holds, or nil if it holds none.
    func pick(_ r: Int, _ number: Int) -> Version.ID? {
        held[r].isEmpty ? nil : held[r][Int(number.magnitude % UInt(held[r].count))]
    }

    /// Records the versions replica `r` gained since the last call, in the order it got
    /// them, and checks property 8 on each; returns them.
    @discardableResult
    mutating func absorbNewVersions(of r: Int) throws -> [Version] {
        let listed = try replicas[r].versions(addedAfter: listedCounts[r])
        listedCounts[r] += listed.count
        var new: [Version] = []
        for version in listed {
            guard heldSets[r].insert(version.id).inserted else {
                record(.historyInvariants, "replica \(r) lists \(version.id) twice")
                continue
            }
            held[r].append(version.id)
            heads[r].subtract(version.predecessorIds)
            heads[r].insert(version.id)
            new.append(version)
            try checkRecord(of: version, on: r)
        }
        return new
    }

    /// Property 8: the record and shipped changes of `version` on replica `r` are those of
    /// the first replica that listed it.
    mutating func checkRecord(of version: Version, on r: Int) throws {
        let changes = properties.contains(.oneIdOneRecord) ? try replicas[r].valueChanges(madeIn: version.id) : []
        let logged = LoggedRecord(version, changes: changes)
        guard let first = records[version.id] else {
            records[version.id] = (logged, r)
            return
        }
        expect(.oneIdOneRecord, first.record == logged,
               "\(version.id) on replica \(r) is \(logged); replica \(first.replica) holds \(first.record)")
    }

    mutating func expect(_ property: ConvergenceProperty, _ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { record(property, message()) }
    }

    mutating func record(_ property: ConvergenceProperty, _ message: String, errorClass: String? = nil) {
        guard properties.contains(property) else { return }
        violations.append(PropertyViolation(property, step: step, message, errorClass: errorClass))
    }
}

/// What property 8 compares between replicas: a version's record (without its successors,
/// which depend on what else a replica holds) and the changes it ships.
struct LoggedRecord: Equatable, CustomStringConvertible {
    var predecessors: [Version.ID]
    var timestamp: Double
    var valueDataSize: Int64?
    var metadata: Version.Metadata
    var changes: [Value.Change]

    init(_ version: Version, changes: [Value.Change]) {
        predecessors = version.predecessorIds
        timestamp = version.timestamp
        valueDataSize = version.valueDataSize
        metadata = version.metadata
        self.changes = changes
    }

    var description: String {
        "a record with predecessors \(predecessors), timestamp \(timestamp), data size \(valueDataSize.map(String.init) ?? "none"), metadata keys \(metadata.keys.map(\.rawValue).sorted()) and \(changes.count) shipped changes \(changes)"
    }
}
