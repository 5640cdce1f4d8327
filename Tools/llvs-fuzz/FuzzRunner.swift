import Foundation
import LLVSCore
import LLVSExchangeTesting
import LLVSStoreTesting
import LLVSSupport
import LLVSTesting

/// Plays fuzz cases on the chosen backends from several concurrent tasks, keeps the counts, and
/// on the first failure shrinks the history and writes it out.
struct FuzzRunner: Sendable {
    /// When a run stops: after `seconds`, after `cases`, or at the first of both.
    struct Budget: Sendable {
        var seconds: Double?
        var cases: Int?

        /// True once `started` cases have begun or `elapsed` seconds passed.
        func isSpent(started: Int, elapsed: Double) -> Bool {
            cases.map { started >= $0 } == true || seconds.map { elapsed >= $0 } == true
        }
    }

    /// What the workers share.
    struct Progress: Sendable {
        var nextIndex = 0
        var casesDone = 0
        var operationsDone = 0
        var secondsByBackend: [StoreReplica.Backend: Double] = [:]
        var failed = false
        var lastReport = Date()
    }

    let backends: [StoreReplica.Backend]
    let properties: Set<ConvergenceProperty>
    let shape: FuzzShape
    let outputDirectory: URL

    /// The seed of case `index` of the run seeded `runSeed`.
    static func caseSeed(run runSeed: UInt64, index: Int) -> UInt64 {
        var generator = SplitMix64(seed: runSeed ^ (UInt64(index) &* 0xD1B5_4A32_D192_ED03))
        return generator.next()
    }

    /// The history of the case seeded `seed`.
    func history(seed: UInt64) -> FuzzHistory {
        var generator = SplitMix64(seed: seed)
        return .random(shape: shape, using: &generator)
    }

    /// Runs cases until the budget is spent or a case fails; returns true if none failed.
    func run(seed runSeed: UInt64, budget: Budget, jobs: Int) async -> Bool {
        let progress = Locked(Progress())
        let start = Date()
        await withTaskGroup(of: Void.self) { group in
          for _ in 0..<jobs {
           group.addTask {
            while true {
                let index: Int? = progress.withLock { state in
                    if state.failed || budget.isSpent(started: state.nextIndex, elapsed: Date().timeIntervalSince(start)) { return nil }
                    state.nextIndex += 1
                    return state.nextIndex - 1
                }
                guard let index else { return }
                let caseSeed = Self.caseSeed(run: runSeed, index: index)
                let history = history(seed: caseSeed)
                for backend in backends {
                    let caseStart = Date()
                    let failure = await firstFailure(of: history, on: backend)
                    progress.withLock { $0.secondsByBackend[backend, default: 0] += Date().timeIntervalSince(caseStart) }
                    if let failure {
                        progress.withLock { $0.failed = true }
                        await report(failure, caseSeed: caseSeed, history: history, backend: backend)
                        return
                    }
                }
                progress.withLock {
                    $0.casesDone += 1
                    $0.operationsDone += history.operations.count
                    if Date().timeIntervalSince($0.lastReport) >= 10 {
                        $0.lastReport = Date()
                        let elapsed = Date().timeIntervalSince(start)
                        say(String(format: "  … %d cases in %.0f s (%.1f per second)", $0.casesDone, elapsed, Double($0.casesDone) / elapsed))
                    }
                }
            }
           }
          }
        }
        let result = progress.withLock { $0 }
        let elapsed = Date().timeIntervalSince(start)
        say(String(format: "%d cases (%d operations; each case on %@) in %.1f s with %d threads: %.1f cases per second",
                     result.casesDone, result.operationsDone, backends.map(\.rawValue).joined(separator: " and "),
                     elapsed, jobs, Double(result.casesDone) / max(elapsed, 0.001)))
        for backend in backends {
            let seconds = result.secondsByBackend[backend] ?? 0
            say(String(format: "  %@: %.2f ms per case, %.1f cases per thread-second", backend.rawValue,
                         seconds * 1000 / Double(max(result.casesDone, 1)), Double(result.casesDone) / max(seconds, 0.001)))
        }
        if !result.failed { say("No property violated.") }
        return !result.failed
    }

    /// Plays the case seeded `seed` on every backend; returns true if it passes.
    func runCase(seed: UInt64) async -> Bool {
        let history = history(seed: seed)
        say("Case seed \(seed):\n\(history)")
        return await play(history, caseSeed: seed)
    }

    /// Plays a history from a file on every backend; returns true if it passes.
    func replay(_ history: FuzzHistory) async -> Bool {
        await play(history, caseSeed: 0)
    }

    private func play(_ history: FuzzHistory, caseSeed: UInt64) async -> Bool {
        for backend in backends {
            if let failure = await firstFailure(of: history, on: backend) {
                await report(failure, caseSeed: caseSeed, history: history, backend: backend)
                return false
            }
            say("\(backend): every checked property holds.")
        }
        return true
    }

    func firstFailure(of history: FuzzHistory, on backend: StoreReplica.Backend,
                      properties: Set<ConvergenceProperty>? = nil) async -> PropertyViolation? {
        await ConvergenceSimulation.firstFailure(of: history, properties: properties ?? self.properties,
                                                makeReplica: ExchangeReplica.factory(backend: backend))
    }

    /// Prints a failure, shrinks its history keeping the same failure (its property, and the
    /// class of the error when a replica threw) on the same backend, and writes the minimal
    /// history.
    func report(_ failure: PropertyViolation, caseSeed: UInt64, history: FuzzHistory, backend: StoreReplica.Backend) async {
        say("FAILURE on \(backend), case seed \(caseSeed) (replay: llvs-fuzz --case-seed \(caseSeed) --backend \(backend)):\n  \(failure)")
        var shrinker = HistoryShrinker(keeping: failure) { await firstFailure(of: $0, on: backend, properties: [failure.property]) }
        let minimal = await shrinker.shrink(history)
        let minimalFailure = await firstFailure(of: minimal, on: backend, properties: [failure.property]) ?? failure
        say("Shrunk from \(history.operations.count) to \(minimal.operations.count) operations in \(shrinker.attempts) attempts:\n\(minimal)\n  \(minimalFailure)")
        let record = FuzzFailure(caseSeed: caseSeed, backend: backend.rawValue, property: failure.property,
                                 message: minimalFailure.description, history: minimal)
        do {
            try FileManager.default.createDirectory(at: outputDirectory, withIntermediateDirectories: true)
            let file = outputDirectory.appendingPathComponent("\(failure.property.name)-\(backend)-\(caseSeed).json")
            try record.jsonData().write(to: file)
            say("Wrote \(file.path); copy it to Tests/LLVSConvergenceTests/Regressions/ once fixed.")
        } catch {
            say("Could not write the failing history: \(error)\n\(minimal.jsonString)")
        }
    }
}

/// Writes a line to standard output at once, unbuffered, so the seed and progress reach a
/// log even if the run is killed.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
