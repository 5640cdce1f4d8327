import Foundation
import LLVSCore
@_spi(Testing) import LLVSModel
import LLVSStore
import LLVSStoreTesting
import LLVSTesting

/// A way a model history broke the model layer's promises.
public struct ModelViolation: Error, Hashable, Sendable, CustomStringConvertible {
    /// Which promise.
    public enum Property: String, Codable, Hashable, Sendable, CaseIterable {
        /// A merge gave another version when made the other way round.
        case orderIndependence
        /// After everyone exchanged everything and merged, replicas hold different heads or models.
        case convergence
        /// A merged model could not be read back, or a replica threw.
        case readable
    }

    /// The promise broken.
    public var property: Property
    /// The step, or nil for the final checks.
    public var step: Int?
    /// What happened.
    public var message: String
    /// For a violation that is an error thrown, the error's class (`ErrorClass.of`); nil
    /// for a promise found broken.
    public var errorClass: String? = nil

    /// Whether `other` is the same failure: the same property, broken the same way (an
    /// error of the same class, or an observation). The shrinker keeps to it.
    public func hasSameCause(as other: ModelViolation) -> Bool {
        property == other.property && errorClass == other.errorClass
    }

    public var description: String { "[\(property.rawValue)] \(step.map { "step \($0): " } ?? "final: ")\(message)" }
}

/// Plays a ``ModelFuzzHistory`` on real stores of one backend, with a `MergeableArbiter`
/// for ``FuzzBoard`` and ``FuzzPerson``, and checks that every merge is the same in either
/// argument order and that all replicas end on one head holding identical models.
public struct ModelConvergenceSimulation {
    /// The fault to plant, for showing the harness catches it.
    public enum PlantedFault: String, Sendable, CaseIterable {
        /// The reference LLVS's rule: the merge's first argument wins conflicts.
        case firstArgumentWins = "first-argument"
    }

    final class Replica {
        let directory: TemporaryDirectory
        let store: Store
        var held: [Version.ID] = []

        init(backend: StoreReplica.Backend) throws {
            directory = try TemporaryDirectory(prefix: "llvs-model-fuzz")
            store = try Store(rootDirectoryURL: directory.url, storage: backend.makeStorage())
        }

        func pick(_ index: Int?) -> Version.ID? {
            guard let index, !held.isEmpty else { return nil }
            return held[index % held.count]
        }

        /// The versions added since the last call.
        func absorb() {
            let known = Set(held)
            let all = store.queryHistory { Array($0).reversed().map(\.id) }
            held.append(contentsOf: all.filter { !known.contains($0) })
        }

        var newestHead: Version.ID? { store.mostRecentHead?.id }
    }

    /// Plays `history` on `backend` and returns the violations (empty when it passes).
    public static func check(_ history: ModelFuzzHistory, backend: StoreReplica.Backend, planting fault: PlantedFault? = nil) -> [ModelViolation] {
        var violations: [ModelViolation] = []
        do {
            try play(history, backend: backend, fault: fault, violations: &violations)
        } catch {
            violations.append(ModelViolation(property: .readable, step: nil, message: "a replica threw \(error)", errorClass: ErrorClass.of(error)))
        }
        return violations
    }

    private static func arbiter(_ fault: PlantedFault?) -> MergeableArbiter {
        let arbiter = fault == .firstArgumentWins ? MergeableArbiter(sideOrder: .firstArgument) : MergeableArbiter()
        arbiter.register(FuzzBoard.self)
        arbiter.register(FuzzPerson.self)
        return arbiter
    }

