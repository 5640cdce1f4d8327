import Foundation
import LLVS

/// W1, W2 and W3 of BENCHMARKS.md, which share one store per backend: W1 builds it, W2
/// reads at its head, W3 branches and merges from its head.
final class ValueStoreWorkloads {
    private var stores: [String: (store: BenchmarkStore, head: Version.ID, ids: [Value.ID])] = [:]

    /// W1: one version inserting 10,000 values; then 1,000 serial versions each updating 10
    /// random existing values. Small scale: 100 serial versions.
    func w1(backend: String, scale: Scale, report: Report) throws {
        let valueCount = 10_000, serialCount = scale == .full ? 1_000 : 100
        var generator = SeededGenerator(seed: 1)
        let bench = try BenchmarkStore(backend: backend)
        let values = uuidValues(count: valueCount, generator: &generator)
        var head: Version.ID = "none"
        let insert = try milliseconds { head = try bench.store.makeVersion(basedOnPredecessor: nil, inserting: values).id }
        let ids = values.map(\.id)
        let serial = try milliseconds {
            for _ in 0..<serialCount {
                let updates = (0..<10).map { _ in Value(id: ids[Int.random(in: 0..<ids.count, using: &generator)], data: payload(&generator)) }
                head = try bench.store.makeVersion(basedOnPredecessor: head, updating: Array(Dictionary(updates.map { ($0.id, $0) }, uniquingKeysWith: { $1 }).values)).id
            }
        }
        let parameters = ["values": valueCount, "serial_versions": serialCount]
        report.record("W1", backend, "initial_insert_ms", insert, unit: "ms", parameters: parameters)
        report.record("W1", backend, "ms_per_version", serial / Double(serialCount), unit: "ms", parameters: parameters)
        if backend != "memory" {
            // The disk's floor, measured right after the serial versions on the same file
            // system, and the serial version's cost in multiples of it (issue 22: at most 3).
            let floor = try fdatasyncFloorMilliseconds(in: bench.directory)
            report.record("W1", backend, "fdatasync_floor_ms", floor, unit: "ms", parameters: ["bytes": 4_096])
            report.record("W1", backend, "ms_per_version_in_floor_syncs", serial / Double(serialCount) / floor, unit: "syncs", parameters: parameters)
            let usage = bench.diskUsage()
            report.record("W1", backend, "bytes_on_disk", Double(usage.bytes), unit: "bytes", parameters: parameters)
            report.record("W1", backend, "file_count", Double(usage.files), unit: "files", parameters: parameters)
        }
        stores[backend] = (bench, head, ids)
    }

    /// W2: 10,000 random `value(id:at:)` at the head of W1's store, twice: a cold pass on a
    /// freshly opened store, then a warm pass.
    func w2(backend: String, scale: Scale, report: Report) throws {
        if stores[backend] == nil { try w1(backend: backend, scale: scale, report: Report(scale: scale, quiet: true)) }
        guard let (bench, head, ids) = stores[backend] else { return }
        var generator = SeededGenerator(seed: 2)
        let reads = (0..<10_000).map { _ in ids[Int.random(in: 0..<ids.count, using: &generator)] }
        let store = try bench.reopen()
        for pass in ["cold", "warm"] {
            var found = 0
            let time = try milliseconds {
                for id in reads where try store.value(id: id, at: head) != nil { found += 1 }
            }
            guard found == reads.count else { throw BenchmarkError.wrongResult("\(found) of \(reads.count) values found") }
            report.record("W2", backend, "us_per_read_\(pass)", time * 1_000 / Double(reads.count), unit: "us", parameters: ["reads": reads.count])
        }
    }

