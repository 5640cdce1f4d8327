import Foundation
import LLVSCore
import LLVSMap
import LLVSMerge

/// What the forks of a merge are relative to: the map root of its common ancestor, that
/// ancestor when it is one stored version (nil for a virtual one, or none), and its
/// identifier, stored or virtual (nil for none).
typealias MergeAncestor = (root: NodeReference?, version: Version?, id: Version.ID?)

/// One merge, with the virtual versions it needs along the way.
struct MergeOperation<Arbiter: MergeArbiter> {
    let store: Store
    let arbiter: Arbiter
    /// What the arbiter reads: the store plus this merge's virtual versions.
    let view: Store
    /// The virtual ancestors this merge has made, each once.
    private let virtualAncestors = VirtualAncestors()

    init(store: Store, arbiter: Arbiter) {
        self.store = store
        self.arbiter = arbiter
        self.view = Store(viewOf: store, overlay: MergeOverlay())
    }

    /// Merges `first` and `second`, whose best common ancestors are `bases`, and writes the
    /// merge version.
    func merge(_ first: Version, _ second: Version, bases: [Version.ID], metadata: Version.Metadata) throws -> Version {
        try resolve(first, second, bases: bases, ancestor: try commonAncestor(of: bases), metadata: metadata, virtual: false)
    }

    /// Resolves a merge against `ancestor` and makes its version: written to the store, or —
    /// for a virtual ancestor — kept in the view's overlay.
    private func resolve(_ first: Version, _ second: Version, bases: [Version.ID], ancestor: MergeAncestor, metadata: Version.Metadata,
                         virtual: Bool) throws -> Version {
        let (ancestorRoot, ancestor, ancestorId) = ancestor
        let firstRoot = try view.root(of: first.id), secondRoot = try view.root(of: second.id)
        let forks = try view.withMap { (map, overlay) throws(MapError) in
            try map.forks(first: firstRoot, second: secondRoot, ancestor: ancestorRoot, overlay: overlay)
        }
        let description = Merge(versions: (first, second), commonAncestor: ancestor, mergeBaseIds: bases.sorted(),
                                forksByValueIdentifier: forks.mapValues(\.fork), ancestorVersionId: ancestorId, isVirtual: virtual)
        let decided = try arbiterChanges(for: description)

        var decidedById: [Value.ID: Value.Change] = [:]
        for change in decided {
            guard decidedById.updateValue(change, forKey: change.valueId) == nil else {
                throw StoreError.conflictingChanges(valueId: change.valueId)
            }
        }
        var changes = decided
        var carried: Set<Value.Reference> = []
        for (valueId, fork) in forks.sorted(by: { $0.key < $1.key }) where decidedById[valueId] == nil {
            if fork.fork.isConflicting { throw StoreError.unresolvedConflict(valueId: valueId, fork: fork.fork) }
            // What only the second branch did is carried into the merge (which starts from
            // the first branch's map).
            switch fork.fork {
            case .inserted(.second), .updated(.second):
                if let reference = fork.second {
                    changes.append(.preserve(reference))
                    carried.insert(reference)
                }
            case .removed(.second):
                changes.append(.preserveRemoval(valueId))
            default:
                break
            }
        }

        let identifier = try mergeIdentifier(first, second, forks: forks, changes: changes, metadata: metadata, virtual: virtual)
        let timestamp = max(first.timestamp, second.timestamp)
        guard virtual else {
            // One identifier, one record: the record lists the predecessors in canonical
            // (byte) order, whichever was merged into which, and its changes start from the
            // one listed first, so merge(a, b) and merge(b, a) write identical records and
            // ship identical changes (SPEC.md section 9).
            let swapped = second.id < first.id
            let (listedFirst, listedSecond) = swapped ? (second, first) : (first, second)
            let version = Version(id: identifier, predecessors: .init(idOfFirst: listedFirst.id, idOfSecond: listedSecond.id),
                                  timestamp: timestamp, metadata: metadata)
            let written = swapped ? try rebase(changes, from: first, onto: second, forks: forks) : (changes: changes, trusted: carried)
            return try VersionWriter(store: store).write(version, changes: written.changes, trusted: written.trusted).version
        }
        let version = Version(id: identifier, predecessors: .init(idOfFirst: first.id, idOfSecond: second.id),
                              timestamp: timestamp, metadata: metadata)
        return try keepVirtual(version, basedOn: firstRoot, changes: changes)
    }

