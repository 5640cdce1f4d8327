import AsyncHTTPClient
import Foundation
import Logging
import LLVSCore
import LLVSEncryption
import LLVSExchange
import LLVSSupport
import LLVSSyncProtocol
import NIOHTTP1

/// A blind store of an `llvs-server` (`BlindAPI`) as the place an `EncryptedExchange`
/// keeps its blobs: the server holds ordered opaque blobs and the SHA-256 of the current
/// write token, nothing else.
///
/// ```swift
/// let blobs = try HTTPBlobTransport(storeURL: URL(string: "http://127.0.0.1:7420/v1/blind/notes")!,
///                                   accessToken: token)
/// let exchange = EncryptedExchange(blobs: blobs, store: store, keys: keys)
/// ```
///
/// Retries, timeouts, TLS and bearer tokens are those of ``HTTPExchange``.
public final class HTTPBlobTransport: SealedBlobTransport {
    /// The blind store's URL (`…/v1/blind/{store}`).
    public let storeURL: URL
    /// The most bytes of blobs fetched in one request.
    public let maximumBatchByteCount: Int
    /// How long each long poll of ``newBlobsAvailable`` waits at most, in seconds.
    public let notificationPollSeconds: Int

    let transport: HTTPTransport

    /// A transport for the blind store at `storeURL`.
    ///
    /// - Throws: ``HTTPExchangeError/invalidStoreURL(_:)`` when the URL is not http(s) with a host.
    public init(storeURL: URL, accessToken: String? = nil, httpClient: HTTPClient = HTTPExchange.defaultHTTPClient,
                retryPolicy: HTTPRetryPolicy = HTTPRetryPolicy(), maximumBatchByteCount: Int = 5_000_000,
                notificationPollSeconds: Int = 25, logger: Logger = Logger(label: "llvs.http-blobs")) throws {
        self.storeURL = storeURL
        self.maximumBatchByteCount = maximumBatchByteCount
        self.notificationPollSeconds = min(max(1, notificationPollSeconds), SyncLimits.maximumPollSeconds)
        transport = try HTTPTransport(storeURL: storeURL, accessToken: accessToken, client: httpClient, retryPolicy: retryPolicy, logger: logger)
    }

    /// A transport for the blind store `exchange` names (its URL, token, client, retries and
    /// batch limit).
    public init(sameServerAs exchange: HTTPExchange) {
        storeURL = exchange.storeURL
        maximumBatchByteCount = exchange.maximumBatchByteCount
        notificationPollSeconds = exchange.notificationPollSeconds
        transport = exchange.transport
    }

    /// True when `url`'s path names a blind store (`…/v1/blind/{store}`).
    public static func isBlindStoreURL(_ url: URL) -> Bool {
        let parts = url.path.split(separator: "/")
        return parts.count >= 3 && parts[parts.count - 3] == "v1" && parts[parts.count - 2] == "blind"
    }

    /// Every page of the blobs stored after `cursor`.
    ///
    /// - Throws: ``HTTPExchangeError``.
    public func listBlobs(after cursor: ExchangeCursor?) async throws -> SealedBlobPage {
        var position = cursor.flatMap { String(data: $0.rawValue, encoding: .utf8) }.flatMap(SyncCursor.init)?.description
        var names: [String] = []
        var sizes: [String: Int64] = [:]
        var isCompleteListing: Bool?
        while true {
            var query = [("limit", "\(SyncLimits.maximumListingCount)")]
            if let position { query.append(("after", position)) }
            guard let page = try await transport.json(BlobListing.self, .GET, BlindAPI.blobs, query: query),
                  SyncCursor(page.cursor) != nil else {
                throw HTTPExchangeError.malformedResponse(url: transport.url(BlindAPI.blobs), reason: "no listing with an IDENTITY.SEQUENCE cursor")
            }
            if isCompleteListing == nil { isCompleteListing = page.isCompleteListing }
            if page.isCompleteListing && !names.isEmpty {
                // The store was recreated between pages: start over.
                names = []
                sizes = [:]
                isCompleteListing = true
            }
            for entry in page.blobs {
                names.append(entry.name)
                sizes[entry.name] = entry.size
            }
            position = page.cursor
            if !page.hasMore { break }
        }
        return SealedBlobPage(names: names, sizes: sizes, cursor: position.map { ExchangeCursor(rawValue: Data($0.utf8)) },
                              isCompleteListing: isCompleteListing ?? true)
    }

    /// Nothing beyond what listings gave: the server lists sizes with names.
    public func blobSizes(named names: [String]) async throws -> [String: Int64] { [:] }