    /// W3: from W1's head, two branches of 100 versions each updating 10 random values (the
    /// branches overlap); merged with MostRecentChangeFavoringArbiter.
    func w3(backend: String, scale: Scale, report: Report) throws {
        if stores[backend] == nil { try w1(backend: backend, scale: scale, report: Report(scale: scale, quiet: true)) }
        guard let (bench, head, ids) = stores[backend] else { return }
        var generator = SeededGenerator(seed: 3)
        let store = bench.store
        var tips: [Version.ID] = []
        for _ in 0..<2 {
            var tip = head
            for _ in 0..<100 {
                let updates = (0..<10).map { _ in Value(id: ids[Int.random(in: 0..<ids.count, using: &generator)], data: payload(&generator)) }
                tip = try store.makeVersion(basedOnPredecessor: tip, updating: Array(Dictionary(updates.map { ($0.id, $0) }, uniquingKeysWith: { $1 }).values)).id
            }
            tips.append(tip)
        }
        let arbiter = ForkCountingArbiter()
        let time = try milliseconds { _ = try store.merge(version: tips[0], with: tips[1], resolvingWith: arbiter) }
        let parameters = ["branch_versions": 100, "updates_per_version": 10]
        report.record("W3", backend, "merge_ms", time, unit: "ms", parameters: parameters)
        report.record("W3", backend, "forks", Double(arbiter.forks), unit: "forks", parameters: parameters)
        report.record("W3", backend, "conflicting_forks", Double(arbiter.conflictingForks), unit: "forks", parameters: parameters)
    }
}

/// W4, W5 and W7 of BENCHMARKS.md on a store.
enum DepthWorkloads {
    /// A store with a serial history of `depth` versions: the first inserts 100 values,
    /// each later one updates one of them.
    static func serialStore(backend: String, depth: Int) throws -> (BenchmarkStore, Version.ID, [Value.ID]) {
        var generator = SeededGenerator(seed: UInt64(depth))
        let bench = try BenchmarkStore(backend: backend)
        let values = uuidValues(count: 100, generator: &generator)
        let ids = values.map(\.id)
        var head = try bench.store.makeVersion(basedOnPredecessor: nil, inserting: values).id
        for _ in 1..<depth {
            let update = Value(id: ids[Int.random(in: 0..<ids.count, using: &generator)], data: payload(&generator))
            head = try bench.store.makeVersion(basedOnPredecessor: head, updating: [update]).id
        }
        return (bench, head, ids)
    }

    static func depths(_ scale: Scale) -> [Int] {
        scale == .full ? [1_000, 10_000, 100_000] : [1_000, 3_000]
    }

    /// W4: serial histories of 1,000 / 10,000 / 100,000 versions, then two 5-version
    /// branches off the head; merge-base and full merge times. Three branch pairs are made
    /// and merged; the median merge is reported.
    static func w4(backend: String, scale: Scale, report: Report) throws {
        var mergeBase: [Double] = [], fullMerge: [Double] = []
        for depth in depths(scale) {
            let (bench, head, ids) = try serialStore(backend: backend, depth: depth)
            var generator = SeededGenerator(seed: 4)
            var pairs: [(Version.ID, Version.ID)] = []
            for _ in 0..<3 {
                var tips: [Version.ID] = []
                for _ in 0..<2 {
                    var tip = head
                    for _ in 0..<5 {
                        let update = Value(id: ids[Int.random(in: 0..<ids.count, using: &generator)], data: payload(&generator))
                        tip = try bench.store.makeVersion(basedOnPredecessor: tip, updating: [update]).id
                    }
                    tips.append(tip)
                }
                pairs.append((tips[0], tips[1]))
            }
            let store = bench.store
            let baseTime = try medianMilliseconds {
                for _ in 0..<100 { _ = try store.queryHistory { try $0.mergeBases(pairs[0].0, pairs[0].1) } }
            } / 100
            var mergeTimes: [Double] = []
            for (first, second) in pairs {
                mergeTimes.append(try milliseconds { _ = try store.merge(version: first, with: second, resolvingWith: MostRecentChangeFavoringArbiter()) })
            }
            let mergeTime = mergeTimes.sorted()[1]
            mergeBase.append(baseTime)
            fullMerge.append(mergeTime)
            report.record("W4", backend, "merge_base_ms", baseTime, unit: "ms", parameters: ["depth": depth, "branch_length": 5])
            report.record("W4", backend, "merge_ms", mergeTime, unit: "ms", parameters: ["depth": depth, "branch_length": 5])
        }
        let range = ["deepest": depths(scale).last ?? 0, "shallowest": depths(scale).first ?? 0]
        report.record("W4", backend, "merge_base_ratio_deepest_shallowest", (mergeBase.last ?? 0) / (mergeBase.first ?? 1), unit: "ratio", parameters: range)
        report.record("W4", backend, "merge_ratio_deepest_shallowest", (fullMerge.last ?? 0) / (fullMerge.first ?? 1), unit: "ratio", parameters: range)
    }

