import Foundation
import LLVS

/// W8 of BENCHMARKS.md: one version inserting 1,000,000 values (100-byte payloads, UUID
/// ids; 100,000 at small scale). Peak memory is the process's peak resident set, so run W8
/// alone (`--workload W8 --backend …`) for a figure that belongs to it. Bytes on disk are
/// measured after the store is closed and opened again.
enum LargeVersionWorkloads {
    static func w8(backend: String, scale: Scale, report: Report) throws {
        let count = scale == .full ? 1_000_000 : 100_000
        var generator = SeededGenerator(seed: 8)
        let values = uuidValues(count: count, generator: &generator)
        let bench = try BenchmarkStore(backend: backend)
        var version: Version.ID = "none"
        let time = try milliseconds { version = try bench.store.makeVersion(basedOnPredecessor: nil, inserting: values).id }
        // Closing waits for what the backend still does after the version is durable (the
        // SQLite backend's checkpoint of its write-ahead log), so the bytes on disk are the
        // store's at rest.
        try bench.store.close()
        let reopened = try bench.reopen()
        guard try reopened.valueCount(at: version) == count else {
            throw BenchmarkError.wrongResult("W8 stored \(try reopened.valueCount(at: version)) of \(count) values")
        }
        let parameters = ["values": count]
        report.record("W8", backend, "insert_ms", time, unit: "ms", parameters: parameters)
        if backend != "memory" {
            let usage = bench.diskUsage()
            report.record("W8", backend, "bytes_on_disk", Double(usage.bytes), unit: "bytes", parameters: parameters)
        }
        report.record("W8", backend, "peak_rss_after_insert_bytes", Double(peakResidentBytes()), unit: "bytes", parameters: parameters)
    }
}
