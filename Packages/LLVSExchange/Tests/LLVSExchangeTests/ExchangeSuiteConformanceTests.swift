import Foundation
import LLVSExchange
import LLVSExchangeTesting
import LLVSTesting
import Testing

/// The memory exchange and the directory exchange, in both formats, pass every check of
/// `ExchangeConformance`.
@Suite struct ExchangeSuiteConformanceTests {
    @Test(arguments: ExchangeConformance.Check.allCases)
    func memoryExchangeConforms(_ check: ExchangeConformance.Check) async throws {
        try await ExchangeConformance { _ in
            let space = MemoryExchangeSpace()
            return { store in MemoryExchange(space: space, store: store) }
        }.run(check)
    }

    @Test(arguments: ExchangeConformance.Check.allCases, FileSystemExchange.DirectoryFormat.allCases)
    func directoryExchangeConforms(_ check: ExchangeConformance.Check, format: FileSystemExchange.DirectoryFormat) async throws {
        let root = try TemporaryDirectory(prefix: "llvs-exchange-suite")
        try await ExchangeConformance { name in
            let directory = root.url.appendingPathComponent(name, isDirectory: true)
            return { store in FileSystemExchange(rootDirectoryURL: directory, store: store, newDirectoryFormat: format) }
        }.run(check)
    }
}
