import Foundation
import LLVSCore
import LLVSStoreTesting
import LLVSTesting
import Testing
@testable import LLVSStore

/// `conformance/histories/histories.json`: 200 histories made from fixed seeds (unrelated
/// roots, removals and re-inserts, ties of timestamps, merges with five arbiters — two of
/// them writing new data, one a value no fork names —, merges with metadata, and
/// criss-cross ladders whose merges need virtual ancestors, recursively), with what a port
/// must reproduce: each version's record bytes and map root, the changes it made, and for
/// every merge the store ran (virtual ones included) its bases, common ancestor and forks,
/// and each virtual version's values. The store makes them again here and the test fails
/// when they differ from the committed file (`LLVS_WRITE_VECTORS=1` rewrites it); the
/// Python port replays them (`ports/python/tests/test_history_vectors.py`).
@Suite struct HistoryVectorTests {
    static let historyCount = 200

    /// With `LLVS_HISTORY_OUTPUT=PATH` (and `LLVS_HISTORY_COUNT=N`, seeds 0 to N−1), also
    /// writes that many histories to PATH, for a port to replay more than the committed 200
    /// (Scripts/test has the main test run write 1,000 for Scripts/check-port).
    @Test func theCommittedHistoriesAreTheOnesTheStoreMakes() throws {
        let environment = ProcessInfo.processInfo.environment
        let count = max(0, environment["LLVS_HISTORY_COUNT"].flatMap { Int($0) } ?? Self.historyCount)
        var lines: [String] = []
        for seed in 0..<UInt64(max(count, Self.historyCount)) {
            lines.append(try Self.history(seed: seed))
        }
        func file(_ lines: ArraySlice<String>) -> String {
            "{\"format\":\"llvs-conformance-histories\",\"formatVersion\":1,\"histories\":[\n" + lines.joined(separator: ",\n") + "\n]}\n"
        }
        if let output = environment["LLVS_HISTORY_OUTPUT"] {
            try Data(file(lines.prefix(count)).utf8).write(to: URL(fileURLWithPath: output))
        }
        let made = file(lines.prefix(Self.historyCount))
        let url = ConformanceVectors.directory.appendingPathComponent("histories").appendingPathComponent("histories.json")
        if environment["LLVS_WRITE_VECTORS"] == "1" {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(made.utf8).write(to: url)
        }
        let committed = try String(contentsOf: url, encoding: .utf8)
        #expect(committed == made, "conformance/histories/histories.json differs from what the store makes (LLVS_WRITE_VECTORS=1 rewrites it)")
    }