    private static func play(_ history: ModelFuzzHistory, backend: StoreReplica.Backend, fault: PlantedFault?,
                             violations: inout [ModelViolation]) throws {
        let replicas = try (0..<history.replicaCount).map { _ in try Replica(backend: backend) }
        let arbiter = arbiter(fault)
        func replica(_ index: Int) -> Replica { replicas[((index % replicas.count) + replicas.count) % replicas.count] }
        for (step, operation) in history.operations.enumerated() {
            do {
                switch operation {
                case let .edit(index, base, time, edits):
                    let r = replica(index)
                    let predecessor = base == nil ? r.newestHead : r.pick(base)
                    try write(on: r, id: "s\(step)", predecessors: predecessor.map { [$0] } ?? [], time: time, edits: edits)
                case let .handMerge(index, first, second, time, edits):
                    let r = replica(index)
                    guard let a = r.pick(first), let b = r.pick(second) else { continue }
                    try write(on: r, id: "s\(step)", predecessors: a == b ? [a] : [a, b], time: time, edits: edits)
                case let .merge(index, first, second):
                    let r = replica(index)
                    guard let a = r.pick(first), let b = r.pick(second) else { continue }
                    let forward = try r.store.merge(version: a, with: b, resolvingWith: arbiter)
                    let backward = try r.store.merge(version: b, with: a, resolvingWith: arbiter)
                    if forward.id != backward.id {
                        violations.append(ModelViolation(property: .orderIndependence, step: step,
                                                         message: "merging \(a) with \(b) gave \(forward.id), the other way round \(backward.id)"))
                    }
                    try checkReadable(r.store, at: forward.id, step: step, violations: &violations)
                    r.absorb()
                case let .mergeHeads(index):
                    let r = replica(index)
                    guard let head = r.newestHead else { continue }
                    if let merged = try r.store.mergeHeads(into: head, resolvingWith: arbiter) {
                        try checkReadable(r.store, at: merged.id, step: step, violations: &violations)
                    }
                    r.absorb()
                case let .exchange(from, to):
                    try exchange(from: replica(from), to: replica(to))
                }
            } catch {
                violations.append(ModelViolation(property: .readable, step: step, message: "\(operation) threw \(error)", errorClass: ErrorClass.of(error)))
                return
            }
        }
        // Everyone receives everything and merges; then again, so each holds every merge.
        for _ in 0..<2 {
            for receiver in replicas { for sender in replicas where sender !== receiver { try exchange(from: sender, to: receiver) } }
            for r in replicas {
                if let head = r.newestHead { _ = try r.store.mergeHeads(into: head, resolvingWith: arbiter) }
                r.absorb()
            }
        }
        let heads = replicas.map { $0.store.queryHistory { $0.headIdentifiers } }
        if heads.allSatisfy(\.isEmpty) { return }
        guard heads.allSatisfy({ $0.count == 1 }), Set(heads.flatMap { $0 }).count == 1, let head = heads.first?.first else {
            violations.append(ModelViolation(property: .convergence, step: nil, message: "replicas end with heads \(heads.map { $0.sorted() })"))
            return
        }
        let contents = try replicas.map { try content(of: $0.store, at: head) }
        if Set(contents).count != 1 {
            violations.append(ModelViolation(property: .convergence, step: nil, message: "replicas hold different values at \(head)"))
        }
        try checkReadable(replicas[0].store, at: head, step: nil, violations: &violations)
    }

    /// Every value at `version`, by identifier, as stored bytes.
    private static func content(of store: Store, at version: Version.ID) throws -> [Value.ID: Data] {
        Dictionary(uniqueKeysWithValues: try store.values(storedAt: try store.valueReferences(at: version)).map { ($0.id, $0.data) })
    }

    private static func checkReadable(_ store: Store, at version: Version.ID, step: Int?, violations: inout [ModelViolation]) throws {
        do {
            _ = try store.fetchAllModels(FuzzBoard.self, at: version)
            _ = try store.fetchAllModels(FuzzPerson.self, at: version)
        } catch {
            violations.append(ModelViolation(property: .readable, step: step, message: "the models at \(version) cannot be read: \(error)",
                                              errorClass: ErrorClass.of(error)))
        }
    }

    private static func exchange(from sender: Replica, to receiver: Replica) throws {
        guard sender !== receiver else { return }
        let missing = sender.store.queryHistory { Array($0).reversed() }.filter { !receiver.store.historyIncludesVersions(identifiedBy: [$0.id]) }
        guard !missing.isEmpty else { return }
        try receiver.store.addVersions(try missing.map { ($0, try sender.store.valueChanges(madeInVersionIdentifiedBy: $0.id)) })
        receiver.absorb()
    }

