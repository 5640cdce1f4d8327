import LLVSTesting
import LLVSZones
import Testing

/// The conformance suite itself, run against the in-memory backend.
@Suite struct MemoryConformanceTests {
    @Test(arguments: ZoneConformance.Check.allCases)
    func memoryStorageConforms(_ check: ZoneConformance.Check) throws {
        let directory = try TemporaryDirectory()
        try ZoneConformance(storage: MemoryStorage(), rootDirectoryURL: directory.url).run(check)
    }
}
