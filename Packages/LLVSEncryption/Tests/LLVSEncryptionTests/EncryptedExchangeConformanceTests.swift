import Foundation
import LLVSEncryption
import LLVSExchange
import LLVSExchangeTesting
import LLVSTesting
import Testing

/// The encrypted exchange passes every check of `ExchangeConformance` over the memory
/// exchange and over the directory exchange in both formats: one store key per location,
/// shared by every store syncing there.
@Suite struct EncryptedExchangeConformanceTests {
    @Test(arguments: ExchangeConformance.Check.allCases)
    func overMemoryExchanges(_ check: ExchangeConformance.Check) async throws {
        try await ExchangeConformance { _ in
            let space = MemoryExchangeSpace()
            let keys = EncryptionKeys(storeKey: StoreEncryptionKey())
            return { store in EncryptedExchange(sealing: MemoryExchange(space: space, store: store), keys: keys) }
        }.run(check)
    }

    @Test(arguments: ExchangeConformance.Check.allCases, FileSystemExchange.DirectoryFormat.allCases)
    func overDirectories(_ check: ExchangeConformance.Check, format: FileSystemExchange.DirectoryFormat) async throws {
        let root = try TemporaryDirectory(prefix: "llvs-encrypted-suite")
        try await ExchangeConformance { name in
            let directory = root.url.appendingPathComponent(name, isDirectory: true)
            let keys = EncryptionKeys(storeKey: StoreEncryptionKey())
            return { store in
                EncryptedExchange(sealing: FileSystemExchange(rootDirectoryURL: directory, store: store, newDirectoryFormat: format), keys: keys)
            }
        }.run(check)
    }
}
