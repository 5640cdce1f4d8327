import AsyncHTTPClient
import Foundation
import Logging
import LLVSCore
import LLVSExchange
import LLVSStore
import LLVSSyncProtocol
import NIOHTTP1

/// An exchange with a sync server (`llvs-server`) or a peer serving its store
/// (`llvs serve`), over HTTP: the role `CloudKitExchange` plays in LLVS on Apple platforms.
///
/// It speaks the sync API (SPEC.md section 15) with AsyncHTTPClient. The shared sync
/// algorithm (`LLVSExchange.Exchange.retrieve(progress:)`,
/// `LLVSExchange.Exchange.send(upTo:progress:)`) gives it cursors, byte-bounded
/// batches, predecessor-first addition and progress; this type adds:
/// - **Retries with backoff** on transient failures (``HTTPRetryPolicy``). Every request is
///   safe to repeat: a repeated push stores nothing twice.
/// - **Resume by cursor**: the server numbers versions in commit order; the cursor in
///   ``restorationState`` makes the next retrieve list only what is new, also after a
///   failure midway.
/// - **Notifications**: ``newVersionsAvailable`` long-polls the server's `events` endpoint
///   and yields as soon as another client pushes versions this store lacks.
/// - **Snapshots** (`LLVSExchange.SnapshotExchange`), kept by the server.
///
/// ```swift
/// let exchange = try HTTPExchange(storeURL: URL(string: "http://127.0.0.1:7420/v1/stores/notes")!,
///                                 store: store, accessToken: token)
/// try await exchange.retrieve()
/// try await exchange.send()
/// ```
public final class HTTPExchange: RestorationStateKeeping, SnapshotExchange {
    /// The store's URL on the server: `http[s]://HOST[:PORT]/v1/stores/NAME`.
    public let storeURL: URL
    /// The local store.
    public let store: Store
    /// See `LLVSExchange.Exchange.maximumBatchByteCount`.
    public let maximumBatchByteCount: Int
    /// How long each notification long poll waits on the server, in seconds.
    public let notificationPollSeconds: Int

    let transport: HTTPTransport
    /// The remembered cursor and remote heads (see `LLVSExchange.Exchange.restorationState`).
    public let restoration = ExchangeRestorationState()

    /// Creates an exchange between `store` and the store at `storeURL`.
    ///
    /// - Parameters:
    ///   - store: The store whose versions are sent and retrieved.
    ///   - storeURL: The served store, `http[s]://HOST[:PORT]/v1/stores/NAME`.
    ///   - accessToken: The bearer token the server expects for this store.
    ///   - httpClient: The client to send requests with (``defaultHTTPClient`` unless given).
    ///   - retryPolicy: How transient failures are retried.
    ///   - maximumBatchByteCount: The most bytes of value data per batch (5 MB by default).
    ///   - notificationPollSeconds: How long each long poll of ``newVersionsAvailable`` waits.
    ///   - logger: Where retries and notifications are logged (at debug level).
    /// - Throws: ``HTTPExchangeError/invalidStoreURL(_:)`` unless the URL is http(s) with a host.
    public init(storeURL: URL, store: Store, accessToken: String? = nil, httpClient: HTTPClient = HTTPExchange.defaultHTTPClient,
                retryPolicy: HTTPRetryPolicy = HTTPRetryPolicy(), maximumBatchByteCount: Int = 5_000_000,
                notificationPollSeconds: Int = 25, logger: Logger = Logger(label: "llvs.http-exchange")) throws {
        self.storeURL = storeURL
        self.store = store
        self.maximumBatchByteCount = maximumBatchByteCount
        self.notificationPollSeconds = min(max(1, notificationPollSeconds), SyncLimits.maximumPollSeconds)
        self.transport = try HTTPTransport(storeURL: storeURL, accessToken: accessToken, client: httpClient, retryPolicy: retryPolicy, logger: logger)
    }

    // Nothing to prepare (the default `prepareToRetrieve` and `prepareToSend`): the server
    // creates a store on its first push.

    /// Every version on the server, in the order it stored them.
    ///
    /// - Throws: ``HTTPExchangeError``.
    public func retrieveAllVersionIdentifiers() async throws -> [Version.ID] {
        try await retrieveVersionIdentifiers(after: nil).versionIds
    }

