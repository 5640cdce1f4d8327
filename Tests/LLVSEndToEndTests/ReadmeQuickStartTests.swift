import Foundation
import LLVS
import LLVSTesting
import Testing

/// README.md's Quick start (TheMessage with a `StoreCoordinator` and a shared directory),
/// written as printed inside a type so two apps can run side by side. Difference: each app
/// gets its own store directories instead of the XDG default of `StoreCoordinator()`.
final class ReadmeMessageApp: Sendable {
    let storeCoordinator: StoreCoordinator
    let messageId = Value.ID("MESSAGE")

    init(directory: URL, sharedDirectoryURL: URL) throws {
        storeCoordinator = try StoreCoordinator(withStoreDirectoryAt: directory.appendingPathComponent("store"),
                                                cacheDirectoryAt: directory.appendingPathComponent("cache"))
        storeCoordinator.exchange = FileSystemExchange(rootDirectoryURL: sharedDirectoryURL,
                                                       store: storeCoordinator.store)
    }

    // As printed in the README, with `sync()` reporting when it is done (`done`), so a test can wait.
    func post(message: String, done: @escaping @Sendable () -> Void = {}) throws {
        let value = Value(id: messageId, data: Data(message.utf8))
        try storeCoordinator.save(updating: [value])
        sync(done: done)
    }

    func fetchMessage() -> String? {
        guard let value = try? storeCoordinator.value(id: messageId) else { return nil }
        return String(data: value.data, encoding: .utf8)
    }

    func sync(done: @escaping @Sendable () -> Void = {}) {
        storeCoordinator.exchange { _ in
            self.storeCoordinator.merge()
            done()
        }
    }
}

@Suite struct ReadmeQuickStartTests {
    @Test func aMessagePostedInOneAppIsFetchedInTheOther() async throws {
        let directory = try TemporaryDirectory()
        let shared = directory.url.appendingPathComponent("shared")
        let first = try ReadmeMessageApp(directory: directory.url.appendingPathComponent("first"), sharedDirectoryURL: shared)
        let second = try ReadmeMessageApp(directory: directory.url.appendingPathComponent("second"), sharedDirectoryURL: shared)

        await withCheckedContinuation { continuation in
            do { try first.post(message: "Hello from the first app") { continuation.resume() } } catch {
                Issue.record(error)
                continuation.resume()
            }
        }
        #expect(second.fetchMessage() == nil)
        await withCheckedContinuation { continuation in second.sync { continuation.resume() } }
        #expect(second.fetchMessage() == "Hello from the first app")
        #expect(first.storeCoordinator.currentVersion == second.storeCoordinator.currentVersion)
    }
}
