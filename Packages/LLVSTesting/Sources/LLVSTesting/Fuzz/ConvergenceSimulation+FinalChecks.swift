import Foundation
import LLVSCore

extension ConvergenceSimulation {
    /// The checks after the last operation, for the selected properties: history
    /// invariants (4), diffs (6) and reopening (7) on every replica as the operations left
    /// it; then convergence (2) — every replica receives everything and merges its heads —
    /// and a replay of the converged history into an empty replica (5).
    ///
    /// - Throws: Whatever a replica throws.
    public mutating func runFinalChecks() async throws {
        for r in replicas.indices {
            if properties.contains(.historyInvariants) { try checkHistoryInvariants(of: r) }
            if properties.contains(.diffsConsistent) { try checkDiffs(of: r) }
            if properties.contains(.reopenIdentical) { try checkReopening(of: r) }
        }
        if properties.contains(.convergence) { try await converge() }
        if properties.contains(.replayRebuilds) { try checkReplay(of: replicas.count - 1) }
    }

    /// Property 4 on replica `r`.
    mutating func checkHistoryInvariants(of r: Int) throws {
        let versions = try replicas[r].versionsInTopologicalOrder()
        let position = Dictionary(versions.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        expect(.historyInvariants, position.count == versions.count, "replica \(r) lists a version twice")
        expect(.historyInvariants, Set(position.keys) == heldSets[r], "replica \(r) lists other versions than it holds")
        var withSuccessors: Set<Version.ID> = []
        for version in versions {
            for predecessor in version.predecessorIds {
                withSuccessors.insert(predecessor)
                expect(.historyInvariants, (position[predecessor] ?? -1) > (position[version.id] ?? Int.max),
                       "replica \(r) lists \(version.id) before its predecessor \(predecessor)")
            }
        }
        let heads = try replicas[r].headIdentifiers()
        let expectedHeads = Set(position.keys).subtracting(withSuccessors)
        expect(.historyInvariants, heads == expectedHeads, "replica \(r) has heads \(heads.sorted()), expected \(expectedHeads.sorted())")
        for (a, b) in samplePairs(of: held[r]) {
            let bases = Set(try replicas[r].mergeBases(of: a, and: b))
            let expected = Set(model.bestCommonAncestors(of: [a], and: [b]))
            expect(.historyInvariants, bases == expected,
                   "replica \(r): merge bases of \(a) and \(b) are \(bases.sorted()), expected \(expected.sorted())")
        }
    }

    /// Property 6 on replica `r`.
    mutating func checkDiffs(of r: Int) throws {
        for (a, b) in samplePairs(of: held[r]) {
            var values = try replicas[r].values(at: a)
            for change in try replicas[r].valueChanges(between: a, and: b) {
                switch change {
                case .insert(let value), .update(let value):
                    values[value.id] = .init(data: value.data, storedBy: value.storedVersionId ?? Version.ID("unknown"))
                case .remove(let id), .preserveRemoval(let id):
                    values[id] = nil
                case .preserve(let reference):
                    record(.diffsConsistent, "the diff from \(a) to \(b) holds a .preserve of \(reference.valueId)")
                }
            }
            let expected = try replicas[r].values(at: b)
            expect(.diffsConsistent, values == expected,
                   "replica \(r): diff from \(a) to \(b) applied to \(a): \(ValueDifference(expected: expected, actual: values))")
        }
    }

    /// Property 7 on replica `r`.
    mutating func checkReopening(of r: Int) throws {
        let reopened = try replicas[r].reopened()
        let before = try replicas[r].versionsInTopologicalOrder(), after = try reopened.versionsInTopologicalOrder()
        expect(.reopenIdentical, before.map(\.id) == after.map(\.id),
               "replica \(r) reopened lists \(after.map(\.id)), expected \(before.map(\.id))")
        expect(.reopenIdentical, before.map(\.predecessors) == after.map(\.predecessors) && before.map(\.timestamp) == after.map(\.timestamp),
               "replica \(r) reopened has other predecessors or timestamps")
        expect(.reopenIdentical, try replicas[r].headIdentifiers() == reopened.headIdentifiers(), "replica \(r) reopened has other heads")
        let reopenedIds = Set(after.map(\.id))
        for version in before where reopenedIds.contains(version.id) {
            let expected = try replicas[r].values(at: version.id), actual = try reopened.values(at: version.id)
            expect(.reopenIdentical, expected == actual,
                   "replica \(r) reopened, values at \(version.id): \(ValueDifference(expected: expected, actual: actual))")
        }
    }

    /// Property 2: every replica receives everything, then merges its heads into a head of
    /// its own choosing; all must end on one head with one set of values.
    mutating func converge() async throws {
        // Everything reaches every replica in 2(n − 1) exchanges: each replica sends to
        // the first, which then sends to each of the others (the operations before made
        // the random pairwise exchanges).
        for sender in replicas.indices.dropFirst() where !held[sender].isEmpty {
            try await exchange(from: sender, to: 0, upTo: nil)
        }
        for receiver in replicas.indices.dropFirst() where !held[0].isEmpty {
            try await exchange(from: 0, to: receiver, upTo: nil)
        }
        var finalHeads: [Version.ID] = []
        for r in replicas.indices {
            let heads = try replicas[r].headIdentifiers().sorted()
            guard !heads.isEmpty else { continue }
            let target = heads[r % heads.count]
            finalHeads.append(try mergeHeads(on: r, into: target, rule: history.finalRule) ?? target)
        }
        guard let head = finalHeads.first else { return }
        expect(.convergence, Set(finalHeads).count == 1, "replicas ended on different heads \(finalHeads)")
        let expected = model.versions[head]?.values ?? [:]
        for r in replicas.indices {
            guard heldSets[r].contains(head) else {
                record(.convergence, "replica \(r) does not hold the final head \(head) of replica 0")
                continue
            }
            let actual = try replicas[r].values(at: head)
            expect(.convergence, actual == expected,
                   "replica \(r), values at the final head \(head): \(ValueDifference(expected: expected, actual: actual))")
        }
    }

    /// Property 5: replaying replica `r`'s versions, oldest first, into an empty replica.
    mutating func checkReplay(of r: Int) throws {
        let fresh = try replicas[r].makeEmptyReplica()
        let versions = try replicas[r].versionsInTopologicalOrder()
        for version in versions.reversed() {
            try fresh.add(version, changes: try replicas[r].valueChanges(madeIn: version.id))
        }
        expect(.replayRebuilds, try fresh.versionsInTopologicalOrder().map(\.id) == versions.map(\.id),
               "the replayed replica lists other versions")
        for version in versions {
            let expected = try replicas[r].values(at: version.id), actual = try fresh.values(at: version.id)
            expect(.replayRebuilds, expected == actual,
                   "replayed values at \(version.id): \(ValueDifference(expected: expected, actual: actual))")
        }
    }

    /// Every pair of versions of a short list, or a spread of 40 pairs of a long one.
    func samplePairs(of versions: [Version.ID]) -> [(Version.ID, Version.ID)] {
        let count = versions.count
        guard count > 9 else {
            return versions.indices.flatMap { i in versions.indices.map { (versions[i], versions[$0]) } }
        }
        return (0..<40).map { i in (versions[(i * 7 + 3) % count], versions[(i * 13 + 5) % count]) }
    }
}
