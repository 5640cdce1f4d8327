import Foundation
import LLVS
import LLVSMap

/// The model benchmark's model: about ten properties of the usual kinds and strategies.
@MergeableModel
struct BenchContact: Equatable {
    var name = ""
    var email = ""
    var phone = ""
    var city = ""
    @Merged(using: .text) var notes = ""
    @Merged(using: .counter) var visits = 0
    var tags: Set<String> = []
    @Merged(using: .max) var score = 0
    var active = true
    var updated = Date(timeIntervalSinceReferenceDate: 0)
}

/// W12, the typed models' workload (issue 34; BENCHMARKS.md "Workloads added by later
/// issues"): 10,000 models of about ten properties (1,000 at small scale).
///
/// - **Insert**: every model in one version (`Store.save(ModelBatch)`), beside the same
///   bytes stored as plain values in one `makeVersion`.
/// - **Typed save**: serial versions each saving one model (the stored value is read for
///   the fields a newer app wrote, then the model is encoded), beside serial plain saves of
///   the same bytes (`makeVersion` updating the value): ms per save and the ratio.
/// - **Fetch**: random `fetchModel` beside random `value(id:at:)`; **fetch all**:
///   `fetchAllModels` of the type.
/// - **Merge**: two branches off the head each edit 1,000 models (100 at small scale) in
///   one version, 500 of them on both sides (different properties, some the same); the
///   merge with `MergeableArbiter` beside the plain merge of the same versions with
///   `MostRecentChangeFavoringArbiter`, each on a freshly opened store, median of three.
/// - **Spread**: how the model identifiers fall into the map's top-level buckets (the
///   first nibble of their SHA-256, SPEC.md section 6), largest and smallest bucket.
enum ModelWorkloads {
    static func w12(backend: String, scale: Scale, report: Report) throws {
        let count = scale == .full ? 10_000 : 1_000
        let edits = scale == .full ? 1_000 : 100
        var generator = SeededGenerator(seed: 12)
        let bench = try BenchmarkStore(backend: backend)
        let store = bench.store
        let models = (0..<count).map { index in contact(index, &generator) }
        let ids = (0..<count).map { "contact-\($0)" }
        let parameters = ["models": count]

        // Insert: typed, then the same bytes as plain values in another store.
        var batch = ModelBatch()
        for (id, model) in zip(ids, models) { try batch.save(model, instanceIdentifier: id) }
        var head: Version.ID = "none"
        let typedInsert = try milliseconds { head = try store.save(batch, basedOn: nil).id }
        let plainBench = try BenchmarkStore(backend: backend)
        let plainValues = try store.values(storedAt: try store.valueReferences(at: head)).map { Value(id: $0.id, data: $0.data) }
        var plainHead: Version.ID = "none"
        let plainInsert = try milliseconds { plainHead = try plainBench.store.makeVersion(basedOnPredecessor: nil, inserting: plainValues).id }
        report.record("W12", backend, "insert_ms", typedInsert, unit: "ms", parameters: parameters)
        report.record("W12", backend, "plain_insert_ms", plainInsert, unit: "ms", parameters: parameters)

        // Serial saves of one model each, typed and plain, interleaved in rounds so drift
        // in the machine's speed hits both alike.
        let saves = scale == .full ? 500 : 100
        var typedTotal = 0.0, plainTotal = 0.0
        for round in 0..<saves {
            let index = Int.random(in: 0..<count, using: &generator)
            var model = models[index]
            model.visits += round + 1
            model.notes += " \(round)"
            typedTotal += try milliseconds { head = try store.save(model, instanceIdentifier: ids[index], basedOn: head).id }
            let data = try require(try store.value(id: modelValueID(typeIdentifier: "BenchContact", instanceIdentifier: ids[index]), at: head)).data
            plainTotal += try milliseconds {
                plainHead = try plainBench.store.makeVersion(basedOnPredecessor: plainHead,
                                                             updating: [Value(id: modelValueID(typeIdentifier: "BenchContact", instanceIdentifier: ids[index]), data: data)]).id
            }
        }
        report.record("W12", backend, "typed_save_ms", typedTotal / Double(saves), unit: "ms", parameters: parameters)
        report.record("W12", backend, "plain_save_ms", plainTotal / Double(saves), unit: "ms", parameters: parameters)
        report.record("W12", backend, "typed_save_ratio", typedTotal / plainTotal, unit: "x", parameters: parameters)

        // Fetches.
        let reads = scale == .full ? 10_000 : 1_000
        let picks = (0..<reads).map { _ in Int.random(in: 0..<count, using: &generator) }
        let fetchTime = try medianMilliseconds {
            for index in picks { _ = try store.fetchModel(BenchContact.self, instanceIdentifier: ids[index], at: head) }
        }
        let readTime = try medianMilliseconds {
            for index in picks { _ = try store.value(id: modelValueID(typeIdentifier: "BenchContact", instanceIdentifier: ids[index]), at: head) }
        }
        report.record("W12", backend, "fetch_us", fetchTime * 1_000 / Double(reads), unit: "us", parameters: parameters)
        report.record("W12", backend, "plain_read_us", readTime * 1_000 / Double(reads), unit: "us", parameters: parameters)
        var all: [BenchContact] = []
        let fetchAll = try medianMilliseconds { all = try store.fetchAllModels(BenchContact.self, at: head) }
        guard all.count == count else { throw BenchmarkError.wrongResult("W12 fetched \(all.count) models, expected \(count)") }
        report.record("W12", backend, "fetch_all_ms", fetchAll, unit: "ms", parameters: parameters)

        try merge(bench: bench, head: head, ids: ids, edits: edits, generator: &generator, backend: backend, report: report)
        spread(ids: ids, backend: backend, report: report)
    }

