import ArgumentParser
import Foundation
import LLVS

/// `llvs-bench`: runs the workloads of BENCHMARKS.md and prints one JSON object per figure
/// on stdout, then a table on stderr. Build in release: `swift run -c release llvs-bench`.
@main
struct LLVSBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "llvs-bench",
        abstract: "Runs the BENCHMARKS.md workloads and prints JSON lines (stdout) and a table (stderr).",
        discussion: """
            Workloads available so far: \(Workload.all.map { "\($0.id) (\($0.backends.joined(separator: ", ")))" }.joined(separator: "; ")).
            The backend 'history' measures the in-memory version graph alone, before any storage.
            W10 (KeyValueDatabase) runs on 'sqlite' (a database directory) and 'memory' only.
            W11 (this project's own: merges atop a criss-cross ladder and a braid) is not in BENCHMARKS.md.
            W12 (typed models: saves, fetches, fetch-all, a model merge beside a plain merge) is BENCHMARKS.md's typed-models workload.
            W13 (projections: W12's models in SQLite tables, the initial projection, updates after a save and a merge, queries).
            W14 (this project's own: read latency p50/p99/max while another thread commits versions, beside the same reads idle).
            """,
        version: LLVSRelease.version)

    @Option(name: .long, help: "Run only this workload (for example W4). Repeatable.")
    var workload: [String] = []

    @Option(name: .long, help: "Run only on this backend (history, memory, file, sqlite).")
    var backend: String?

    @Option(name: .long, help: "small (CI, under a minute) or full (the sizes BENCHMARKS.md states).")
    var scale: Scale = .small

    @Flag(name: .long, help: "Print each workload with its backends, one per line, and exit (for Scripts/bench).")
    var list = false

    @Option(name: .long, help: ArgumentHelp("Open the store at this path (with --backend), print one JSON line with its version count, the time and the process's peak RSS, and exit. W5 runs it in a process of its own.", visibility: .hidden))
    var openOnly: String?

    func validate() throws {
        let known = Set(Workload.all.map(\.id))
        for id in workload where !known.contains(id) {
            throw ValidationError("Unknown or not yet implemented workload '\(id)'. Available: \(known.sorted().joined(separator: ", ")).")
        }
        if let backend, !Workload.all.contains(where: { $0.backends.contains(backend) }) {
            throw ValidationError("No workload runs on backend '\(backend)' yet.")
        }
        if let backend, !workload.isEmpty,
           !Workload.all.contains(where: { workload.contains($0.id) && $0.backends.contains(backend) }) {
            throw ValidationError("None of \(workload.joined(separator: ", ")) runs on backend '\(backend)'.")
        }
    }

    func run() async throws {
        if list {
            for workload in Workload.all { print(([workload.id] + workload.backends).joined(separator: " ")) }
            return
        }
        if let openOnly {
            try OpeningProcess.openAndReport(path: openOnly, backend: backend ?? "file")
            return
        }
        let report = Report(scale: scale)
        let workloads = Workload.all
        for workload in workloads where self.workload.isEmpty || self.workload.contains(workload.id) {
            for backend in workload.backends where self.backend == nil || self.backend == backend {
                try await workload.run(backend, scale, report)
                report.record(workload.id, backend, "peak_rss_bytes", Double(peakResidentBytes()), unit: "bytes")
            }
        }
        report.printTable()
    }
}

/// How large the workloads are.
enum Scale: String, ExpressibleByArgument, CaseIterable {
    case small, full
}

/// A benchmark workload of BENCHMARKS.md.
struct Workload {
    var id: String
    var backends: [String]
    var run: (_ backend: String, _ scale: Scale, _ report: Report) async throws -> Void

    static var all: [Workload] {
        let valueStores = ValueStoreWorkloads()
        return [
            Workload(id: "W1", backends: ["file", "sqlite", "memory"], run: valueStores.w1),
            Workload(id: "W2", backends: ["file", "sqlite", "memory"], run: valueStores.w2),
            Workload(id: "W3", backends: ["file", "sqlite", "memory"], run: valueStores.w3),
            Workload(id: "W4", backends: ["history", "file", "sqlite", "memory"]) { backend, scale, report in
                backend == "history" ? try HistoryWorkloads.mergeBaseAtDepth(backend: backend, scale: scale, report: report)
                    : try DepthWorkloads.w4(backend: backend, scale: scale, report: report)
            },
            Workload(id: "W5", backends: ["history", "file", "sqlite", "memory"]) { backend, scale, report in
                backend == "history" ? try HistoryWorkloads.historyLoad(backend: backend, scale: scale, report: report)
                    : try DepthWorkloads.w5(backend: backend, scale: scale, report: report)
            },
            Workload(id: "W6", backends: ["file", "sqlite", "memory"], run: ExchangeWorkloads.w6),
            Workload(id: "W6E", backends: ["file", "sqlite", "memory"], run: EncryptedExchangeWorkloads.w6e),
            Workload(id: "W6W", backends: ["file", "sqlite", "memory"], run: WebDAVWorkloads.w6w),
            Workload(id: "W7", backends: ["file", "sqlite", "memory"], run: DepthWorkloads.w7),
            Workload(id: "W8", backends: ["file", "sqlite", "memory"], run: LargeVersionWorkloads.w8),
            Workload(id: "W9", backends: ["file", "sqlite", "memory"], run: HTTPWorkloads.w9),
            Workload(id: "W10", backends: BenchmarkKeyValueDatabase.backends, run: KeyValueWorkloads.w10),
            Workload(id: "W11", backends: ["file", "sqlite", "memory"], run: CrissCrossWorkloads.w11),
            Workload(id: "W12", backends: ["file", "sqlite", "memory"], run: ModelWorkloads.w12),
            Workload(id: "W13", backends: ["file", "sqlite", "memory"], run: ProjectionWorkloads.w13),
            Workload(id: "W14", backends: ["file", "sqlite", "memory"], run: ReadLatencyWorkloads.w14),
        ]
    }
}
