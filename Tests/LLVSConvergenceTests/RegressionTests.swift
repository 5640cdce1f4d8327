import Foundation
import LLVSExchangeTesting
import LLVSStoreTesting
import LLVSTesting
import Testing

/// Every failing history the harness has found, as `llvs-fuzz` wrote it: each must now
/// satisfy all eight properties on every backend.
@Suite struct RegressionTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Regressions")

    static var files: [URL] {
        ((try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? [])
            .filter { $0.pathExtension == "json" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    @Test(arguments: files)
    func historyFoundByTheFuzzerPasses(file: URL) async throws {
        let failure = try FuzzFailure(contentsOf: file)
        for backend in StoreReplica.Backend.allCases {
            let violations = try await ConvergenceSimulation.check(failure.history, makeReplica: ExchangeReplica.factory(backend: backend))
            #expect(violations.isEmpty, "\(file.lastPathComponent) on \(backend): \(violations)")
        }
    }
}