    /// `changes`, which turn `first`'s values into the merge's, restated to turn `second`'s
    /// values into the same merge: for every value the forks or the changes name, the
    /// merge's reference where it differs from `second`'s. References taken from either
    /// branch are returned as trusted (they come from the predecessors' maps).
    private func rebase(_ changes: [Value.Change], from first: Version, onto second: Version,
                        forks: [Value.ID: MapFork]) throws -> (changes: [Value.Change], trusted: Set<Value.Reference>) {
        let changesById = Dictionary(changes.map { ($0.valueId, $0) }, uniquingKeysWith: { _, last in last })
        var rebased: [Value.Change] = []
        var trusted: Set<Value.Reference> = []
        for valueId in Set(forks.keys).union(changesById.keys).sorted() {
            let onFirst: Value.Reference?, onSecond: Value.Reference?
            if let fork = forks[valueId] {
                (onFirst, onSecond) = (fork.first, fork.second)
            } else {
                onFirst = try view.reference(of: valueId, at: first.id)
                onSecond = onFirst
            }
            switch changesById[valueId] {
            case .insert(let value)?, .update(let value)?:
                // New data, stored by the merge itself: a change from either side.
                rebased.append(onSecond == nil ? .insert(value) : .update(value))
            case .remove?, .preserveRemoval?:
                if onSecond != nil { rebased.append(.remove(valueId)) }
            case .preserve(let reference)?:
                if reference != onSecond {
                    rebased.append(.preserve(reference))
                    trusted.insert(reference)
                }
            case nil:
                // Unchanged from the first branch, which may differ from the second.
                guard onFirst != onSecond else { break }
                if let onFirst {
                    rebased.append(.preserve(onFirst))
                    trusted.insert(onFirst)
                } else {
                    rebased.append(.remove(valueId))
                }
            }
        }
        return (rebased, trusted)
    }

    /// The map root and (if single) the version the forks are relative to. Several bases
    /// are merged pairwise, in identifier order, into a virtual version; the bases of each
    /// step are the merge bases of the bases merged so far and the next one, which may be
    /// several again, and so on down a criss-cross history.
    ///
    /// Those virtual ancestors are made bottom-up from a work list, not by recursion (a
    /// ladder of thousands of criss-cross merges is as deep), and each set of bases is
    /// merged once per merge however many steps above need it (a braid of strands that
    /// merge each other's merges asks for the same sets exponentially often).
    ///
    /// - Complexity: one virtual merge per pairwise step of each distinct set of bases
    ///   below `bases`, and one merge-base query per step.
    private func commonAncestor(of bases: [Version.ID]) throws -> MergeAncestor {
        guard bases.count > 1 else { return try knownAncestor(of: bases) }
        let top = bases.sorted()
        if let made = virtualAncestors.made[top] { return made }
        // Post-order over the sets of bases: a set is merged once the sets its steps need
        // are. `top` stays at the bottom of the stack, so it is the last one merged.
        var pending = [top]
        var made: MergeAncestor = (nil, nil, nil)
        while let set = pending.popLast() {
            guard virtualAncestors.made[set] == nil else { continue }
            let steps = try stepBases(of: set)
            let missing = steps.filter { $0.count > 1 && virtualAncestors.made[$0] == nil }
            if !missing.isEmpty {
                pending.append(set)
                pending.append(contentsOf: missing)
                continue
            }
            var accumulated = try view.required(set[0])
            for (next, inner) in zip(set.dropFirst(), steps) {
                accumulated = try resolve(accumulated, try view.required(next), bases: inner, ancestor: try knownAncestor(of: inner),
                                          metadata: [:], virtual: true)
            }
            made = (try view.root(of: accumulated.id), nil, accumulated.id)
            virtualAncestors.made[set] = made
        }
        return made
    }

