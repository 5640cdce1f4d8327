import Foundation
import LLVS

/// W6 of BENCHMARKS.md: `FileSystemExchange` — send every version of a 1,000-version store
/// into an empty shared directory, then retrieve them all into an empty store.
enum ExchangeWorkloads {
    /// The source store is an ``ExchangeHistory`` of 1,000 versions (100 at small scale).
    static func w6(backend: String, scale: Scale, report: Report) async throws {
        let versionCount = scale == .full ? 1_000 : 100
        let (source, head) = try ExchangeHistory.makeStore(backend: backend, versionCount: versionCount, seed: 6)
        let shared = FileManager.default.temporaryDirectory.appendingPathComponent("llvs-bench-exchange-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: shared) }
        let clock = ContinuousClock()
        var sent: [Version.ID] = []
        let sendTime = try await clock.measure {
            sent = try await FileSystemExchange(rootDirectoryURL: shared, store: source.store).send()
        }
        let target = try BenchmarkStore(backend: backend)
        var retrieved: [Version.ID] = []
        let retrieveTime = try await clock.measure {
            retrieved = try await FileSystemExchange(rootDirectoryURL: shared, store: target.store).retrieve()
        }
        guard sent.count == versionCount, retrieved.count == versionCount,
              try target.store.valueReferences(at: head).count == ExchangeHistory.initialValueCount else {
            throw BenchmarkError.wrongResult("W6 moved \(sent.count) / \(retrieved.count) of \(versionCount) versions")
        }
        let sendMs = milliseconds(of: sendTime), retrieveMs = milliseconds(of: retrieveTime)
        let parameters = ["versions": versionCount]
        report.record("W6", backend, "send_ms", sendMs, unit: "ms", parameters: parameters)
        report.record("W6", backend, "retrieve_ms", retrieveMs, unit: "ms", parameters: parameters)
        report.record("W6", backend, "send_versions_per_s", Double(versionCount) / (sendMs / 1_000), unit: "versions/s", parameters: parameters)
        report.record("W6", backend, "retrieve_versions_per_s", Double(versionCount) / (retrieveMs / 1_000), unit: "versions/s", parameters: parameters)
    }
}