    /// A version with a deterministic identifier and time whose models are the first
    /// predecessor's with `edits` (a merge's other changes are the app's, as in a hand-made merge).
    private static func write(on replica: Replica, id: String, predecessors: [Version.ID], time: Int, edits: [ModelEdit]) throws {
        let base = predecessors.first
        var batch = ModelBatch()
        var boards: [Int: FuzzBoard?] = [:], people: [Int: FuzzPerson?] = [:]
        func board(_ m: Int) throws -> FuzzBoard? {
            if let edited = boards[m] { return edited }
            return try base.flatMap { try replica.store.fetchModel(FuzzBoard.self, instanceIdentifier: "b\(m)", at: $0) }
        }
        func person(_ m: Int) throws -> FuzzPerson? {
            if let edited = people[m] { return edited }
            return try base.flatMap { try replica.store.fetchModel(FuzzPerson.self, instanceIdentifier: "p\(m)", at: $0) }
        }
        for edit in edits {
            let a = edit.argument
            if edit.kind == 14 {
                var p = try person(edit.model) ?? FuzzPerson()
                if a < 3 { people[edit.model] = .some(nil) } else { p.name = "n\(a)"; p.age += a; people[edit.model] = p }
                continue
            }
            if edit.kind == 15 {
                boards[edit.model] = .some(nil)
                continue
            }
            var b = try board(edit.model) ?? FuzzBoard()
            switch edit.kind {
            case 0: b.name = "name\(a)"
            case 1:
                var scalars = Array(b.notes.unicodeScalars)
                let position = scalars.isEmpty ? 0 : a % (scalars.count + 1)
                if a % 3 == 0, !scalars.isEmpty { scalars.remove(at: min(position, scalars.count - 1)) } else { scalars.insert(Unicode.Scalar(UInt8(97 + a)), at: position) }
                b.notes = String(String.UnicodeScalarView(scalars))
            case 2: b.views += a - 3
            case 3: if a % 2 == 0 { b.labels.insert("l\(a % 5)") } else { b.labels.remove("l\(a % 5)") }
            case 4: if !b.cards.contains(where: { $0.id == a }) { b.cards.insert(.init(id: a, title: "c\(a)", points: 0), at: min(a % 3, b.cards.count)) }
            case 5: if !b.cards.isEmpty { b.cards.remove(at: a % b.cards.count) }
            case 6: if b.cards.count > 1 { let card = b.cards.remove(at: a % b.cards.count); b.cards.insert(card, at: (a / 2) % (b.cards.count + 1)) }
            case 7: if !b.cards.isEmpty { b.cards[a % b.cards.count].title += "\(a)"; b.cards[a % b.cards.count].points += a }
            case 8: if a % 4 == 0 { b.scores["k\(a % 3)"] = nil } else { b.scores["k\(a % 3)"] = a }
            case 9: b.high = a
            case 10: b.low = a
            case 11: b.room.value = "r\(a % 4)"
            case 12: b.nickname = String(repeating: "n", count: a % 4) + "\(a)"
            default: b.owner = a < 2 ? nil : ModelReference("p\(a % 3)")
            }
            boards[edit.model] = b
        }
        for (m, b) in boards.sorted(by: { $0.key < $1.key }) {
            if let b { try batch.save(b, instanceIdentifier: "b\(m)") } else { try batch.remove(FuzzBoard.self, instanceIdentifier: "b\(m)") }
        }
        for (m, p) in people.sorted(by: { $0.key < $1.key }) {
            if let p { try batch.save(p, instanceIdentifier: "p\(m)") } else { try batch.remove(FuzzPerson.self, instanceIdentifier: "p\(m)") }
        }
        var changes = try batch.changes(in: replica.store, basedOn: base)
        if predecessors.count == 2 {
            // A hand-made merge takes the first predecessor's models with the edits, and
            // whatever only the second holds.
            let first = try replica.store.valueReferences(at: predecessors[0])
            let firstIds = Set(first.map(\.valueId))
            let edited = Set(changes.map(\.valueId))
            for reference in try replica.store.valueReferences(at: predecessors[1]) where !firstIds.contains(reference.valueId) && !edited.contains(reference.valueId) {
                changes.append(.preserve(reference))
            }
        }
        let version = Version(id: Version.ID(id + "-" + String(replica.held.count)), predecessors: predecessors.first.map {
            Version.Predecessors(idOfFirst: $0, idOfSecond: predecessors.count > 1 ? predecessors[1] : nil)
        }, timestamp: Double(time))
        try replica.store.addVersion(version, storing: changes)
        replica.absorb()
    }
}

/// Removes operations from a failing model history while it still fails the same property.
public struct ModelHistoryShrinker {
    /// True when a history still fails.
    let fails: (ModelFuzzHistory) -> Bool
    /// How many histories were tried.
    public private(set) var attempts = 0

    /// A shrinker keeping histories for which `fails` holds.
    public init(fails: @escaping (ModelFuzzHistory) -> Bool) {
        self.fails = fails
    }

    /// A smallest history found that still fails: chunks of operations removed, halving the
    /// chunk size down to one, while the failure stays.
    public mutating func shrink(_ history: ModelFuzzHistory) -> ModelFuzzHistory {
        var current = history
        var chunk = max(1, current.operations.count / 2)
        while chunk >= 1 {
            var start = 0
            var removed = false
            while start < current.operations.count {
                var candidate = current
                candidate.operations.removeSubrange(start..<min(start + chunk, candidate.operations.count))
                attempts += 1
                if fails(candidate) {
                    current = candidate
                    removed = true
                } else {
                    start += chunk
                }
            }
            if !removed { chunk /= 2 }
        }
        return current
    }
}
