import ArgumentParser
import Foundation
import LLVSCore
import LLVSModelTesting
import LLVSStoreTesting
import LLVSTesting

/// `llvs-fuzz`: plays random multi-replica histories on every zone backend and checks the
/// convergence properties (ARCHITECTURE.md, "Convergence properties"), for a time budget
/// or a case count. On a failure it shrinks the history, writes it as JSON and exits with
/// status 1.
@main
struct LLVSFuzz: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "llvs-fuzz",
        abstract: "Checks the convergence properties over random histories on every backend.",
        discussion: """
            Every case is a random history (by default up to \(RawOperation.maximumReplicas) replicas and \
            \(RawOperation.keyCount) keys: writes with per-replica metadata and equal data under different \
            references, branches, hand-made merges, merges in either argument order with order-dependent and \
            data-writing arbiters, merges of heads over different head sets, criss-cross ladders and braids, \
            unrelated roots, partial exchanges) played on each backend and checked against the reference model, \
            which computes merge identifiers from SPEC.md's formula and virtual ancestors by brute force. \
            --replicas, --keys, --maximum-operations, --rungs and --shapes change the shape; --deep sets the shape \
            of long runs (8 replicas, 24 keys, 60 operations, ladders and braids up to 200 rungs in a fifth of the \
            operations). Cases derive from the run seed, which is printed \
            first; a failing case prints its own seed (replay with --case-seed) and its shrunk history is written \
            to the output directory as JSON, the form regression tests load (--replay runs such a file).

            --models plays model histories instead (LLVSModel): edits of every merge strategy on several replicas, \
            merges made both ways round, hand-made criss-cross merges and exchanges, on every backend; each merge must \
            give one version whichever way round, and every replica must end on one head with identical models. \
            --plant first-argument plants the reference LLVS's order-dependent rule, and the run succeeds only if \
            it finds it.

            Build in release: swift run -c release llvs-fuzz --seconds 60
            """,
        version: LLVSRelease.version)

    @Flag(help: "Fuzz the model layer: model histories checked for order-independent merges and convergence.")
    var models = false

    @Option(help: "With --models: plant a fault the run must find (first-argument: conflicts go to the merge's first argument).")
    var plant: String?

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

    @Option(help: "memory, file, sqlite, or all.")
    var backend: String = "all"

    @Option(help: "Check only this property (1-8 or a name such as 2-convergence). Repeatable.")
    var property: [String] = []

    @Flag(help: "Deep histories for long runs: the defaults of the shape options below become \(FuzzShape.deep.maximumOperations) operations, \(FuzzShape.deep.maximumReplicas) replicas, \(FuzzShape.deep.keyCount) keys, \(FuzzShape.deep.maximumRungs) rungs and \(FuzzShape.deep.shapePercent)%.")
    var deep = false

    @Option(help: "The most operations a history has, 1-100000 (default \(FuzzShape().maximumOperations); \(ModelFuzzHistory.Shape().maximumOperations) with --models).")
    var maximumOperations: Int?

    @Option(help: "The most replicas a history has, 1-64 (default \(FuzzShape().maximumReplicas); \(ModelFuzzHistory.Shape().maximumReplicas) with --models).")
    var replicas: Int?

    @Option(help: "The number of keys histories write, 1-10000 (default \(FuzzShape().keyCount); not with --models).")
    var keys: Int?

    @Option(help: "The most rungs of a ladder and levels of a braid, 1-100000 (default \(FuzzShape().maximumRungs); not with --models).")
    var rungs: Int?

    @Option(help: "How often a ladder or a braid is drawn, in percent of operations, 0-100 (default \(FuzzShape().shapePercent); not with --models).")
    var shapes: Int?

    @Option(help: "Worker threads (default: one per core).")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "Where failing histories are written.")
    var output: String = "fuzz-failures"

    func validate() throws {
        _ = try backends()
        _ = try properties()
        if let maximumOperations, !(1...100_000).contains(maximumOperations) { throw ValidationError("--maximum-operations must be 1-100000.") }
        if let replicas, !(1...64).contains(replicas) { throw ValidationError("--replicas must be 1-64.") }
        if let keys, !(1...10_000).contains(keys) { throw ValidationError("--keys must be 1-10000.") }
        if let rungs, !(1...100_000).contains(rungs) { throw ValidationError("--rungs must be 1-100000.") }
        if let shapes, !(0...100).contains(shapes) { throw ValidationError("--shapes must be 0-100.") }
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1.") }
        if let cases, cases < 1 { throw ValidationError("--cases must be at least 1.") }
        if plant != nil, !models { throw ValidationError("--plant needs --models.") }
        if let plant, ModelConvergenceSimulation.PlantedFault(rawValue: plant) == nil {
            throw ValidationError("Unknown fault '\(plant)': use \(ModelConvergenceSimulation.PlantedFault.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
    }

    func backends() throws -> [StoreReplica.Backend] {
        if backend == "all" { return StoreReplica.Backend.allCases }
        guard let one = StoreReplica.Backend(rawValue: backend) else {
            throw ValidationError("Unknown backend '\(backend)': use memory, file, sqlite or all.")
        }
        return [one]
    }

    /// The shape of the histories: --deep or the defaults, then each option given.
    func shape() -> FuzzShape {
        let base = deep ? FuzzShape.deep : FuzzShape()
        return FuzzShape(maximumReplicas: replicas ?? base.maximumReplicas, keyCount: keys ?? base.keyCount,
                         maximumOperations: maximumOperations ?? base.maximumOperations, maximumRungs: rungs ?? base.maximumRungs,
                         shapePercent: shapes ?? base.shapePercent)
    }

    func properties() throws -> Set<ConvergenceProperty> {
        guard !property.isEmpty else { return Set(ConvergenceProperty.allCases) }
        return Set(try property.map { name in
            guard let match = ConvergenceProperty(name: name) else {
                throw ValidationError("Unknown property '\(name)': use 1-8 or \(ConvergenceProperty.allCases.map(\.name).joined(separator: ", ")).")
            }
            return match
        })
    }

    func run() async throws {
        if models {
            try await runModels()
            return
        }
        let shape = shape()
        let runner = FuzzRunner(backends: try backends(), properties: try properties(),
                                shape: shape, outputDirectory: URL(fileURLWithPath: output))
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
        say("llvs-fuzz run seed \(runSeed) (replay the run with --seed \(runSeed)); backends: \(try backends().map(\.rawValue).joined(separator: ", ")); properties: \(try properties().map(\.rawValue).sorted().map(String.init).joined(separator: ", ")); shape: up to \(shape.maximumReplicas) replicas, \(shape.keyCount) keys, \(shape.maximumOperations) operations, ladders and braids of up to \(shape.maximumRungs) rungs in \(shape.shapePercent)% of operations")
        let budget = FuzzRunner.Budget(seconds: seconds ?? (cases == nil ? 60 : nil), cases: cases)
        guard await runner.run(seed: runSeed, budget: budget, jobs: jobs) else { throw ExitCode(1) }
    }

    /// `--models`: the model mode.
    func runModels() async throws {
        let shape = ModelFuzzHistory.Shape(maximumReplicas: replicas ?? 5, maximumOperations: maximumOperations ?? 40)
        let runner = ModelFuzzRunner(backends: try backends(), shape: shape, fault: plant.flatMap(ModelConvergenceSimulation.PlantedFault.init),
                                     outputDirectory: URL(fileURLWithPath: output))
        if let replay {
            let history = try JSONDecoder().decode(ModelFuzzHistory.self, from: Data(contentsOf: URL(fileURLWithPath: replay)))
            say("Replaying \(replay):\n\(history)")
            guard runner.replay(history) else { throw ExitCode(1) }
            return
        }
        if let caseSeed {
            guard runner.runCase(seed: caseSeed) else { throw ExitCode(1) }
            return
        }
        let runSeed = seed ?? UInt64.random(in: 0...UInt64.max)
        say("llvs-fuzz --models run seed \(runSeed) (replay the run with --seed \(runSeed)); backends: \(try backends().map(\.rawValue).joined(separator: ", ")); shape: up to \(shape.maximumReplicas) replicas, \(shape.modelCount) instances of each model, \(shape.maximumOperations) operations\(plant.map { "; planted fault: \($0)" } ?? "")")
        let budget = FuzzRunner.Budget(seconds: seconds ?? (cases == nil ? 60 : nil), cases: cases)
        guard await runner.run(seed: runSeed, budget: budget, jobs: jobs) else { throw ExitCode(1) }
    }
}