    /// One history as a line of canonical JSON.
    static func history(seed: UInt64) throws -> String {
        let directory = try TemporaryDirectory()
        let store = try Store(rootDirectoryURL: directory.url, storage: MemoryStorage())
        var generator = SplitMix64(seed: seed &* 0x9E37_79B9 &+ 23)
        let recorder = MergeRecordingArbiter()
        let keys: [Value.ID] = ["k0", "k1", "k2", "k3", "k4", "é", "e\u{301}", "a\0b"]
        var versions: [Version.ID] = []
        var timestamp = 1_000.0
        var made = 0
        func name() -> Version.ID {
            made += 1
            return Version.ID(rawValue: "s\(seed)-v\(made)")
        }
        func edit(_ base: Version.ID?, generator: inout SplitMix64) throws -> Version.ID {
            var changes: [Value.Change] = []
            let id = name()
            for key in keys.shuffled(using: &generator).prefix(Int.random(in: 1...3, using: &generator)) {
                let present = try base.map { try store.valueReference(key, at: $0) != nil } ?? false
                let data = Data("\(id.rawValue) \(key.rawValue)".utf8)
                if present, Bool.random(using: &generator) {
                    changes.append(.remove(key))
                } else {
                    changes.append(present ? .update(Value(id: key, data: data)) : .insert(Value(id: key, data: data)))
                }
            }
            timestamp += Double(Int.random(in: 0...2, using: &generator))  // 0: a tie
            try store.addVersion(Version(id: id, predecessors: base.map { .init(idOfFirst: $0) }, timestamp: timestamp), storing: changes)
            return id
        }
        // Arbiters: 0 the most recent change, 1 and 2 a branch, 3 new data for every
        // conflict, 4 the most recent change plus a note no fork names.
        func merge(_ first: Version.ID, _ second: Version.ID, favoring choice: Int,
                   metadata: Version.Metadata = [:]) throws -> Version.ID {
            switch choice {
            case 0: recorder.arbiter = AnyArbiter(MostRecentChangeFavoringArbiter())
            case 1, 2: recorder.arbiter = AnyArbiter(BranchFavoringArbiter(favoring: choice == 1 ? .first : .second))
            case 3: recorder.arbiter = AnyArbiter(ConcatenatingArbiter())
            default: recorder.arbiter = AnyArbiter(NoteWritingArbiter())
            }
            let calls = recorder.calls.count
            let result = try store.merge(version: first, with: second, resolvingWith: recorder, metadata: metadata).id
            recorder.finish(callsFrom: calls, result: result)
            return result
        }
        versions.append(try edit(nil, generator: &generator))
        for _ in 0..<Int.random(in: 10...18, using: &generator) {
            switch Int.random(in: 0..<10, using: &generator) {
            case 0:
                versions.append(try edit(nil, generator: &generator))  // an unrelated root
            case 1...5:
                versions.append(try edit(versions.randomElement(using: &generator), generator: &generator))
            case 6...8:
                let first = versions.randomElement(using: &generator) ?? versions[0]
                let second = versions.randomElement(using: &generator) ?? versions[0]
                guard first != second else { continue }
                // A merge's metadata is part of its identifier (SPEC section 9).
                let metadata: Version.Metadata = Int.random(in: 0..<3, using: &generator) == 0
                    ? ["merged-by": .init(data: Data("seed \(seed)".utf8)), "é": .init(data: Data([0, 0xFF])), "Z": .init(data: Data())] : [:]
                versions.append(try merge(first, second, favoring: Int.random(in: 0...4, using: &generator), metadata: metadata))
            default:
                if Bool.random(using: &generator) {
                    // A criss-cross ladder: two sides edit, two merges of them settle it each
                    // its own way, each side edits on its merge, and so on for two or three
                    // rungs; merging the last two needs a virtual ancestor of virtual ones.
                    var a = try edit(versions.randomElement(using: &generator), generator: &generator)
                    var b = try edit(versions.randomElement(using: &generator), generator: &generator)
                    versions += [a, b]
                    for _ in 0..<Int.random(in: 2...3, using: &generator) {
                        let (left, right) = (try merge(a, b, favoring: 1), try merge(a, b, favoring: 2))
                        a = try edit(left, generator: &generator)
                        b = try edit(right, generator: &generator)
                        versions += [left, right, a, b]
                    }
                    versions.append(try merge(a, b, favoring: Int.random(in: 0...4, using: &generator)))
                } else {
                    // A braid of three strands: each pair merged two ways, so the last merge
                    // has three bases, merged pairwise into virtual versions.
                    let base = versions.randomElement(using: &generator)
                    let x = try edit(base, generator: &generator), y = try edit(base, generator: &generator)
                    let z = try edit(base, generator: &generator)
                    let p = try merge(try merge(x, y, favoring: 1), z, favoring: 1)
                    let q = try merge(try merge(y, z, favoring: 2), x, favoring: 2)
                    versions += [x, y, z, p, q, try merge(p, q, favoring: Int.random(in: 0...4, using: &generator))]
                }
            }
        }
        var entries: [String] = []
        for id in store.queryHistory({ $0.allVersionIdentifiers }) {
            let version = try #require(store.version(identifiedBy: id))
            let root = try store.root(of: id)
            let record = VersionRecord(version: version, root: root).encoded()
            let changes = try store.valueChanges(madeInVersionIdentifiedBy: id).map { String(decoding: try CanonicalJSON.encode($0), as: UTF8.self) }
            entries.append("{\"changes\":[\(changes.joined(separator: ","))],\"id\":\(try Self.json(id.rawValue)),\"record\":\"\(record.map { String(format: "%02x", $0) }.joined())\"}")
        }
        return "{\"merges\":[\(recorder.merges.joined(separator: ","))],\"seed\":\(seed),\"versions\":[\(entries.joined(separator: ","))]}"
    }

