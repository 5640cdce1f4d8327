import Foundation
import GRDB
import LLVS

/// W13, projections (issue 35): the W12 contacts projected into SQLite tables.
///
/// - **Initial projection**: 100,000 models at full scale (1,000 small) inserted in one
///   version, then `ModelProjection.update(to:)` from an empty file (`initial_projection_ms`).
/// - **Update after a save**: 20 serial saves of one model each, the projection updated
///   after each (`update_after_save_ms`, median).
/// - **Update after a merge**: two branches each editing 1,000 models (100 small), 500 of
///   them on both sides, merged with `MergeableArbiter`; the projection, at their base,
///   updated to the merge (`update_after_merge_ms`, and per changed model).
/// - **Queries**: an indexed query (`city = ?`, `indexed_query_ms`) and a full-text query
///   (`notes MATCH ?`, `fulltext_query_ms`), each returning typed models, median of 20.
/// - **Owned table**: a second projection of the merge with the type owned
///   (`owned_initial_projection_ms`); the app updates two columns of 1,000 rows (100 small)
///   with SQL, and the drain saves them as one version (`drain_ms`, and per row).
/// - The process's peak resident set (`peak_rss_bytes`, recorded for every workload).
enum ProjectionWorkloads {
    static func w13(backend: String, scale: Scale, report: Report) throws {
        let count = scale == .full ? 100_000 : 1_000
        let edits = scale == .full ? 1_000 : 100
        var generator = SeededGenerator(seed: 13)
        let bench = try BenchmarkStore(backend: backend)
        let store = bench.store
        let ids = (0..<count).map { "contact-\($0)" }
        var batch = ModelBatch()
        for index in 0..<count { try batch.save(ModelWorkloads.contact(index, &generator), instanceIdentifier: ids[index]) }
        var head = try store.save(batch, basedOn: nil).id
        batch = ModelBatch()

        var schema = ProjectionSchema(version: 1)
        try schema.add(BenchContact.self, indexes: [["city"], ["score"]], fullText: ["name", "notes"])
        try FileManager.default.createDirectory(at: bench.directory, withIntermediateDirectories: true)   // the memory backend makes none
        let path = bench.directory.appendingPathComponent("projection.sqlite").path
        let projection = try ModelProjection(path: path, store: store, schema: schema)
        let parameters = ["models": count]
        let initial = try milliseconds { try projection.update(to: head) }
        guard try projection.database.read({ try Int.fetchOne($0, sql: #"SELECT count(*) FROM "BenchContact""#) }) == count else {
            throw BenchmarkError.wrongResult("W13 projected a different number of models than \(count)")
        }
        report.record("W13", backend, "initial_projection_ms", initial, unit: "ms", parameters: parameters)

        var saveTimes: [Double] = []
        for round in 0..<20 {
            let index = Int.random(in: 0..<count, using: &generator)
            var model = ModelWorkloads.contact(index, &generator)
            model.notes += " round \(round)"
            head = try store.save(model, instanceIdentifier: ids[index], basedOn: head).id
            saveTimes.append(try milliseconds { try projection.update(to: head) })
        }
        report.record("W13", backend, "update_after_save_ms", saveTimes.sorted()[saveTimes.count / 2], unit: "ms", parameters: parameters)

        // Two branches on `head`, merged; the projection moves from `head` to the merge.
        var chosen = Array(ids.indices)
        chosen.shuffle(using: &generator)
        var first = ModelBatch(), second = ModelBatch()
        for (offset, index) in chosen[0..<edits].enumerated() {
            guard var model = try store.fetchModel(BenchContact.self, instanceIdentifier: ids[index], at: head) else { continue }
            model.city = "first \(offset % 50)"
            model.visits += 1
            try first.save(model, instanceIdentifier: ids[index])
        }
        for (offset, index) in (chosen[0..<(edits / 2)] + chosen[edits..<(edits + edits / 2)]).enumerated() {
            guard var model = try store.fetchModel(BenchContact.self, instanceIdentifier: ids[index], at: head) else { continue }
            model.notes = "second \(offset). " + model.notes
            try second.save(model, instanceIdentifier: ids[index])
        }
        let a = try store.save(first, basedOn: head), b = try store.save(second, basedOn: head)
        let arbiter = MergeableArbiter()
        arbiter.register(BenchContact.self)
        let merged = try store.merge(version: a.id, with: b.id, resolvingWith: arbiter).id
        var changed = 0
        let mergeTime = try milliseconds { changed = try projection.update(to: merged).rowsChanged }
        let mergeParameters = ["models": count, "changed_models": changed]
        report.record("W13", backend, "update_after_merge_ms", mergeTime, unit: "ms", parameters: mergeParameters)
        report.record("W13", backend, "update_after_merge_us_per_model", mergeTime * 1_000 / Double(max(changed, 1)), unit: "us", parameters: mergeParameters)

        var found = 0
        let indexed = try medianMilliseconds(runs: 20) {
            found = try projection.fetch(BenchContact.self, sql: #"SELECT * FROM "BenchContact" WHERE city = ?"#, arguments: ["first 7"]).count
        }
        guard found > 0 else { throw BenchmarkError.wrongResult("W13's indexed query found nothing") }
        report.record("W13", backend, "indexed_query_ms", indexed, unit: "ms", parameters: ["models": count, "rows": found])
        let fullText = try medianMilliseconds(runs: 20) {
            found = try projection.fetch(BenchContact.self, sql: """
                SELECT c.* FROM "BenchContact" c JOIN "BenchContact_fts" f ON f.rowid = c.rowid
                WHERE "BenchContact_fts" MATCH ? ORDER BY rank LIMIT 100
                """, arguments: ["second"]).count
        }
        guard found > 0 else { throw BenchmarkError.wrongResult("W13's full-text query found nothing") }
        report.record("W13", backend, "fulltext_query_ms", fullText, unit: "ms", parameters: ["models": count, "rows": found])

        // An owned table: rows edited with SQL, drained into one version.
        var ownedSchema = ProjectionSchema(version: 1)
        try ownedSchema.add(BenchContact.self, indexes: [["city"], ["score"]], fullText: ["name", "notes"], owned: true)
        let owned = try ModelProjection(path: bench.directory.appendingPathComponent("owned.sqlite").path, store: store, schema: ownedSchema)
        let ownedInitial = try milliseconds { try owned.update(to: merged) }
        report.record("W13", backend, "owned_initial_projection_ms", ownedInitial, unit: "ms", parameters: parameters)
        let edited = chosen[(2 * edits)..<(3 * edits)].map { ids[$0] }
        try owned.database.write { db in
            for id in edited {
                try db.execute(sql: #"UPDATE "BenchContact" SET city = 'owned', visits = visits + 1 WHERE llvs_instance = ?"#, arguments: [id])
            }
        }
        var drained: Version.ID?
        let drainTime = try milliseconds { drained = try owned.drain() }
        guard let drained, let first = edited.first,
              try store.fetchModel(BenchContact.self, instanceIdentifier: first, at: drained)?.city == "owned",
              try store.valueChanges(madeBetween: merged, and: drained).count == edits else {
            throw BenchmarkError.wrongResult("W13's drain did not save the \(edits) edited rows")
        }
        let drainParameters = ["models": count, "rows": edits]
        report.record("W13", backend, "drain_ms", drainTime, unit: "ms", parameters: drainParameters)
        report.record("W13", backend, "drain_us_per_row", drainTime * 1_000 / Double(edits), unit: "us", parameters: drainParameters)
    }
}
