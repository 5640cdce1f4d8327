import Foundation
import LLVSStoreTesting
import LLVSTesting
import PropertyBased
import Testing
@testable import LLVSStore

/// Random histories over a small key space (six keys, so conflicts are frequent): new
/// roots, edits on any earlier version, and merges of any two versions with either built-in
/// arbiter — checked step by step against ``ReferenceModel``.
@Suite struct StorePropertyTests {
    /// `(kind 0…9, first version seed, second version seed, edits)`; an edit is
    /// `(key 0…5, action 0…3)` where action 0 removes and the others write new data.
    typealias Operation = (Int, Int, Int, [(Int, Int)])

    static let operations = zip(Gen.int(in: 0...9), Gen.int(in: 0...1_000), Gen.int(in: 0...1_000),
                                zip(Gen.int(in: 0...5), Gen.int(in: 0...3)).array(of: 0...4)).array(of: 1...20)

    /// Three lines of work that keep merging each other, by hand and with arbiters: merges
    /// of their heads often have two or three best common ancestors.
    static let crissCrossOperations = zip(Gen.int(in: 0...9), Gen.int(in: 0...2), Gen.int(in: 0...2),
                                          zip(Gen.int(in: 0...5), Gen.int(in: 0...3)).array(of: 0...3)).array(of: 1...30)

