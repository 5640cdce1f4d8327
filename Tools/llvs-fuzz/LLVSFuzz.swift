import ArgumentParser
import Foundation
import LLVSStoreTesting
import LLVSTesting

/// `llvs-fuzz`: plays random multi-replica histories on every zone backend and checks the
/// convergence properties of DESIGN.md section 5, for a time budget or a case count. On a
/// failure it shrinks the history, writes it as JSON and exits with status 1.
@main
struct LLVSFuzz: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "llvs-fuzz",
        abstract: "Checks the convergence properties over random histories on every backend.",
        discussion: """
            Every case is a random history (up to \(RawOperation.maximumReplicas) replicas, writes, branches, \
            hand-made and arbiter merges, criss-cross merges, unrelated roots, partial exchanges) played on each \
            backend and checked against the reference model. Cases derive from the run seed, which is printed \
            first; a failing case prints its own seed (replay with --case-seed) and its shrunk history is written \
            to the output directory as JSON, the form regression tests load (--replay runs such a file).
            Build in release: swift run -c release llvs-fuzz --seconds 60
            """)

    @Option(help: "Stop after this many seconds (default 60 unless --cases is given).")
    var seconds: Double?

    @Option(help: "Stop after this many cases.")
    var cases: Int?

    @Option(help: "The run seed (default: random, printed).")
    var seed: UInt64?

    @Option(help: "Play only the case with this seed, as printed by a failure.")
    var caseSeed: UInt64?

    @Option(help: "Play the history in this JSON file (written by llvs-fuzz) and report.")
    var replay: String?

    @Option(help: "memory, file, or all.")
    var backend: String = "all"

    @Option(help: "Check only this property (1-7 or a name such as 2-convergence). Repeatable.")
    var property: [String] = []

    @Option(help: "The most operations a history has.")
    var maximumOperations: Int = 30

    @Option(help: "Worker threads (default: one per core).")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "Where failing histories are written.")
    var output: String = "fuzz-failures"

    func validate() throws {
        _ = try backends()
        _ = try properties()
        guard maximumOperations >= 1 else { throw ValidationError("--maximum-operations must be at least 1.") }
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1.") }
        if let cases, cases < 1 { throw ValidationError("--cases must be at least 1.") }
    }

    func backends() throws -> [StoreReplica.Backend] {
        if backend == "all" { return StoreReplica.Backend.allCases }
        guard let one = StoreReplica.Backend(rawValue: backend) else {
            throw ValidationError("Unknown backend '\(backend)': use memory, file or all.")
        }
        return [one]
    }

    func properties() throws -> Set<ConvergenceProperty> {
        guard !property.isEmpty else { return Set(ConvergenceProperty.allCases) }
        return Set(try property.map { name in
            guard let match = ConvergenceProperty(name: name) else {
                throw ValidationError("Unknown property '\(name)': use 1-7 or \(ConvergenceProperty.allCases.map(\.name).joined(separator: ", ")).")
            }
            return match
        })
    }

    func run() async throws {
        let runner = FuzzRunner(backends: try backends(), properties: try properties(),
                                maximumOperations: maximumOperations, outputDirectory: URL(fileURLWithPath: output))
        if let replay {
            let failure = try FuzzFailure(contentsOf: URL(fileURLWithPath: replay))
            say("Replaying \(replay) (case seed \(failure.caseSeed)):\n\(failure.history)")
            guard await runner.replay(failure.history) else { throw ExitCode(1) }
            return
        }
        if let caseSeed {
            guard await runner.runCase(seed: caseSeed) else { throw ExitCode(1) }
            return
        }
        let runSeed = seed ?? UInt64.random(in: 0...UInt64.max)
        say("llvs-fuzz run seed \(runSeed) (replay the run with --seed \(runSeed)); backends: \(try backends().map(\.rawValue).joined(separator: ", ")); properties: \(try properties().map(\.rawValue).sorted().map(String.init).joined(separator: ", "))")
        let budget = FuzzRunner.Budget(seconds: seconds ?? (cases == nil ? 60 : nil), cases: cases)
        guard await runner.run(seed: runSeed, budget: budget, jobs: jobs) else { throw ExitCode(1) }
    }
}
