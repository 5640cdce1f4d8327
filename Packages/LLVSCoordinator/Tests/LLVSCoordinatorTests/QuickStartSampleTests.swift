import Foundation
import LLVSCoordinator
import LLVSTesting
import Testing

/// The Quick Start's TheMessage app, as written in the README (with directories of the test
/// instead of the default location), compiled and run against the coordinator.
final class TheMessageApp: Sendable {
    let storeCoordinator: StoreCoordinator
    let messageId = Value.ID("MESSAGE")

    init(storeURL: URL, cacheURL: URL, sharedURL: URL) throws {
        let coordinator = try StoreCoordinator(withStoreDirectoryAt: storeURL, cacheDirectoryAt: cacheURL)
        coordinator.exchange = FileSystemExchange(rootDirectoryURL: sharedURL, store: coordinator.store)
        storeCoordinator = coordinator
    }

    func post(message: String, synced: @escaping @Sendable () -> Void) throws {
        let value = Value(id: messageId, data: message.data(using: .utf8) ?? Data())
        try storeCoordinator.save(updating: [value])
        sync(then: synced)
    }

    func fetchMessage() -> String? {
        guard let value = try? storeCoordinator.value(id: messageId) else { return nil }
        return String(data: value.data, encoding: .utf8)
    }

    func sync(then done: @escaping @Sendable () -> Void = {}) {
        storeCoordinator.exchange { _ in
            self.storeCoordinator.merge()
            done()
        }
    }
}

@Suite struct QuickStartSampleTests {
    @Test func theMessageSyncsBetweenTwoApps() async throws {
        let shared = try TemporaryDirectory(prefix: "llvs-coordinator-shared")
        let first = try CoordinatorDirectories("first"), second = try CoordinatorDirectories("second")
        let appA = try TheMessageApp(storeURL: first.store.url, cacheURL: first.cache.url, sharedURL: shared.url)
        let appB = try TheMessageApp(storeURL: second.store.url, cacheURL: second.cache.url, sharedURL: shared.url)
        await withCheckedContinuation { continuation in
            do {
                try appA.post(message: "Hello from A") { continuation.resume() }
            } catch {
                Issue.record(error)
                continuation.resume()
            }
        }
        await withCheckedContinuation { continuation in appB.sync { continuation.resume() } }
        #expect(appB.fetchMessage() == "Hello from A")
    }
}
