import LLVSCore
import PropertyBased
import Testing
@testable import LLVSMerge

/// Arbiters must decide alike whichever version a replica passes first, or replicas that
/// merge the same heads in different orders would never converge.
@Suite struct ArbiterPropertyTests {
    /// Per value: `(fork kind 0…2, side, stored-version choice on each side)`, plus two
    /// branch timestamps from a small range (ties are frequent).
    static let input = zip(
        zip(Gen.int(in: 0...2), Gen.bool, Gen.int(in: 0...3), Gen.int(in: 0...3)).array(of: 1...12),
        Gen.int(in: 0...3), Gen.int(in: 0...3))

    /// The outcome per value: the reference kept, or nil for a removal.
    static func outcome(_ changes: [Value.Change]) -> [Value.ID: Value.Reference?] {
        var result: [Value.ID: Value.Reference?] = [:]
        for change in changes {
            switch change {
            case .preserve(let reference): result[reference.valueId] = .some(reference)
            case .preserveRemoval(let id), .remove(let id): result[id] = .some(nil)
            case .insert(let value), .update(let value): result[value.id] = .some(value.reference)
            }
        }
        return result
    }

    @Test func arbitersAreSymmetric() async {
        await propertyCheck(count: 1_000, input: Self.input) { values, firstTime, secondTime in
            var context = TestContext()
            context.addVersion("A", timestamp: Double(firstTime))
            context.addVersion("B", timestamp: Double(secondTime))
            let stores: [Version.ID] = ["S0", "S1", "S2", "S3"]
            for (index, store) in stores.enumerated() { context.addVersion(store, timestamp: Double(index % 2)) }
            var forks: [Value.ID: Value.Fork] = [:]
            for (index, (kind, side, firstStore, secondStore)) in values.enumerated() {
                let id = Value.ID("v\(index)")
                let removedOn: Value.Fork.Branch = side ? .first : .second
                switch kind {
                case 0: forks[id] = .twiceUpdated
                case 1: forks[id] = .twiceInserted
                default: forks[id] = .removedAndUpdated(removedOn: removedOn)
                }
                if !(kind == 2 && removedOn == .first) { context.references["A", default: [:]][id] = ref(id, stores[firstStore]) }
                if !(kind == 2 && removedOn == .second) {
                    // Different data on each side: the second side never reuses the first's store.
                    context.references["B", default: [:]][id] = ref(id, stores[(secondStore == firstStore ? secondStore + 1 : secondStore) % 4])
                }
            }
            let mirrored = forks.mapValues { fork -> Value.Fork in
                if case .removedAndUpdated(let side) = fork { return .removedAndUpdated(removedOn: side.opposite) }
                return fork
            }
            let a = try #require(context.versions["A"]), b = try #require(context.versions["B"])
            let forward = Merge(versions: (a, b), commonAncestor: nil, forksByValueIdentifier: forks)
            let backward = Merge(versions: (b, a), commonAncestor: nil, forksByValueIdentifier: mirrored)
            for arbiter in [AnyArbiter(MostRecentBranchFavoringArbiter()), AnyArbiter(MostRecentChangeFavoringArbiter())] {
                let one = try arbiter.resolve(forward, context)
                let other = try arbiter.resolve(backward, context)
                #expect(Self.outcome(one) == Self.outcome(other))
                #expect(Set(one.map(\.valueId)) == Set(forks.keys), "every conflict is resolved")
            }
            // Favouring a side is the same decision whichever way round the merge is made, and
            // keeps exactly that side's state of every conflicting value.
            for (side, version) in [(Value.Fork.Branch.first, Version.ID("A")), (.second, "B")] {
                let one = try BranchFavoringArbiter(favoring: side).changes(toResolve: forward, in: AnyMergeContext(context))
                let other = try BranchFavoringArbiter(favoring: side.opposite).changes(toResolve: backward, in: AnyMergeContext(context))
                #expect(Self.outcome(one) == Self.outcome(other))
                for id in forks.keys {
                    #expect(Self.outcome(one)[id] == .some(context.references[version]?[id]), "\(id) keeps \(version)'s state")
                }
            }
        }
    }
}

/// Calls either built-in arbiter through one type.
struct AnyArbiter {
    let resolve: (Merge, TestContext) throws -> [Value.Change]

    init<A: MergeArbiter>(_ arbiter: A) where A.Context == AnyMergeContext {
        resolve = { merge, context in try arbiter.changes(toResolve: merge, in: AnyMergeContext(context)) }
    }
}