    /// Runs operations on `store` and the model, checking every merge as it is made. With
    /// `lines`, version seeds pick among the heads of three lines of work started from the
    /// first version (each operation then replaces its line's head) instead of among all
    /// versions.
    static func run(_ operations: [Operation], on store: Store, lines: Bool = false) throws -> (model: ReferenceModel, versions: [Version.ID]) {
        var model = ReferenceModel()
        var versions: [Version.ID] = []
        var heads: [Version.ID] = []
        func pick(_ seed: Int) -> Version.ID {
            lines ? heads[seed % heads.count] : versions[seed % versions.count]
        }
        for (step, operation) in operations.enumerated() {
            var (kind, a, b, edits) = operation
            var latest: [Value.ID: Data?] = [:]
            for (key, action) in edits {
                latest[Value.ID("k\(key)")] = action == 0 ? .some(nil) : Data("k\(key)@\(step).\(action)".utf8)
            }
            let changes: [Value.Change] = latest.map { id, data in
                data.map { .update(Value(id: id, data: $0)) } ?? .remove(id)
            }
            defer {
                if lines, let newest = versions.last {
                    if heads.count < 3 { heads.append(newest) } else { heads[a % 3] = newest }
                }
            }
            if lines, heads.count == 3, kind <= 5, kind >= 3 { (kind, a, b) = (9, a, b) } // more hand-made merges
            if versions.isEmpty || kind <= 5 || (kind == 9 && pick(a) == pick(b)) {
                let base = (versions.isEmpty || (kind == 0 && !lines)) ? nil : pick(a)
                let version = try store.makeVersion(basedOnPredecessor: base, storing: changes)
                model.addVersion(id: version.id, predecessors: version.predecessorIds, timestamp: version.timestamp, changes: latest)
                versions.append(version.id)
            } else if kind == 9 {
                // A hand-made merge: any content on top of the first version, as an app that
                // merges by itself would write. Such merges make criss-cross histories.
                let version = try store.makeVersion(basedOn: .init(idOfFirst: pick(a), idOfSecond: pick(b)), storing: changes)
                model.addVersion(id: version.id, predecessors: version.predecessorIds, timestamp: version.timestamp, changes: latest)
                versions.append(version.id)
            } else {
                let first = pick(a), second = pick(b)
                let rule: ReferenceModel.ArbiterRule = kind % 2 == 0 ? .mostRecentChange : .mostRecentBranch
                let merged = try rule == .mostRecentChange
                    ? store.merge(version: first, with: second, resolvingWith: MostRecentChangeFavoringArbiter())
                    : store.merge(version: first, with: second, resolvingWith: MostRecentBranchFavoringArbiter())
                if model.isAncestorOrSelf(first, of: second) || model.isAncestorOrSelf(second, of: first) {
                    let descendant = model.isAncestorOrSelf(first, of: second) ? second : first
                    #expect(merged.id == descendant, "merging v\(versions.firstIndex(of: first)!) and v\(versions.firstIndex(of: second)!) fast-forwards")
                    continue
                }
                let expected = model.mergedValues(first: first, second: second, rule: rule)
                #expect(try Self.values(of: store, at: merged.id) == expected,
                        "merge of v\(versions.firstIndex(of: first)!) and v\(versions.firstIndex(of: second)!) (\(rule))")
                if model.versions[merged.id] == nil {
                    model.addMerge(id: merged.id, first: first, second: second, timestamp: merged.timestamp, values: expected)
                    versions.append(merged.id)
                }
            }
        }
        return (model, versions)
    }

    static func values(of store: Store, at version: Version.ID) throws -> [Value.ID: ReferenceModel.StoredValue] {
        try StoreReplica.values(of: store, at: version)
    }

    @Test func mergesMatchTheReferenceModel() async {
        await propertyCheck(count: 1_000, input: Self.operations) { operations in
            let storeHome = try TestStore(.memory)
            defer { withExtendedLifetime(storeHome) {} }
            let store = storeHome.store
            let (model, versions) = try Self.run(operations, on: store)
            for id in versions {
                #expect(try Self.values(of: store, at: id) == model.versions[id]?.values)
            }
        }
    }

    @Test func crissCrossMergesMatchTheReferenceModel() async {
        await propertyCheck(count: 1_000, input: Self.crissCrossOperations) { operations in
            let storeHome = try TestStore(.memory)
            defer { withExtendedLifetime(storeHome) {} }
            let store = storeHome.store
            let (model, versions) = try Self.run(operations, on: store, lines: true)
            for id in versions {
                #expect(try Self.values(of: store, at: id) == model.versions[id]?.values)
            }
        }
    }

    /// X and Y both descend from A, B and C (siblings off O) through hand-made merges, so
    /// merging X and Y has three merge bases and a two-level virtual ancestor.
    @Test func threeBaseMergesMatchTheReferenceModel() async {
        let edits = zip(Gen.int(in: 0...5), Gen.int(in: 0...3)).array(of: 0...3)
        let input = zip(edits.array(of: 8), Gen.bool, Gen.bool)
        await propertyCheck(count: 500, input: input) { edits, favorChange, swap in
            let storeHome = try TestStore(.memory)
            defer { withExtendedLifetime(storeHome) {} }
            let store = storeHome.store
            var model = ReferenceModel()
            func make(_ predecessors: [Version.ID], _ step: Int) throws -> Version.ID {
                var latest: [Value.ID: Data?] = [:]
                for (key, action) in edits[step] {
                    latest[Value.ID("k\(key)")] = action == 0 ? .some(nil) : Data("k\(key)@\(step).\(action)".utf8)
                }
                let changes: [Value.Change] = latest.map { id, data in data.map { .update(Value(id: id, data: $0)) } ?? .remove(id) }
                let version = try store.makeVersion(basedOn: predecessors.first.map { .init(idOfFirst: $0, idOfSecond: predecessors.count > 1 ? predecessors[1] : nil) },
                                                    storing: changes)
                model.addVersion(id: version.id, predecessors: predecessors, timestamp: version.timestamp, changes: latest)
                return version.id
            }
            let o = try make([], 0)
            let a = try make([o], 1), b = try make([o], 2), c = try make([o], 3)
            let x = try make([try make([a, b], 4), c], 5)
            let y = try make([try make([b, c], 6), a], 7)
            #expect(model.bestCommonAncestors(of: [x], and: [y]).count == 3)
            let (first, second) = swap ? (y, x) : (x, y)
            let merged = try favorChange
                ? store.merge(version: first, with: second, resolvingWith: MostRecentChangeFavoringArbiter())
                : store.merge(version: first, with: second, resolvingWith: MostRecentBranchFavoringArbiter())
            #expect(try Self.values(of: store, at: merged.id)
                == model.mergedValues(first: first, second: second, rule: favorChange ? .mostRecentChange : .mostRecentBranch))
        }
    }

    @Test func fileStoresMatchTheModelAndReopenIdentically() async {
        await propertyCheck(count: 150, input: Self.operations) { operations in
            let test = try TestStore(.file)
            let (model, versions) = try Self.run(operations, on: test.store)
            let reopened = try test.reopened()
            #expect(reopened.queryHistory { $0.headIdentifiers } == test.store.queryHistory { $0.headIdentifiers })
            #expect(reopened.queryHistory { $0.map(\.id) } == test.store.queryHistory { $0.map(\.id) })
            for id in versions {
                #expect(try Self.values(of: reopened, at: id) == model.versions[id]?.values)
                #expect(reopened.version(identifiedBy: id)?.predecessors == test.store.version(identifiedBy: id)?.predecessors)
            }
        }
    }

    /// A replica rebuilt from `valueChanges(madeInVersionIdentifiedBy:)` of every version
    /// holds identical values, and merging the same heads on both replicas — from different
    /// starting versions — makes the same version.
    @Test func replicasRebuiltFromChangesConverge() async {
        await propertyCheck(count: 300, input: Self.operations) { operations in
            let originalHome = try TestStore(.memory)
            defer { withExtendedLifetime(originalHome) {} }
            let original = originalHome.store
            _ = try Self.run(operations, on: original)
            let replicaHome = try TestStore(.memory)
            defer { withExtendedLifetime(replicaHome) {} }
            let replica = replicaHome.store
            let oldestFirst = original.queryHistory { Array($0).reversed() }
            for version in oldestFirst {
                try replica.addVersion(version, storing: try original.valueChanges(madeInVersionIdentifiedBy: version.id))
            }
            for version in oldestFirst {
                #expect(try Self.values(of: replica, at: version.id) == Self.values(of: original, at: version.id))
            }
            let heads = original.queryHistory { $0.headIdentifiers.sorted() }
            let arbiter = MostRecentChangeFavoringArbiter()
            let one = try original.mergeHeads(into: heads[0], resolvingWith: arbiter)?.id ?? heads[0]
            let two = try replica.mergeHeads(into: heads[heads.count - 1], resolvingWith: arbiter)?.id ?? heads[heads.count - 1]
            #expect(one == two)
            #expect(try Self.values(of: original, at: one) == Self.values(of: replica, at: two))
        }
    }
}
