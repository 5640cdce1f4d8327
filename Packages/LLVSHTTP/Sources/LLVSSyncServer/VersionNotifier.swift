import Foundation
import LLVSCore
import LLVSSupport
import LLVSSyncProtocol

/// Wakes the long polls of a store when this server process stores versions in it. (Long
/// polls also re-read the storage every few seconds, for versions other server processes
/// store.)
final class VersionNotifier: Sendable {
    private let waiters = Locked<[SyncStoreName: [UUID: AsyncStream<Void>.Continuation]]>([:])

    /// Wakes every waiter of `store`.
    func notify(_ store: SyncStoreName) {
        let woken = waiters.withLock { $0[store].map { Array($0.values) } ?? [] }
        for continuation in woken { continuation.yield() }
    }

    /// Returns when ``notify(_:)`` is called for `store`, when `duration` passes, or when
    /// the task is cancelled.
    func wait(for store: SyncStoreName, upTo duration: Duration) async {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let key = UUID()
        waiters.withLock { $0[store, default: [:]][key] = continuation }
        let timer = Task {
            try? await Task.sleep(for: duration)
            continuation.finish()
        }
        defer {
            timer.cancel()
            waiters.withLock { table in
                table[store]?[key] = nil
                if table[store]?.isEmpty == true { table[store] = nil }
            }
        }
        for await _ in stream { break }
    }
}
