import Foundation
import LLVS

/// W10 of BENCHMARKS.md: `KeyValueDatabase`, on the `sqlite` backend (a database directory:
/// an SQLite store and an FTS5 index) or `memory` (a nil URL). Keys are UUID strings in the
/// default scope; texts are 100 ASCII bytes (``KeyValueCorpus``).
///
/// 1. Writes: 10,000 texts with one `writeText` call each (one store version each) into an
///    empty database, and the same texts in one `bulkWrite` into another.
/// 2. Reads: 10,000 `read(key:)` of random existing keys (fixed seed) on the first
///    database, each of which must return the one text written; median of 3 passes.
/// 3. Merge: ``mergeBothSides(backend:keyCount:report:)``.
/// 4. Full text: 100 `search(for:)` (``KeyValueCorpus/queries``, 25 times each) over the
///    first database's 10,000 texts, each finding exactly the texts holding its words;
///    median of 3 passes.
///
/// Small scale: 1,000 texts and reads, a merge of 200 keys.
enum KeyValueWorkloads {
    static func w10(backend: String, scale: Scale, report: Report) throws {
        let count = scale == .full ? 10_000 : 1_000
        var generator = SeededGenerator(seed: 10)
        let corpus = KeyValueCorpus(count: count, generator: &generator)
        let written = try writes(backend: backend, corpus: corpus, report: report)
        try randomReads(written.database, corpus: corpus, backend: backend, report: report)
        try mergeBothSides(backend: backend, keyCount: count / 5, report: report)
        try search(written.database, corpus: corpus, backend: backend, report: report)
    }

    /// Writes the corpus one call per text and in one bulk write; checks that both
    /// databases hold exactly the corpus. Returns the first.
    private static func writes(backend: String, corpus: KeyValueCorpus, report: Report) throws -> BenchmarkKeyValueDatabase {
        let count = corpus.keys.count
        let oneByOne = try BenchmarkKeyValueDatabase(backend: backend, authorName: "llvs-bench one call each")
        let oneByOneTime = try milliseconds {
            for (key, text) in zip(corpus.keys, corpus.texts) { try oneByOne.database.writeText(text, to: key) }
        }
        let values = Dictionary(uniqueKeysWithValues: zip(corpus.keys.map { ScopedKey(key: $0) }, corpus.texts.map { KeyValueDatabase.Value.text($0) }))
        let bulk = try BenchmarkKeyValueDatabase(backend: backend, authorName: "llvs-bench bulk")
        let bulkTime = try milliseconds { try bulk.database.bulkWrite(values) }
        for (name, database) in [("one call each", oneByOne.database), ("bulk", bulk.database)] {
            let held = try database.bulkRead().mapValues { $0.map(\.value) }
            guard held == values.mapValues({ [$0] }) else {
                throw BenchmarkError.wrongResult("W10 \(name) database holds \(held.count) keys, not the \(count) texts written")
            }
        }
        let parameters = ["texts": count]
        report.record("W10", backend, "write_one_call_each_ms", oneByOneTime, unit: "ms", parameters: parameters)
        report.record("W10", backend, "write_one_call_each_ops_per_s", perSecond(count, oneByOneTime), unit: "writes/s", parameters: parameters)
        report.record("W10", backend, "bulk_write_ms", bulkTime, unit: "ms", parameters: parameters)
        report.record("W10", backend, "bulk_write_ops_per_s", perSecond(count, bulkTime), unit: "writes/s", parameters: parameters)
        return oneByOne
    }

    /// As many `read(key:)` as there are texts, of random keys, each checked.
    private static func randomReads(_ database: KeyValueDatabase, corpus: KeyValueCorpus, backend: String, report: Report) throws {
        var generator = SeededGenerator(seed: 11)
        let picks = corpus.keys.indices.map { _ in Int.random(in: corpus.keys.indices, using: &generator) }
        var correct = 0
        let time = try medianMilliseconds {
            correct = 0
            for index in picks {
                let versions = try database.read(key: corpus.keys[index])
                if versions.count == 1, versions[0].value == .text(corpus.texts[index]) { correct += 1 }
            }
        }
        guard correct == picks.count else {
            throw BenchmarkError.wrongResult("W10 \(picks.count - correct) of \(picks.count) reads did not return the one text written")
        }
        let parameters = ["reads": picks.count, "keys": corpus.keys.count]
        report.record("W10", backend, "random_read_ms", time, unit: "ms", parameters: parameters)
        report.record("W10", backend, "random_read_ops_per_s", perSecond(picks.count, time), unit: "reads/s", parameters: parameters)
    }