    static func json(_ string: String) throws -> String {
        String(decoding: try CanonicalJSON.encode(string), as: UTF8.self)
    }
}

/// Resolves like ``MostRecentChangeFavoringArbiter`` and also writes `merge-note`, a value
/// no fork names, with new data naming the two versions (SPEC section 9: an arbiter may
/// return changes beyond the conflicts).
struct NoteWritingArbiter: MergeArbiter {
    typealias Context = AnyMergeContext

    func changes(toResolve merge: Merge, in store: AnyMergeContext) throws -> [Value.Change] {
        let note: Value.ID = "merge-note"
        let (first, second) = merge.versions
        var changes = try MostRecentChangeFavoringArbiter().changes(toResolve: merge, in: store).filter { $0.valueId != note }
        let value = Value(id: note, data: Data("\(first.id.rawValue) + \(second.id.rawValue)".utf8))
        changes.append(try store.value(note, at: first.id) == nil ? .insert(value) : .update(value))
        return changes
    }
}

/// An arbiter of any context type, over a store.
struct AnyArbiter {
    let resolve: (Merge, AnyMergeContext) throws -> [Value.Change]

    init<Arbiter: MergeArbiter>(_ arbiter: Arbiter) where Arbiter.Context == AnyMergeContext {
        resolve = { try arbiter.changes(toResolve: $0, in: $1) }
    }
}

/// Resolves merges with ``arbiter`` and records, for each `Store.merge` that asks it
/// anything, the calls it gets (the merge's own last, after those that build its virtual
/// ancestor) with their versions, bases, common ancestor, forks and the changes it returns.
final class MergeRecordingArbiter: MergeArbiter, @unchecked Sendable {
    // Unchecked: one test uses it on one thread.
    typealias Context = AnyMergeContext

    var arbiter = AnyArbiter(MostRecentChangeFavoringArbiter())
    /// The calls of the merge under way, as canonical JSON.
    private(set) var calls: [String] = []
    /// One canonical JSON object per finished merge: its result and its calls.
    private(set) var merges: [String] = []

    func changes(toResolve merge: Merge, in store: AnyMergeContext) throws -> [Value.Change] {
        let (first, second) = merge.versions
        let json = HistoryVectorTests.json
        let forks = try merge.forksByValueIdentifier.sorted { Array($0.key.rawValue.utf8).lexicographicallyPrecedes(Array($1.key.rawValue.utf8)) }
            .map { "\(try json($0.key.rawValue)):\(String(decoding: try CanonicalJSON.encode($0.value), as: UTF8.self))" }
        let bases = try merge.mergeBaseIds.map { try json($0.rawValue) }
        let ancestor = try merge.commonAncestor.map { try json($0.id.rawValue) } ?? "null"
        let changes = try arbiter.resolve(merge, store)
        let resolution = try changes.map { String(decoding: try CanonicalJSON.encode($0), as: UTF8.self) }
        calls.append("{\"commonAncestor\":\(ancestor),\"first\":\(try json(first.id.rawValue)),\"forks\":{\(forks.joined(separator: ","))},\"mergeBaseIds\":[\(bases.joined(separator: ","))],\"resolution\":[\(resolution.joined(separator: ","))],\"second\":\(try json(second.id.rawValue))}")
        return changes
    }

    /// Records the calls made since `start` as one merge that made `result`.
    func finish(callsFrom start: Int, result: Version.ID) {
        guard calls.count > start else { return }  // a fast-forward asks nothing
        let id = (try? HistoryVectorTests.json(result.rawValue)) ?? "null"
        merges.append("{\"calls\":[\(calls[start...].joined(separator: ","))],\"result\":\(id)}")
    }
}
