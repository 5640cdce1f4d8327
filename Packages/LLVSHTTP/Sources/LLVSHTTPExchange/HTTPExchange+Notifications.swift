import Foundation
import LLVSCore
import LLVSExchange
import LLVSSyncProtocol
import NIOHTTP1

extension HTTPExchange {
    /// A stream that long-polls the server's `events` endpoint and yields when versions
    /// were pushed that this store lacks (the server answers a long poll as soon as a push
    /// lands). Failed polls are retried with the retry policy's backoff. The stream ends
    /// when the consumer stops iterating or the exchange is released.
    public var newVersionsAvailable: AsyncStream<Void> {
        let transport = self.transport, store = self.store, pollSeconds = notificationPollSeconds
        return AsyncStream(bufferingPolicy: .bufferingNewest(1)) { [weak self] continuation in
            let task = Task { [weak self] in
                var cursor: String?
                var failures = 0
                while !Task.isCancelled, self != nil {
                    do {
                        var query = [("timeout", "\(pollSeconds)")]
                        if let cursor { query.append(("after", cursor)) }
                        guard let events = try await transport.json(EventsResponse.self, .GET, SyncAPI.StorePath.events, query: query,
                                                                    timeout: .seconds(pollSeconds + 15)) else { continue }
                        failures = 0
                        guard events.newVersionsAvailable, let exchange = self else {
                            cursor = events.cursor
                            continue
                        }
                        let page = try await exchange.retrieveVersionIdentifiers(after: cursor.map { ExchangeCursor(rawValue: Data($0.utf8)) })
                        cursor = page.cursor.flatMap { String(data: $0.rawValue, encoding: .utf8) } ?? events.cursor
                        if !store.historyIncludesVersions(identifiedBy: page.versionIds) { continuation.yield() }
                    } catch is CancellationError {
                        break
                    } catch {
                        failures += 1
                        transport.logger.debug("notification poll failed", metadata: ["error": "\(error)"])
                        try? await Task.sleep(for: transport.retryPolicy.delay(beforeRetry: min(failures, 10)))
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