    /// Database A gets `keyCount` texts in one bulk write; B, empty, merges A, so both share
    /// that version. Then, each side in one bulk write, A changes the first half of the keys
    /// and B changes every key (other texts). `A.merge(source: B)` is timed — it copies B's
    /// version into A's store, merges, and updates A's index. After it, the first half must
    /// hold both sides' texts (conflicts: half the keys) and the second half B's; the run
    /// fails otherwise.
    static func mergeBothSides(backend: String, keyCount: Int, report: Report) throws {
        var generator = SeededGenerator(seed: 12)
        let keys = (0..<keyCount).map { _ in ScopedKey(key: uuidString(&generator)) }
        let bothSides = keyCount / 2
        func texts(_ keys: ArraySlice<ScopedKey>) -> [ScopedKey: KeyValueDatabase.Value] {
            Dictionary(uniqueKeysWithValues: keys.map { ($0, .text(KeyValueCorpus.text(generator: &generator))) })
        }
        let a = try BenchmarkKeyValueDatabase(backend: backend, authorName: "llvs-bench A")
        let b = try BenchmarkKeyValueDatabase(backend: backend, authorName: "llvs-bench B")
        try a.database.bulkWrite(texts(keys[...]))
        try b.database.merge(source: a.database)
        guard let shared = a.database.currentVersionId, b.database.currentVersionId == shared else {
            throw BenchmarkError.wrongResult("W10 B did not take A's version when merging into an empty database")
        }
        let aChanges = texts(keys[..<bothSides]), bChanges = texts(keys[...])
        try a.database.bulkWrite(aChanges)
        try b.database.bulkWrite(bChanges)
        let time = try milliseconds { try a.database.merge(source: b.database) }

        let conflicts = try a.database.statistics.conflictedKeyCount
        let parameters = ["keys": keyCount, "changed_both_sides": bothSides, "changed_one_side": keyCount - bothSides]
        report.record("W10", backend, "merge_ms", time, unit: "ms", parameters: parameters)
        report.record("W10", backend, "merge_keys_per_s", perSecond(keyCount, time), unit: "keys/s", parameters: parameters)
        report.record("W10", backend, "conflicts_after_merge", Double(conflicts), unit: "keys", parameters: parameters)
        guard conflicts == bothSides else {
            throw BenchmarkError.wrongResult("W10 merge left \(conflicts) conflicted keys, not the \(bothSides) changed on both sides")
        }
        let merged = try a.database.bulkRead(keys: keys).mapValues { Set($0.map(\.value)) }
        let wrong = keys.filter { key in
            merged[key] != Set([aChanges[key], bChanges[key]].compactMap { $0 })
        }
        guard wrong.isEmpty else {
            throw BenchmarkError.wrongResult("W10 merge: \(wrong.count) of \(keyCount) keys do not hold the texts written on the sides that changed them")
        }
    }

    /// Each query once, checked against the keys it must find; then the timed passes.
    private static func search(_ database: KeyValueDatabase, corpus: KeyValueCorpus, backend: String, report: Report) throws {
        var expectedHits = 0
        for query in KeyValueCorpus.queries {
            let found = try database.search(for: query)
            let expected = corpus.expectedKeys(query)
            guard found.count == expected.count, Set(found) == expected else {
                throw BenchmarkError.wrongResult("W10 search '\(query)' found \(found.count) texts (\(Set(found).count) distinct), not the \(expected.count) holding it")
            }
            expectedHits += expected.count
        }
        let rounds = 25
        var hits = 0
        let time = try medianMilliseconds {
            hits = 0
            for _ in 0..<rounds {
                for query in KeyValueCorpus.queries { hits += try database.search(for: query).count }
            }
        }
        guard hits == expectedHits * rounds else {
            throw BenchmarkError.wrongResult("W10 timed searches found \(hits) texts, not \(expectedHits * rounds)")
        }
        let queryCount = rounds * KeyValueCorpus.queries.count
        let parameters = ["texts": corpus.keys.count, "queries": queryCount, "hits_per_round": expectedHits]
        report.record("W10", backend, "search_ms_per_query", time / Double(queryCount), unit: "ms", parameters: parameters)
        report.record("W10", backend, "search_queries_per_s", perSecond(queryCount, time), unit: "queries/s", parameters: parameters)
    }

    /// `count` operations in `milliseconds`, per second.
    private static func perSecond(_ count: Int, _ milliseconds: Double) -> Double {
        Double(count) / (milliseconds / 1_000)
    }
}