    /// The ancestor of `bases` when it needs no new virtual merge: none, one stored
    /// version, or a set already merged.
    private func knownAncestor(of bases: [Version.ID]) throws -> MergeAncestor {
        switch bases.count {
        case 0: return (nil, nil, nil)
        case 1: return (try view.root(of: bases[0]), try view.required(bases[0]), bases[0])
        default:
            if let made = virtualAncestors.made[bases] { return made }
            return try commonAncestor(of: bases)
        }
    }

    /// The merge bases of each pairwise step of merging the sorted `set`: of its first
    /// version and its second, then of the first two and the third, and so on.
    private func stepBases(of set: [Version.ID]) throws -> [[Version.ID]] {
        if let known = virtualAncestors.stepBases[set] { return known }
        var steps: [[Version.ID]] = []
        var members = [set[0]]
        for next in set.dropFirst() {
            steps.append(try store.queryHistory { try $0.mergeBases(of: members, and: [next]) }.sorted())
            members.append(next)
        }
        virtualAncestors.stepBases[set] = steps
        return steps
    }

    /// Asks the arbiter, through the context type it reads from.
    private func arbiterChanges(for merge: Merge) throws -> [Value.Change] {
        if let context = view as? Arbiter.Context {
            return try arbiter.changes(toResolve: merge, in: context)
        }
        if let context = AnyMergeContext(view) as? Arbiter.Context {
            return try arbiter.changes(toResolve: merge, in: context)
        }
        throw StoreError.unsupportedArbiterContext(String(describing: Arbiter.Context.self))
    }

    /// The content-derived identifier: what the merge holds wherever it differs from either
    /// predecessor.
    private func mergeIdentifier(_ first: Version, _ second: Version, forks: [Value.ID: MapFork], changes: [Value.Change],
                                 metadata: Version.Metadata, virtual: Bool) throws -> Version.ID {
        func outcome(_ reference: Value.Reference?) -> MergeIdentity.Outcome {
            reference.map { .reference($0.storedVersionId) } ?? .absent
        }
        var outcomes: [Value.ID: MergeIdentity.Outcome] = [:]
        let changesById = Dictionary(changes.map { ($0.valueId, $0) }, uniquingKeysWith: { _, last in last })
        for valueId in Set(forks.keys).union(changesById.keys) {
            let onFirst: MergeIdentity.Outcome, onSecond: MergeIdentity.Outcome
            if let fork = forks[valueId] {
                (onFirst, onSecond) = (outcome(fork.first), outcome(fork.second))
            } else {
                // No fork: both sides agree.
                onFirst = outcome(try view.reference(of: valueId, at: first.id))
                onSecond = onFirst
            }
            let merged = changesById[valueId].map(MergeIdentity.Outcome.init(change:)) ?? onFirst
            if MergeIdentity.lists(merged, first: onFirst, second: onSecond) { outcomes[valueId] = merged }
        }
        let identifier = MergeIdentity.identifier(domain: virtual ? "llvs-virtual-merge-1" : "llvs-merge-1",
                                                  predecessors: (first.id, second.id), outcomes: outcomes, metadata: metadata)
        return virtual ? Version.ID("virtual-" + identifier.rawValue) : identifier
    }

    /// Builds a virtual version's map in memory and records it in the view's overlay.
    private func keepVirtual(_ version: Version, basedOn base: NodeReference?, changes: [Value.Change]) throws -> Version {
        var mapChanges: [MapChange] = []
        var data: [Value.Reference: Data] = [:]
        for change in changes {
            switch change {
            case .insert(let value), .update(let value):
                let reference = Value.Reference(valueId: value.id, storedVersionId: version.id)
                mapChanges.append(.set(reference))
                data[reference] = value.data
            case .remove(let id), .preserveRemoval(let id):
                mapChanges.append(.remove(id))
            case .preserve(let reference):
                mapChanges.append(.set(reference))
            }
        }
        let update = try view.withMap { (map, overlay) throws(MapError) in
            try map.update(base, applying: mapChanges, location: version.id, overlay: overlay)
        }
        view.overlay?.add(version, update: update, data: data)
        return version
    }
}

/// The virtual ancestors of one merge, by their sorted bases, and the merge bases of each
/// set's pairwise steps.
private final class VirtualAncestors {
    var made: [[Version.ID]: MergeAncestor] = [:]
    var stepBases: [[Version.ID]: [[Version.ID]]] = [:]
}