    /// The named blobs, 1,000 names a request.
    ///
    /// - Throws: ``HTTPExchangeError``; ``HTTPExchangeError/malformedResponse(url:reason:)``
    ///   for an answer that is not blob frames.
    public func blobs(named names: [String]) async throws -> [String: Data] {
        var result: [String: Data] = [:]
        for start in stride(from: 0, to: names.count, by: SyncLimits.maximumIdentifiersPerRequest) {
            let slice = Array(names[start..<min(start + SyncLimits.maximumIdentifiersPerRequest, names.count)])
            let body = try CanonicalJSON.encode(BlobNamesRequest(names: slice))
            guard let data = try await transport.send(.POST, BlindAPI.fetchBlobs, body: body) else { continue }
            do {
                for blob in try BlobFrames.decode(data) { result[blob.name] = blob.data }
            } catch {
                throw HTTPExchangeError.malformedResponse(url: transport.url(BlindAPI.fetchBlobs), reason: "\(error)")
            }
        }
        return result
    }

    /// Stores the blobs, in requests of at most 1,000 blobs and about
    /// ``maximumBatchByteCount`` bytes.
    ///
    /// - Throws: `EncryptionError.writeTokenRejected(reason:)` (403), ``HTTPExchangeError``.
    public func put(_ blobs: [(name: String, data: Data)], writeToken: Data?) async throws -> [String] {
        var differing: [String] = []
        var batch: [(name: String, data: Data)] = []
        var bytes = 0
        func flush() async throws {
            guard !batch.isEmpty else { return }
            let body: Data
            do {
                body = try BlobFrames.encode(batch)
            } catch {
                throw HTTPExchangeError.malformedResponse(url: transport.url(BlindAPI.blobs), reason: "a blob cannot be framed: \(error)")
            }
            let data = try await guardedWrite { try await self.transport.send(.POST, BlindAPI.blobs, body: body,
                                                                             contentType: "application/octet-stream",
                                                                             headers: Self.tokenHeader(writeToken)) }
            guard let data, let response = try? CanonicalJSON.decode(BlobPutResponse.self, from: data) else {
                throw HTTPExchangeError.malformedResponse(url: transport.url(BlindAPI.blobs), reason: "no BlobPutResponse")
            }
            differing += response.differing
            batch = []
            bytes = 0
        }
        for blob in blobs {
            if !batch.isEmpty, batch.count >= SyncLimits.maximumIdentifiersPerRequest || bytes + blob.data.count > maximumBatchByteCount {
                try await flush()
            }
            batch.append(blob)
            bytes += blob.data.count
        }
        try await flush()
        return differing
    }

    /// Moves the store to the token `new`.
    ///
    /// - Throws: `EncryptionError.writeTokenRejected(reason:)` when `current` is not the
    ///   store's token; ``HTTPExchangeError``.
    public func replaceWriteToken(current: Data, with new: Data) async throws {
        let body = try CanonicalJSON.encode(WriteTokenRequest(tokenHash: Hex.encode(EncryptionKeys.writeTokenHash(new))))
        _ = try await guardedWrite { try await self.transport.send(.PUT, BlindAPI.writeToken, body: body, headers: Self.tokenHeader(current)) }
    }

    /// Yields when a long poll of the store's events reports blobs after the last cursor seen.
    public var newBlobsAvailable: AsyncStream<Void> {
        let transport = self.transport, pollSeconds = notificationPollSeconds
        return AsyncStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            let task = Task {
                var cursor: String?
                var failures = 0
                while !Task.isCancelled {
                    do {
                        var query = [("timeout", "\(pollSeconds)")]
                        if let cursor { query.append(("after", cursor)) }
                        guard let events = try await transport.json(EventsResponse.self, .GET, BlindAPI.events, query: query,
                                                                    timeout: .seconds(pollSeconds + 15)) else { continue }
                        failures = 0
                        if events.newVersionsAvailable, cursor != nil { continuation.yield() }
                        cursor = events.cursor
                    } catch is CancellationError {
                        break
                    } catch {
                        failures += 1
                        transport.logger.debug("blob notification poll failed", metadata: ["error": "\(error)"])
                        try? await Task.sleep(for: transport.retryPolicy.delay(beforeRetry: min(failures, 10)))
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Runs a write, turning the server's 403 into ``EncryptionError/writeTokenRejected(reason:)``.
    private func guardedWrite(_ body: () async throws -> Data?) async throws -> Data? {
        do {
            return try await body()
        } catch HTTPExchangeError.rejected(_, 403, let code, let message) where code == SyncErrorCode.writeTokenRejected.rawValue {
            throw EncryptionError.writeTokenRejected(reason: message)
        }
    }

    private static func tokenHeader(_ token: Data?) -> [(String, String)] {
        token.map { [(BlindAPI.writeTokenHeader, Hex.encode($0))] } ?? []
    }
}