    /// Two branches each editing `edits` models, half of them on both sides; the model merge
    /// beside the plain merge of the same versions.
    static func merge(bench: BenchmarkStore, head: Version.ID, ids: [String], edits: Int, generator: inout SeededGenerator,
                      backend: String, report: Report) throws {
        let store = bench.store
        var chosen = Array(ids.indices)
        chosen.shuffle(using: &generator)
        let both = Array(chosen[0..<(edits / 2)])
        let onlyFirst = Array(chosen[(edits / 2)..<edits]), onlySecond = Array(chosen[edits..<(edits + edits / 2)])
        var first = ModelBatch(), second = ModelBatch()
        for (offset, index) in (both + onlyFirst).enumerated() {
            guard var model = try store.fetchModel(BenchContact.self, instanceIdentifier: ids[index], at: head) else { continue }
            model.city = "first \(offset)"
            model.visits += 1
            model.tags.insert("first")
            try first.save(model, instanceIdentifier: ids[index])
        }
        for (offset, index) in (both + onlySecond).enumerated() {
            guard var model = try store.fetchModel(BenchContact.self, instanceIdentifier: ids[index], at: head) else { continue }
            model.phone = "second \(offset)"
            model.visits += 2
            if offset % 4 == 0 { model.city = "second \(offset)" }
            model.notes = "second. " + model.notes
            try second.save(model, instanceIdentifier: ids[index])
        }
        let a = try store.save(first, basedOn: head), b = try store.save(second, basedOn: head)
        let arbiter = MergeableArbiter()
        arbiter.register(BenchContact.self)
        var conflicts = 0, merged = 0
        var modelMerge: Version.ID = "none"
        // Alternate the two merges, each on a freshly opened store, three times each.
        var modelTimes: [Double] = [], plainTimes: [Double] = []
        for _ in 0..<3 {
            let plainStore = try bench.openAgain()
            plainTimes.append(try milliseconds { _ = try plainStore.merge(version: a.id, with: b.id, resolvingWith: MostRecentChangeFavoringArbiter()) })
            let modelStore = try bench.openAgain()
            modelTimes.append(try milliseconds { modelMerge = try modelStore.merge(version: a.id, with: b.id, resolvingWith: arbiter).id })
            let report = try require(arbiter.lastReport)
            merged = report.models.count
            conflicts = report.models.filter(\.hasConflicts).count
        }
        let check = try bench.openAgain()
        let sample = try require(try check.fetchModel(BenchContact.self, instanceIdentifier: ids[both[1]], at: modelMerge))
        guard merged == edits / 2, sample.city == "first 1", sample.phone == "second 1", sample.visits >= 3 else {
            throw BenchmarkError.wrongResult("W12 merge: \(merged) models merged (expected \(edits / 2)); sample \(sample)")
        }
        let parameters = ["edited_per_branch": edits, "edited_on_both": edits / 2]
        let model = modelTimes.sorted()[1], plain = plainTimes.sorted()[1]
        report.record("W12", backend, "model_merge_ms", model, unit: "ms", parameters: parameters)
        report.record("W12", backend, "plain_merge_ms", plain, unit: "ms", parameters: parameters)
        report.record("W12", backend, "model_merge_ratio", model / plain, unit: "x", parameters: parameters)
        report.record("W12", backend, "models_merged_with_conflicts", Double(conflicts), unit: "models", parameters: parameters)
    }

    /// The model identifiers per top-level bucket of the map.
    static func spread(ids: [String], backend: String, report: Report) {
        var buckets = [Int](repeating: 0, count: 16)
        for id in ids { buckets[Digest.of(modelValueID(typeIdentifier: "BenchContact", instanceIdentifier: id)).nibble(at: 0)] += 1 }
        let parameters = ["models": ids.count, "buckets": 16]
        report.record("W12", backend, "map_bucket_largest", Double(buckets.max() ?? 0), unit: "ids", parameters: parameters)
        report.record("W12", backend, "map_bucket_smallest", Double(buckets.min() ?? 0), unit: "ids", parameters: parameters)
    }

    static func contact(_ index: Int, _ generator: inout SeededGenerator) -> BenchContact {
        BenchContact(name: "Person \(index)", email: "person\(index)@example.com", phone: "+44 \(Int.random(in: 1_000_000...9_999_999, using: &generator))",
                     city: ["London", "Paris", "Berlin", "Madrid"][index % 4], notes: "Met at event \(index % 37).", visits: index % 10,
                     tags: ["t\(index % 5)", "u\(index % 7)"], score: index % 100, active: index % 3 != 0,
                     updated: Date(timeIntervalSinceReferenceDate: Double(index)))
    }
}

/// The value, or a benchmark error naming what is missing.
private func require<T>(_ value: T?, _ what: String = "a value") throws -> T {
    guard let value else { throw BenchmarkError.wrongResult("W12: missing \(what)") }
    return value
}
