import LLVSCore
import LLVSZones
import PropertyBased
import Testing
@testable import LLVSMap

/// Random change batches over a small key space, so entries split and collapse often,
/// checked against full-snapshot dictionaries.
@Suite struct MapPropertyTests {
    /// Batches of `(key 0…59, action)`: action 0 removes, otherwise sets.
    static let batches = zip(Gen.int(in: 0...59), Gen.int(in: 0...3)).array(of: 0...40).array(of: 1...6)

    /// Commits each batch as version `<tag><index>` on top of `start` (or of the latest
    /// root), updating `model` alongside; returns the index of the last root committed.
    @discardableResult
    static func commit(_ batches: [[(Int, Int)]], tag: String, from start: Int?, to history: inout MapHistory,
                       model: inout [Value.ID: Value.Reference], snapshots: inout [[Value.ID: Value.Reference]]) throws -> Int? {
        var last = start
        for (index, batch) in batches.enumerated() {
            let version = Version.ID("\(tag)\(index)")
            let changes = batch.map { key, action -> MapChange in
                let id = Value.ID("key-\(key)")
                return action == 0 ? .remove(id) : .set(Value.Reference(valueId: id, storedVersionId: version))
            }
            for change in changes { model[change.valueId] = change.reference }
            last = try history.commit(changes, basedOn: last)
            snapshots.append(model)
        }
        return last
    }

    static func run(_ batches: [[(Int, Int)]]) throws -> (MapHistory, [[Value.ID: Value.Reference]]) {
        var history = MapHistory(map: Map(zone: MemoryZone(), cacheByteLimit: 32 << 10))
        var model: [Value.ID: Value.Reference] = [:]
        var snapshots: [[Value.ID: Value.Reference]] = []
        try commit(batches, tag: "v", from: nil, to: &history, model: &model, snapshots: &snapshots)
        return (history, snapshots)
    }

    @Test func mapsMatchTheirSnapshots() async {
        await propertyCheck(count: 1_000, input: Self.batches) { batches in
            let (history, models) = try Self.run(batches)
            for (root, model) in zip(history.roots, models) {
                #expect(try snapshot(history.map, root) == model)
                #expect(root?.count ?? 0 == model.count)
                for key in 0..<60 {
                    let id = Value.ID("key-\(key)")
                    #expect(try history.map.reference(of: id, in: root) == model[id])
                }
                // Canonical: building the snapshot from scratch gives the same root hash.
                let direct = try history.map.update(nil, applying: model.values.map(MapChange.set), location: "direct")
                #expect(direct.root?.hash == root?.hash)
            }
        }
    }

    @Test func differencesMatchABruteForceDiffOfSnapshots() async {
        await propertyCheck(count: 1_000, input: Self.batches) { batches in
            let (history, models) = try Self.run(batches)
            for i in models.indices {
                for j in models.indices {
                    let found = try history.map.differences(from: history.roots[i], to: history.roots[j])
                    let expected = Set(Set(models[i].keys).union(models[j].keys).compactMap { id -> MapDifference? in
                        models[i][id] == models[j][id] ? nil : MapDifference(valueId: id, old: models[i][id], new: models[j][id])
                    })
                    #expect(Set(found) == expected)
                    #expect(found.count == expected.count)
                }
            }
        }
    }

    /// Two branches from a random base, then forks between their tips: checked against a
    /// textbook per-key classification of the three snapshots.
    @Test func forksMatchABruteForceClassification() async {
        let input = zip(Self.batches, Self.batches, Self.batches, Gen.bool)
        await propertyCheck(count: 1_000, input: input) { base, left, right, twoWay in
            var history = MapHistory(map: Map(zone: MemoryZone()))
            var model: [Value.ID: Value.Reference] = [:]
            var ignored: [[Value.ID: Value.Reference]] = []
            let baseIndex = try Self.commit(base, tag: "o", from: nil, to: &history, model: &model, snapshots: &ignored)
            let ancestorModel = twoWay ? [:] : model
            var leftModel = model, rightModel = model
            let leftIndex = try Self.commit(left, tag: "a", from: baseIndex, to: &history, model: &leftModel, snapshots: &ignored)
            let rightIndex = try Self.commit(right, tag: "b", from: baseIndex, to: &history, model: &rightModel, snapshots: &ignored)
            let roots = history.roots
            let forks = try history.map.forks(first: leftIndex.flatMap { roots[$0] }, second: rightIndex.flatMap { roots[$0] },
                                              ancestor: twoWay ? nil : baseIndex.flatMap { roots[$0] })
            let expected = Self.classify(ancestor: ancestorModel, first: leftModel, second: rightModel)
            #expect(forks.mapValues(\.fork) == expected)
            for (id, fork) in forks {
                #expect(fork.first == leftModel[id] && fork.second == rightModel[id] && fork.ancestor == ancestorModel[id])
            }
        }
    }

    /// The textbook three-way classification, key by key.
    static func classify(ancestor: [Value.ID: Value.Reference], first: [Value.ID: Value.Reference],
                         second: [Value.ID: Value.Reference]) -> [Value.ID: Value.Fork] {
        var result: [Value.ID: Value.Fork] = [:]
        for id in Set(ancestor.keys).union(first.keys).union(second.keys) {
            let o = ancestor[id], a = first[id], b = second[id]
            switch (a != o, b != o) {
            case (false, false): continue
            case (true, false): result[id] = o == nil ? .inserted(.first) : a == nil ? .removed(.first) : .updated(.first)
            case (false, true): result[id] = o == nil ? .inserted(.second) : b == nil ? .removed(.second) : .updated(.second)
            case (true, true):
                if a == nil && b == nil { result[id] = .twiceRemoved }
                else if a == b { continue }
                else if o == nil { result[id] = .twiceInserted }
                else if a == nil { result[id] = .removedAndUpdated(removedOn: .first) }
                else if b == nil { result[id] = .removedAndUpdated(removedOn: .second) }
                else { result[id] = .twiceUpdated }
            }
        }
        return result
    }

    @Test func arbitraryBytesNeverCrashTheNodeDecoder() async {
        await propertyCheck(count: 1_000, input: Gen<UInt8>.value(in: 0...255).array(of: 0...80)) { bytes in
            var data = Data(bytes)
            if !data.isEmpty { data[0] = [0x4C, 0x49][Int(bytes[0]) % 2] }
            _ = try? MapNode.decode(data)
        }
    }
}

import Foundation
