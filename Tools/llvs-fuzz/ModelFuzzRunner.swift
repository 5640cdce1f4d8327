import Foundation
import LLVSCore
import LLVSModelTesting
import LLVSStoreTesting
import LLVSSupport
import LLVSTesting

/// The model mode of `llvs-fuzz` (`--models`): random model histories on every backend,
/// checked for merges that depend on their argument order and replicas that do not converge
/// (``ModelConvergenceSimulation``). With a planted fault it must find it instead.
struct ModelFuzzRunner: Sendable {
    let backends: [StoreReplica.Backend]
    let shape: ModelFuzzHistory.Shape
    let fault: ModelConvergenceSimulation.PlantedFault?
    let outputDirectory: URL

    struct Progress: Sendable {
        var nextIndex = 0
        var casesDone = 0
        var operationsDone = 0
        var failed = false
        var foundPlant: UInt64?
    }

    func history(seed: UInt64) -> ModelFuzzHistory {
        var generator = SplitMix64(seed: seed)
        return .random(shape: shape, using: &generator)
    }

    /// Runs cases until the budget is spent, a case fails, or (with a planted fault) the
    /// fault is found; returns true when the run did what it should.
    func run(seed runSeed: UInt64, budget: FuzzRunner.Budget, jobs: Int) async -> Bool {
        let progress = Locked(Progress())
        let start = Date()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<jobs {
                group.addTask {
                    while true {
                        let index: Int? = progress.withLock { state in
                            if state.failed || state.foundPlant != nil
                                || budget.isSpent(started: state.nextIndex, elapsed: Date().timeIntervalSince(start)) { return nil }
                            state.nextIndex += 1
                            return state.nextIndex - 1
                        }
                        guard let index else { return }
                        let caseSeed = FuzzRunner.caseSeed(run: runSeed, index: index)
                        let history = history(seed: caseSeed)
                        for backend in backends {
                            let violations = ModelConvergenceSimulation.check(history, backend: backend, planting: fault)
                            if fault != nil {
                                if violations.contains(where: { $0.property == .orderIndependence }) {
                                    progress.withLock { if $0.foundPlant == nil { $0.foundPlant = caseSeed } }
                                    return
                                }
                            } else if let violation = violations.first {
                                progress.withLock { $0.failed = true }
                                report(violation, caseSeed: caseSeed, history: history, backend: backend)
                                return
                            }
                        }
                        progress.withLock {
                            $0.casesDone += 1
                            $0.operationsDone += history.operations.count
                        }
                    }
                }
            }
        }
        let result = progress.withLock { $0 }
        let elapsed = Date().timeIntervalSince(start)
        say(String(format: "%d model cases (%d operations; each on %@) in %.1f s with %d threads: %.1f cases per second",
                   result.casesDone, result.operationsDone, backends.map(\.rawValue).joined(separator: " and "), elapsed, jobs,
                   Double(result.casesDone) / max(elapsed, 0.001)))
        if let fault {
            if let found = result.foundPlant {
                say("Found the planted fault \(fault.rawValue) at case seed \(found) after \(result.casesDone) passing cases.")
                return true
            }
            say("FAILURE: the planted fault \(fault.rawValue) was not found.")
            return false
        }
        if !result.failed { say("No model merge depended on its order; every history converged.") }
        return !result.failed
    }

    /// Plays the case seeded `seed` on every backend; returns true if it passes.
    func runCase(seed: UInt64) -> Bool {
        let history = history(seed: seed)
        say("Model case seed \(seed):\n\(history)")
        return play(history, caseSeed: seed)
    }

    /// Plays a history from a file on every backend; returns true if it passes.
    func replay(_ history: ModelFuzzHistory) -> Bool {
        play(history, caseSeed: 0)
    }

    private func play(_ history: ModelFuzzHistory, caseSeed: UInt64) -> Bool {
        for backend in backends {
            if let violation = ModelConvergenceSimulation.check(history, backend: backend, planting: fault).first {
                report(violation, caseSeed: caseSeed, history: history, backend: backend)
                return false
            }
            say("\(backend): every model merge is the same in either order, and the replicas converge.")
        }
        return true
    }

    /// Prints a failure, shrinks its history keeping the same failure (its property, and the
    /// class of the error when one was thrown) on the same backend, and writes it.
    func report(_ violation: ModelViolation, caseSeed: UInt64, history: ModelFuzzHistory, backend: StoreReplica.Backend) {
        say("FAILURE on \(backend), case seed \(caseSeed) (replay: llvs-fuzz --models --case-seed \(caseSeed) --backend \(backend)):\n  \(violation)")
        var shrinker = ModelHistoryShrinker { candidate in
            ModelConvergenceSimulation.check(candidate, backend: backend, planting: fault).contains { $0.hasSameCause(as: violation) }
        }
        let minimal = shrinker.shrink(history)
        say("Shrunk from \(history.operations.count) to \(minimal.operations.count) operations in \(shrinker.attempts) attempts:\n\(minimal)")
        do {
            try FileManager.default.createDirectory(at: outputDirectory, withIntermediateDirectories: true)
            let file = outputDirectory.appendingPathComponent("models-\(violation.property.rawValue)-\(backend)-\(caseSeed).json")
            try Data(minimal.jsonString.utf8).write(to: file)
            say("Wrote \(file.path) (replay: llvs-fuzz --models --replay \(file.path)).")
        } catch {
            say("Could not write the failing history: \(error)\n\(minimal.jsonString)")
        }
    }
}
