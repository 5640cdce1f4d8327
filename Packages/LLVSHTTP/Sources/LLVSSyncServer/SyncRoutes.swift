import Foundation
import Hummingbird
import Logging
import LLVSCore
import LLVSExchange
import LLVSSyncProtocol
import LLVSSyncStorage
import NIOCore
import ServiceLifecycle

/// The handlers of the sync API. Every store route checks the bearer token before anything
/// else, so a request without a valid token learns nothing (not even whether the store
/// exists); then the store name, the parameters and the body.
struct SyncRoutes: Sendable {
    let storage: any SyncStorage
    let configuration: SyncServerConfiguration
    /// What long polls wait on: one storage read per store per change, shared.
    let hub: LongPollHub
    /// How other instances sharing the storage hear of this one's pushes.
    let feed: any SyncChangeFeed
    let metrics: SyncMetrics
    let exposition: PrometheusExposition

    var logger: Logger { configuration.logger }

    func register(on router: Router<BasicRequestContext>) {
        router.get(RouterPath(SyncAPI.healthPath)) { _, _ in try await health() }
        router.get(RouterPath(SyncAPI.readyPath)) { _, _ in try await ready() }
        router.get(RouterPath(SyncAPI.metricsPath)) { request, _ in try prometheusMetrics(request) }
        registerBlindStores(on: router)
        guard configuration.servesTransparentStores else { return }
        let store = router.group(RouterPath("\(SyncAPI.storesPath)/:store"))
        store.get(RouterPath(SyncAPI.StorePath.versions)) { request, context in try await listVersions(request, context) }
        store.post(RouterPath(SyncAPI.StorePath.fetchVersions)) { request, context in try await fetchVersions(request, context) }
        store.post(RouterPath(SyncAPI.StorePath.fetchChanges)) { request, context in try await fetchChanges(request, context) }
        store.post(RouterPath(SyncAPI.StorePath.push)) { request, context in try await push(request, context) }
        store.get(RouterPath(SyncAPI.StorePath.events)) { request, context in try await events(request, context) }
        store.get(RouterPath(SyncAPI.StorePath.latestSnapshot)) { request, context in try await latestSnapshot(request, context) }
        store.put(RouterPath(SyncAPI.StorePath.latestSnapshot)) { request, context in try await publishSnapshot(request, context) }
        store.get("snapshots/:snapshot/chunks/:index") { request, context in try await snapshotChunk(request, context) }
        store.put("snapshots/:snapshot/chunks/:index") { request, context in try await storeSnapshotChunk(request, context) }
    }

    // MARK: Handlers

    func health() async throws -> Response {
        try await checkStorage("health check")
        return try json(HealthResponse(status: "ok", storage: storage.kind))
    }

