import Foundation
import LLVS
import Synchronization

/// W14 (this project's own): how long a read waits while another thread commits versions
/// as fast as it can, beside the same reads with no writer. A commit that held the lock
/// readers take while it waits for the disk shows here as a p99 of whole disk syncs.
enum ReadLatencyWorkloads {
    /// Builds W1's store (10,000 values), then times random `value(id:at:)` reads at its
    /// head one by one: first with no writer, then while a thread commits serial versions
    /// each updating 10 random values (1,000 at full scale, 200 at small), until it is done.
    /// Records p50, p99 and the maximum of each, in microseconds, and the ratio of the p99s.
    static func w14(backend: String, scale: Scale, report: Report) throws {
        let valueCount = 10_000, commitCount = scale == .full ? 1_000 : 200
        var generator = SeededGenerator(seed: 14)
        let bench = try BenchmarkStore(backend: backend)
        let store = bench.store
        let values = uuidValues(count: valueCount, generator: &generator)
        let head = try store.makeVersion(basedOnPredecessor: nil, inserting: values).id
        let ids = values.map(\.id)

        // Warm the caches, then the reads with no writer.
        for id in ids { _ = try store.value(id: id, at: head) }
        let idle = try timedReads(of: ids, at: head, in: store, generator: &generator) { $0 < commitCount * 20 }

        // The same reads while a thread commits as fast as it can.
        let finished = Finished()
        let updates = (0..<commitCount).map { _ in
            Dictionary((0..<10).map { _ in
                let id = ids[Int.random(in: 0..<ids.count, using: &generator)]
                return (id, Value(id: id, data: payload(&generator)))
            }, uniquingKeysWith: { $1 }).map(\.value)
        }
        let writer = Thread {
            var predecessor = head
            do {
                for update in updates { predecessor = try store.makeVersion(basedOnPredecessor: predecessor, updating: update).id }
            } catch {
                finished.error.withLock { $0 = "\(error)" }
            }
            finished.done.store(true, ordering: .releasing)
        }
        let start = ContinuousClock.now
        writer.start()
        let busy = try timedReads(of: ids, at: head, in: store, generator: &generator) { _ in !finished.done.load(ordering: .acquiring) }
        let writing = milliseconds(of: ContinuousClock.now - start)
        if let error = finished.error.withLock({ $0 }) { throw BenchmarkError.wrongResult("the writer failed: \(error)") }

        let parameters = ["values": valueCount, "versions_committed": commitCount]
        for (name, times) in [("idle", idle), ("during_commits", busy)] {
            let sorted = times.sorted()
            report.record("W14", backend, "read_p50_us_\(name)", sorted[sorted.count / 2], unit: "us", parameters: parameters.merging(["reads": sorted.count]) { $1 })
            report.record("W14", backend, "read_p99_us_\(name)", sorted[min(sorted.count - 1, sorted.count * 99 / 100)], unit: "us",
                          parameters: parameters.merging(["reads": sorted.count]) { $1 })
            report.record("W14", backend, "read_max_us_\(name)", sorted[sorted.count - 1], unit: "us", parameters: parameters.merging(["reads": sorted.count]) { $1 })
        }
        let p99 = { (times: [Double]) in times.sorted()[min(times.count - 1, times.count * 99 / 100)] }
        report.record("W14", backend, "read_p99_ratio_during_to_idle", p99(busy) / p99(idle), unit: "x", parameters: parameters)
        report.record("W14", backend, "ms_per_version_while_read", writing / Double(commitCount), unit: "ms", parameters: parameters)
    }

    /// Reads random values of `ids` at `version` one at a time while `goOn(readsSoFar)`,
    /// returning each read's time in microseconds.
    private static func timedReads(of ids: [Value.ID], at version: Version.ID, in store: Store, generator: inout SeededGenerator,
                                   while goOn: (Int) -> Bool) throws -> [Double] {
        var times: [Double] = []
        times.reserveCapacity(100_000)
        let clock = ContinuousClock()
        while goOn(times.count) {
            let id = ids[Int.random(in: 0..<ids.count, using: &generator)]
            var found = false
            let duration = try clock.measure { found = try store.value(id: id, at: version) != nil }
            guard found else { throw BenchmarkError.wrongResult("value \(id) missing at \(version)") }
            times.append(milliseconds(of: duration) * 1_000)
        }
        guard !times.isEmpty else { throw BenchmarkError.wrongResult("no read completed") }
        return times
    }

    /// Set by the writer thread when it is done, with its error if it failed.
    private final class Finished: Sendable {
        let done = Atomic<Bool>(false)
        let error = Mutex<String?>(nil)
    }
}
