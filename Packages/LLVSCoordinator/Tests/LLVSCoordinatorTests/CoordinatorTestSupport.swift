import Foundation
import LLVSCoordinator
import LLVSCore
import LLVSExchange
import LLVSExchangeTesting
import LLVSStore
import LLVSSupport
import LLVSTesting
import LLVSZones
import Testing

/// A coordinator's two directories, kept alive as long as the value (so a test can
/// re-create the coordinator on the same directories).
final class CoordinatorDirectories: Sendable {
    let store: TemporaryDirectory
    let cache: TemporaryDirectory

    init(_ name: String = "replica") throws {
        store = try TemporaryDirectory(prefix: "llvs-coordinator-\(name)-store")
        cache = try TemporaryDirectory(prefix: "llvs-coordinator-\(name)-cache")
    }

    var stateFileURL: URL { cache.url.appendingPathComponent("coordinator.json") }

    func makeCoordinator(snapshotPolicy: SnapshotPolicy = .disabled, storage: any Storage = FileStorage()) throws -> StoreCoordinator {
        try StoreCoordinator(withStoreDirectoryAt: store.url, cacheDirectoryAt: cache.url, snapshotPolicy: snapshotPolicy, storage: storage)
    }
}

/// A coordinator with its directories, attached to a shared exchange directory.
final class SyncedReplica: Sendable {
    let directories: CoordinatorDirectories
    let coordinator: StoreCoordinator
    let exchange: FileSystemExchange

    init(_ name: String, sharedDirectory: URL, snapshotPolicy: SnapshotPolicy = .disabled) throws {
        directories = try CoordinatorDirectories(name)
        coordinator = try directories.makeCoordinator(snapshotPolicy: snapshotPolicy)
        exchange = FileSystemExchange(rootDirectoryURL: sharedDirectory, store: coordinator.store)
        coordinator.exchange = exchange
    }

    /// Exchanges, then merges.
    func sync() async throws {
        try await coordinator.exchange()
        coordinator.merge()
        if let error = coordinator.lastMergeError { throw error }
    }

    /// Posts a text under `key` at the current version.
    @discardableResult
    func post(_ text: String, key: String = "MESSAGE") throws -> Version? {
        try coordinator.save(updating: [Value(idString: key, data: Data(text.utf8))])
    }

    /// The text under `key` at the current version.
    func text(_ key: String = "MESSAGE") throws -> String? {
        try coordinator.value(idString: key).map { String(decoding: $0.data, as: UTF8.self) }
    }

    /// Every value's text at the current version.
    func texts() throws -> [String: String] {
        var result: [String: String] = [:]
        for value in try coordinator.values() {
            result[value.id.rawValue] = String(decoding: value.data, as: UTF8.self)
        }
        return result
    }
}

/// A value holding `text`.
func textValue(_ id: String, _ text: String) -> Value {
    Value(idString: id, data: Data(text.utf8))
}

/// The text of a value, or nil.
func text(of value: Value?) -> String? {
    value.map { String(decoding: $0.data, as: UTF8.self) }
}

/// Every version identifier in a store.
func versionIds(of store: Store) -> Set<Version.ID> {
    store.queryHistory { Set($0.allVersionIdentifiers) }
}

/// Waits until `condition` holds, checking every 10 ms, for at most `timeout`.
func eventually(timeout: Duration = .seconds(20), _ condition: @Sendable () async throws -> Bool) async rethrows -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return try await condition()
}

/// An exchange in front of another that records the order of its `prepare` calls and
/// pauses in `prepareToRetrieve`, so overlapping exchanges would show.
final class RecordingExchange: ForwardingExchange {
    let inner: any Exchange
    let pause: Duration
    private let events = Locked([String]())

    init(_ inner: any Exchange, pause: Duration = .milliseconds(20)) {
        self.inner = inner
        self.pause = pause
    }

    var recordedEvents: [String] { events.withLock { $0 } }

    func prepareToRetrieve() async throws {
        events.withLock { $0.append("retrieve") }
        try await Task.sleep(for: pause)
        try await inner.prepareToRetrieve()
    }
    func prepareToSend() async throws {
        events.withLock { $0.append("send") }
        try await Task.sleep(for: pause)
        try await inner.prepareToSend()
    }
}
