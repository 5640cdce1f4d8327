import Foundation
import LLVSStoreTesting
import LLVSTesting
import LLVSTestingGenerators
import LLVSZones
import PropertyBased
import Testing

// Packages/LLVSTesting/README.md's example, as printed there; `MyStorage` stands for the
// reader's backend (here the memory backend). `readmePrintsThisExample` checks that the
// README still prints these lines.

struct MyStorage: Storage {
    let base = MemoryStorage()

    func makeZones(rootDirectoryURL: URL) throws -> StoreZones {
        try base.makeZones(rootDirectoryURL: rootDirectoryURL)
    }
}

@Test func replicasConverge() async {
    await propertyCheck(count: 100, input: FuzzGen.histories()) { history in
        // propertyCheck does not report an error its body throws: catch it.
        do {
            let violations = try await ConvergenceSimulation.check(history, properties: [.convergence]) {
                try StoreReplica(backend: .memory)
            }
            #expect(violations.isEmpty, "\(violations)")
        } catch {
            Issue.record("a replica threw \(error)")
        }
    }
}

@Test(arguments: ZoneConformance.Check.allCases)
func myStorageConforms(_ check: ZoneConformance.Check) throws {
    let directory = try TemporaryDirectory()
    try ZoneConformance(storage: MyStorage(), rootDirectoryURL: directory.url).run(check)
}

/// Every line of the README's example is a line of this file, so the example compiles and
/// runs as printed.
@Test func readmePrintsThisExample() throws {
    let here = URL(fileURLWithPath: #filePath)
    let root = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let readme = try String(contentsOf: root.appendingPathComponent("Packages/LLVSTesting/README.md"), encoding: .utf8)
    let afterHeading = try #require(readme.range(of: "## Example")).upperBound
    let start = try #require(readme.range(of: "```swift\n", range: afterHeading..<readme.endIndex)).upperBound
    let end = try #require(readme.range(of: "\n```", range: start..<readme.endIndex)).lowerBound
    let example = readme[start..<end].split(separator: "\n").map(String.init).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
    let source = Set(try String(contentsOf: here, encoding: .utf8).split(separator: "\n").map(String.init))
    #expect(example.count > 10)
    for line in example { #expect(source.contains(line), "README line not in this test: \(line)") }
}