    /// Throws `storageUnavailable` (503), logging why, when the storage does not answer, or
    /// not within ``SyncServerConfiguration/storageCheckTimeout``.
    func checkStorage(_ check: String) async throws {
        let storage = self.storage
        let timeout = configuration.storageCheckTimeout
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await storage.checkHealth() }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw SyncStorageError.unavailable("no answer within \(timeout)")
                }
                defer { group.cancelAll() }
                try await group.next()
            }
        } catch {
            logger.error("\(check) failed", metadata: ["error": "\(error)"])
            throw SyncHTTPError(.storageUnavailable, "The server's storage does not answer.")
        }
    }

    /// 200 while the server takes requests; 503 while it shuts down (a load balancer then
    /// sends new requests elsewhere while the ones in flight finish) or when its storage does
    /// not answer.
    func ready() async throws -> Response {
        guard !Task.isShuttingDownGracefully else {
            throw SyncHTTPError(.overloaded, "The server is shutting down.")
        }
        try await checkStorage("readiness check")
        return try json(HealthResponse(status: "ready", storage: storage.kind))
    }

    /// The metrics in Prometheus text format, for whom ``SyncServerConfiguration/metricsAccess`` allows.
    func prometheusMetrics(_ request: Request) throws -> Response {
        var token: String?
        if let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") {
            token = String(header.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
        }
        let permitted: Bool
        switch configuration.metricsAccess {
        case .disabled:
            throw SyncHTTPError(.notFound, "This server does not serve metrics.")
        case .everyone:
            permitted = true
        case .adminTokens:
            permitted = configuration.accessTokens.permitsEveryStore(token)
        case .token(let metricsToken):
            permitted = configuration.accessTokens.permitsEveryStore(token) || AccessTokens.matches(token, metricsToken)
        }
        guard permitted else {
            logger.notice("unauthorized request", metadata: ["path": "\(request.uri.path)", "token": "\(token == nil ? "none" : "invalid")"])
            throw SyncHTTPError(.unauthorized, "A valid bearer token is required.")
        }
        return Response(status: .ok, headers: [.contentType: PrometheusExposition.contentType],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: exposition.render())))
    }

    func listVersions(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let store = try authorize(request, context)
        let cursor = try cursorParameter(request)
        let limit = try integerParameter(request, "limit", default: SyncLimits.maximumListingCount, range: 1...SyncLimits.maximumListingCount)
        let page = try await storageCall { try await storage.listVersions(in: store, after: cursor, limit: limit) }
        return try json(VersionListing(versionIds: page.versionIds, cursor: page.cursor.description,
                                       isCompleteListing: page.isCompleteListing, hasMore: page.hasMore))
    }

    func fetchVersions(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let store = try authorize(request, context)
        let ids = try await identifiers(request)
        let records = try await storageCall { try await storage.versionRecords(in: store, identifiedBy: ids) }
        var body = Data("{\"versions\":[".utf8)
        for (index, record) in records.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(record)
        }
        body.append(contentsOf: Array("]}".utf8))
        return raw(body)
    }

    func fetchChanges(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let store = try authorize(request, context)
        let ids = try await identifiers(request)
        let changes = try await storageCall { try await storage.valueChanges(in: store, identifiedBy: ids) }
        var body = Data("{\"changes\":[".utf8)
        for (index, (id, encoded)) in changes.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(contentsOf: Array("{\"valueChanges\":".utf8))
            body.append(encoded)
            body.append(contentsOf: Array(",\"versionId\":".utf8))
            body.append(try CanonicalJSON.encode(id))
            body.append(UInt8(ascii: "}"))
        }
        body.append(contentsOf: Array("]}".utf8))
        return raw(body)
    }

    func push(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let store = try authorize(request, context)
        let push = try await decodeBody(PushRequest.self, request)
        if let problem = PushValidation.problem(in: push.versions) { throw SyncHTTPError(problem.code, problem.message) }
        let versions = try push.versions.map(StoredVersion.init)
        let started = ContinuousClock.now
        let outcome: SyncPushOutcome
        do {
            outcome = try await storageCall { try await storage.push(versions, to: store) }
        } catch let error as SyncHTTPError {
            logger.notice("push rejected", metadata: ["store": "\(store)", "versions": "\(versions.count)", "reason": "\(error.message)"])
            throw error
        }
        if !outcome.added.isEmpty { await announce(store, sequence: outcome.cursor.sequence) }
        metrics.pushes.increment()
        metrics.versionsAdded.increment(by: outcome.added.count)
        if let length = request.headers[.contentLength].flatMap({ Int($0) }) { metrics.pushedBytes.increment(by: length) }
        logger.info("push", metadata: ["store": "\(store)", "added": "\(outcome.added.count)",
                                       "alreadyPresent": "\(outcome.alreadyPresentCount)", "cursor": "\(outcome.cursor)",
                                       "duration": "\(ContinuousClock.now - started)"])
        return try json(PushResponse(added: outcome.added, alreadyPresentCount: outcome.alreadyPresentCount, cursor: outcome.cursor.description))
    }

    func events(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let store = try authorize(request, context)
        return try await longPoll(request, key: LongPollHub.Key(store: store, kind: .versions))
    }

    /// Wakes this instance's long polls of `store` and tells the other instances: after a
    /// push committed.
    func announce(_ store: SyncStoreName, sequence: Int64) async {
        hub.changed(store)
        await feed.announce(store, sequence: sequence)
    }

    /// Answers once the latest cursor of `key` moves past the request's cursor, or at its
    /// timeout. The cursor is read through the hub: once per change for every poll waiting
    /// on the store, not once per poll.
    func longPoll(_ request: Request, key: LongPollHub.Key) async throws -> Response {
        let cursor = try cursorParameter(request)
        let timeout = try integerParameter(request, "timeout", default: 25, range: 0...SyncLimits.maximumPollSeconds)
        let deadline = ContinuousClock.now + .seconds(timeout)
        // A graceful shutdown answers waiting polls at once instead of at their timeout.
        return try await withGracefulShutdownHandler {
            while true {
                let latest: SyncCursor, generation: Int
                do {
                    (latest, generation) = try await storageCall { try await hub.latest(key) }
                } catch let timedOut as StorageTimeLimitExceeded {
                    // The read was dropped: read again while the poll's time lasts.
                    logger.warning("a storage read for waiting clients timed out", metadata: ["error": "\(timedOut)"])
                    guard deadline - ContinuousClock.now > .zero, !Task.isCancelled, !Task.isShuttingDownGracefully else {
                        throw SyncHTTPError(timedOut.unavailable)
                    }
                    continue
                }
                let available = latest.sequence > 0 && (cursor?.storeIdentity != latest.storeIdentity || latest.sequence > (cursor?.sequence ?? 0))
                let remaining = deadline - ContinuousClock.now
                if available || remaining <= .zero || Task.isCancelled || Task.isShuttingDownGracefully {
                    return try json(EventsResponse(newVersionsAvailable: available, cursor: latest.description))
                }
                await hub.wait(for: key, after: generation, upTo: remaining)
            }
        } onGracefulShutdown: {
            hub.changed(key.store)
        }
    }

    func latestSnapshot(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let store = try authorize(request, context)
        guard let manifest = try await storageCall({ try await storage.snapshotManifest(in: store) }) else {
            throw SyncHTTPError(.noSnapshot, "The store holds no snapshot.")
        }
        return raw(manifest)
    }

    func publishSnapshot(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let store = try authorize(request, context)
        let manifest = try await decodeBody(SnapshotManifest.self, request)
        do {
            try manifest.validate(location: "the manifest")
        } catch {
            throw SyncHTTPError(.invalidContent, "\(error)")
        }
        try await storageCall { try await storage.publishSnapshot(manifest, in: store) }
        logger.info("snapshot published", metadata: ["store": "\(store)", "snapshot": "\(manifest.snapshotId)",
                                                      "versions": "\(manifest.versionCount)", "bytes": "\(manifest.totalSize)"])
        return try json(manifest)
    }

    func snapshotChunk(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let store = try authorize(request, context)
        let (snapshotId, index) = try chunkParameters(context)
        guard let data = try await storageCall({ try await storage.snapshotChunk(index: index, snapshotId: snapshotId, in: store) }) else {
            throw SyncHTTPError(.noSnapshot, "Snapshot \(snapshotId) has no chunk \(index).")
        }
        return Response(status: .ok, headers: [.contentType: "application/octet-stream"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    func storeSnapshotChunk(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let store = try authorize(request, context)
        let (snapshotId, index) = try chunkParameters(context)
        let data = try await body(request)
        try await storageCall { try await storage.storeSnapshotChunk(data, index: index, snapshotId: snapshotId, in: store) }
        return Response(status: .noContent)
    }

    // MARK: Checks

    /// The store named in the path, once the bearer token is known to open it.
    func authorize(_ request: Request, _ context: BasicRequestContext) throws -> SyncStoreName {
        let name = context.parameters.get("store") ?? ""
        var token: String?
        if let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") {
            token = String(header.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
        }
        guard configuration.accessTokens.permits(token, store: name) else {
            logger.notice("unauthorized request", metadata: ["path": "\(request.uri.path)", "token": "\(token == nil ? "none" : "invalid")"])
            throw SyncHTTPError(.unauthorized, "A valid bearer token is required.")
        }
        guard let store = SyncStoreName(rawValue: name) else {
            throw SyncHTTPError(.invalidStoreName, "\"\(name)\" is not a store name (1-64 of A-Z a-z 0-9 . _ -, not starting with a dot).")
        }
        return store
    }

    func cursorParameter(_ request: Request) throws -> SyncCursor? {
        guard let text = request.uri.queryParameters.get("after"), !text.isEmpty else { return nil }
        guard let cursor = SyncCursor(String(text)) else {
            throw SyncHTTPError(.malformedRequest, "The cursor \"\(text)\" is not IDENTITY.SEQUENCE.")
        }
        return cursor
    }

    func integerParameter(_ request: Request, _ name: String, default value: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = request.uri.queryParameters.get(name) else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw SyncHTTPError(.malformedRequest, "\(name) must be an integer in \(range.lowerBound)...\(range.upperBound), not \"\(text)\".")
        }
        return number
    }

    func chunkParameters(_ context: BasicRequestContext) throws -> (String, Int) {
        let snapshotId = context.parameters.get("snapshot") ?? ""
        guard SnapshotManifest.isPathSafe(snapshotId: snapshotId) else { throw SyncHTTPError(.malformedRequest, "\"\(snapshotId)\" is not a snapshot identifier.") }
        guard let index = context.parameters.get("index").flatMap({ Int($0) }), (0..<1_000_000).contains(index) else {
            throw SyncHTTPError(.malformedRequest, "The chunk index must be an integer in 0..<1000000.")
        }
        return (snapshotId, index)
    }

    /// The identifiers of a fetch request, checked against the limits.
    func identifiers(_ request: Request) async throws -> [Version.ID] {
        let ids = try await decodeBody(VersionIdentifiersRequest.self, request).versionIds
        guard ids.count <= SyncLimits.maximumIdentifiersPerRequest else {
            throw SyncHTTPError(.limitExceeded, "\(ids.count) identifiers in one request; the limit is \(SyncLimits.maximumIdentifiersPerRequest).")
        }
        for id in ids {
            if let problem = PushValidation.identifierProblem(id.rawValue, what: "version identifier") { throw SyncHTTPError(problem.code, problem.message) }
        }
        return ids
    }

    /// The request body, refused with 413 above the configured limit.
    func body(_ request: Request) async throws -> Data {
        let limit = configuration.maximumBodyByteCount
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            throw SyncHTTPError(.bodyTooLarge, "The body has \(length) bytes; this server accepts at most \(limit).")
        }
        do {
            let buffer = try await request.body.collect(upTo: limit)
            return Data(buffer.readableBytesView)
        } catch is NIOTooManyBytesError {
            throw SyncHTTPError(.bodyTooLarge, "The body is larger than the \(limit) bytes this server accepts.")
        }
    }

    func decodeBody<T: Decodable>(_ type: T.Type, _ request: Request) async throws -> T {
        let data = try await body(request)
        do {
            return try CanonicalJSON.decode(type, from: data)
        } catch {
            throw SyncHTTPError(.malformedRequest, "The body is not a valid \(type) in JSON: \(ExchangeError.describe(decodingError: error))")
        }
    }

    /// Runs a storage call, turning its errors into HTTP errors (and logging failures).
    func storageCall<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as SyncStorageError {
            if case .unavailable = error { logger.error("storage failed", metadata: ["error": "\(error)"]) }
            throw SyncHTTPError(error)
        }
    }

    // MARK: Responses

    func json(_ value: some Encodable) throws -> Response {
        raw(try CanonicalJSON.encode(value))
    }

    func raw(_ data: Data) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