    /// The versions the server stored after `cursor`, reading page after page.
    ///
    /// - Throws: ``HTTPExchangeError``.
    public func retrieveVersionIdentifiers(after cursor: ExchangeCursor?) async throws -> VersionIdentifierPage {
        var position = cursor.flatMap { String(data: $0.rawValue, encoding: .utf8) }.flatMap(SyncCursor.init)?.description
        var ids: [Version.ID] = []
        var isCompleteListing: Bool?
        while true {
            var query = [("limit", "\(SyncLimits.maximumListingCount)")]
            if let position { query.append(("after", position)) }
            guard let page = try await transport.json(VersionListing.self, .GET, SyncAPI.StorePath.versions, query: query) else {
                throw HTTPExchangeError.malformedResponse(url: transport.url(SyncAPI.StorePath.versions), reason: "no listing")
            }
            guard SyncCursor(page.cursor) != nil else {
                throw HTTPExchangeError.malformedResponse(url: transport.url(SyncAPI.StorePath.versions), reason: "cursor \"\(page.cursor)\" is not IDENTITY.SEQUENCE")
            }
            if isCompleteListing == nil { isCompleteListing = page.isCompleteListing }
            if page.isCompleteListing && !ids.isEmpty {
                // The store was recreated between pages: start over.
                ids = []
                isCompleteListing = true
            }
            ids += page.versionIds
            position = page.cursor
            if !page.hasMore { break }
        }
        return VersionIdentifierPage(versionIds: ids, cursor: position.map { ExchangeCursor(rawValue: Data($0.utf8)) },
                                     isCompleteListing: isCompleteListing ?? true)
    }

    /// The records of these versions, fetched 1,000 at a time.
    ///
    /// - Throws: ``HTTPExchangeError``. A version the server lacks is left out (the sync
    ///   algorithm reports it as `LLVSExchange.ExchangeError.missingVersion(_:)`).
    public func retrieveVersions(identifiedBy versionIds: [Version.ID]) async throws -> [Version] {
        var versions: [Version] = []
        for start in stride(from: 0, to: versionIds.count, by: SyncLimits.maximumIdentifiersPerRequest) {
            let slice = Array(versionIds[start..<min(start + SyncLimits.maximumIdentifiersPerRequest, versionIds.count)])
            let response = try await transport.json(VersionsResponse.self, .POST, SyncAPI.StorePath.fetchVersions,
                                                    body: VersionIdentifiersRequest(versionIds: slice))
            versions += response?.versions ?? []
        }
        return versions
    }

    /// The changes of these versions, fetched 1,000 versions at a time.
    ///
    /// - Throws: ``HTTPExchangeError``. A version the server lacks is left out.
    public func retrieveValueChanges(forVersionsIdentifiedBy versionIds: [Version.ID]) async throws -> [Version.ID: [Value.Change]] {
        var result: [Version.ID: [Value.Change]] = [:]
        for start in stride(from: 0, to: versionIds.count, by: SyncLimits.maximumIdentifiersPerRequest) {
            let slice = Array(versionIds[start..<min(start + SyncLimits.maximumIdentifiersPerRequest, versionIds.count)])
            let response = try await transport.json(ValueChangesResponse.self, .POST, SyncAPI.StorePath.fetchChanges,
                                                    body: VersionIdentifiersRequest(versionIds: slice))
            for entry in response?.changes ?? [] { result[entry.versionId] = entry.valueChanges }
        }
        return result
    }

    /// Pushes the versions in one request; the server stores all of them or none, and
    /// skips those it has (so a retried push is harmless).
    ///
    /// - Throws: ``HTTPExchangeError`` (``HTTPExchangeError/rejected(url:status:code:message:)``
    ///   with `unknownPredecessors` when a predecessor is missing on the server).
    public func send(versionChanges: [VersionChanges]) async throws {
        guard !versionChanges.isEmpty else { return }
        let request = PushRequest(versions: versionChanges.map { VersionChangesMessage(version: $0.version, valueChanges: $0.valueChanges) })
        _ = try await transport.json(PushResponse.self, .POST, SyncAPI.StorePath.push, body: request)
    }
}