    /// W5: opening a store (loading its history) with 1,000 / 10,000 / 100,000 versions.
    static func w5(backend: String, scale: Scale, report: Report) throws {
        for depth in depths(scale) {
            let (bench, _, _) = try serialStore(backend: backend, depth: depth)
            // Three timed openings, each released before the next is opened (outside the
            // timing), so that the process holds one opened history at a time beside the
            // writer's. What an opening keeps resident is the process's RSS with it held,
            // less before it, taken at the first (before any freed history could be reused).
            // Issue 22: at most 500 bytes per version.
            var count = 0
            var times: [Double] = []
            var resident = 0
            var held: Store?
            for run in 0..<3 {
                held = nil
                let before = residentBytes()
                times.append(try milliseconds { held = try bench.openAgain() })
                withExtendedLifetime(held) {}
                if run == 0 { resident = residentBytes() - before }
                count = held?.queryHistory { $0.count } ?? 0
            }
            held = nil
            let time = times.sorted()[1]
            guard count == depth else { throw BenchmarkError.wrongResult("opened \(count) of \(depth) versions") }
            // An app opening its store at launch: the peak of a process that only opens it
            // (this one also built it and holds the writer's history and caches).
            if depth == depths(scale).last, backend != "memory" {
                let opening = try OpeningProcess.run(path: bench.directory.path, backend: backend)
                guard opening.versions == depth else { throw BenchmarkError.wrongResult("a fresh process opened \(opening.versions) of \(depth) versions") }
                report.record("W5", backend, "open_process_peak_rss_bytes", Double(opening.peakResidentBytes), unit: "bytes", parameters: ["versions": depth])
                report.record("W5", backend, "open_process_open_ms", opening.milliseconds, unit: "ms", parameters: ["versions": depth])
            }
            report.record("W5", backend, "open_ms", time, unit: "ms", parameters: ["versions": depth])
            report.record("W5", backend, "open_resident_bytes_per_version", Double(resident) / Double(depth), unit: "bytes",
                          parameters: ["versions": depth])
        }
    }

    /// W7: stores of 10,000 / 100,000 / 1,000,000 values inserted in one version; 100 serial
    /// versions each updating one value; the diff from the first version to the last.
    static func w7(backend: String, scale: Scale, report: Report) throws {
        let sizes = scale == .full ? [10_000, 100_000, 1_000_000] : [10_000, 30_000]
        var times: [Double] = []
        for size in sizes {
            var generator = SeededGenerator(seed: 7)
            let bench = try BenchmarkStore(backend: backend)
            let values = uuidValues(count: size, generator: &generator)
            let first = try bench.store.makeVersion(basedOnPredecessor: nil, inserting: values).id
            var last = first
            for _ in 0..<100 {
                let update = Value(id: values[Int.random(in: 0..<size, using: &generator)].id, data: payload(&generator))
                last = try bench.store.makeVersion(basedOnPredecessor: last, updating: [update]).id
            }
            let store = bench.store
            var changes = 0
            // The first diff also reads the value packs of the 100 versions from disk, and in
            // this process pays for the allocator tidying up after the previous, larger
            // workloads (glibc's malloc_consolidate); the steady state is the median of the
            // last 5 of 15 runs.
            let cold = try milliseconds { changes = try store.valueChanges(madeBetween: first, and: last).count }
            var runs: [Double] = []
            for _ in 0..<14 { runs.append(try milliseconds { changes = try store.valueChanges(madeBetween: first, and: last).count }) }
            let time = runs.suffix(5).sorted()[2]
            guard (1...100).contains(changes) else { throw BenchmarkError.wrongResult("diff of \(changes) changes") }
            times.append(time)
            report.record("W7", backend, "diff_ms", time, unit: "ms", parameters: ["values": size, "changes": changes])
            report.record("W7", backend, "diff_first_run_ms", cold, unit: "ms", parameters: ["values": size, "changes": changes])
        }
        report.record("W7", backend, "diff_ratio_largest_smallest", (times.last ?? 0) / (times.first ?? 1), unit: "ratio",
                      parameters: ["largest": sizes.last ?? 0, "smallest": sizes.first ?? 0])
    }
}
