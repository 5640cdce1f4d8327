import LLVSTesting
import LLVSZones
import Testing

/// Every backend of this package passes the shared zone conformance suite.
@Suite struct ConformanceTests {
    @Test(arguments: ZoneConformance.Check.allCases)
    func fileStorageConforms(_ check: ZoneConformance.Check) throws {
        let directory = try TemporaryDirectory()
        try ZoneConformance(storage: FileStorage(), rootDirectoryURL: directory.url).run(check)
    }

    @Test(arguments: ZoneConformance.Check.allCases)
    func memoryStorageConforms(_ check: ZoneConformance.Check) throws {
        let directory = try TemporaryDirectory()
        try ZoneConformance(storage: MemoryStorage(), rootDirectoryURL: directory.url).run(check)
    }

    @Test(arguments: ZoneConformance.Check.allCases)
    func fileStorageWithATinyCacheConforms(_ check: ZoneConformance.Check) throws {
        let directory = try TemporaryDirectory()
        try ZoneConformance(storage: FileStorage(cacheByteLimit: 1_024), rootDirectoryURL: directory.url).run(check)
    }
}
