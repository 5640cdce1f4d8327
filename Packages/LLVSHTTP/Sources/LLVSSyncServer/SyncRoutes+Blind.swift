import Foundation
import Hummingbird
import LLVSSupport
import LLVSSyncProtocol
import LLVSSyncStorage
import NIOCore
import ServiceLifecycle

/// The handlers of blind stores (``BlindAPI``): the same bearer tokens, limits, long polls
/// and metrics as the transparent API, over opaque blobs. Writes also need the store's write
/// token, of which the storage keeps only the SHA-256.
extension SyncRoutes {
    func registerBlindStores(on router: Router<BasicRequestContext>) {
        let store = router.group(RouterPath("\(BlindAPI.storesPath)/:store"))
        store.get(RouterPath(BlindAPI.blobs)) { request, context in try await listBlobs(request, context) }
        store.post(RouterPath(BlindAPI.blobs)) { request, context in try await putBlobs(request, context) }
        store.post(RouterPath(BlindAPI.fetchBlobs)) { request, context in try await fetchBlobs(request, context) }
        store.get(RouterPath(BlindAPI.events)) { request, context in try await blobEvents(request, context) }
        store.put(RouterPath(BlindAPI.writeToken)) { request, context in try await replaceWriteToken(request, context) }
    }

    /// The storage, when it keeps blind stores.
    func blobStorage() throws -> any BlobSyncStorage {
        guard let storage = storage as? any BlobSyncStorage else {
            throw SyncHTTPError(.unsupported, "This server's storage (\(storage.kind)) keeps no blind stores.")
        }
        return storage
    }

    func listBlobs(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let store = try authorize(request, context)
        let storage = try blobStorage()
        let cursor = try cursorParameter(request)
        let limit = try integerParameter(request, "limit", default: SyncLimits.maximumListingCount, range: 1...SyncLimits.maximumListingCount)
        let page = try await storageCall { try await storage.listBlobs(in: store, after: cursor, limit: limit) }
        return try json(BlobListing(blobs: page.entries, cursor: page.cursor.description,
                                    isCompleteListing: page.isCompleteListing, hasMore: page.hasMore))
    }

    func fetchBlobs(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let store = try authorize(request, context)
        let storage = try blobStorage()
        let names = try await decodeBody(BlobNamesRequest.self, request).names
        guard names.count <= SyncLimits.maximumIdentifiersPerRequest else {
            throw SyncHTTPError(.limitExceeded, "\(names.count) names in one request; the limit is \(SyncLimits.maximumIdentifiersPerRequest).")
        }
        for name in names {
            if let problem = BlindAPI.nameProblem(name) { throw SyncHTTPError(.malformedRequest, "\"\(name.debugDescription)\" is not a blob name: \(problem).") }
        }
        let found = try await storageCall { try await storage.blobs(in: store, named: names) }
        let body: Data
        do {
            body = try BlobFrames.encode(found)
        } catch {
            throw SyncHTTPError(.invalidContent, "A stored blob cannot be sent: \(error)")
        }
        return Response(status: .ok, headers: [.contentType: "application/octet-stream"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    func putBlobs(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let store = try authorize(request, context)
        let storage = try blobStorage()
        let tokenHash = try writeTokenHash(request)
        let blobs: [(name: String, data: Data)]
        do {
            blobs = try BlobFrames.decode(try await body(request))
        } catch let error as BlobFramesError {
            throw SyncHTTPError(.malformedRequest, "The body is not blob frames: \(error)")
        }
        guard blobs.count <= SyncLimits.maximumIdentifiersPerRequest else {
            throw SyncHTTPError(.limitExceeded, "\(blobs.count) blobs in one request; the limit is \(SyncLimits.maximumIdentifiersPerRequest).")
        }
        let outcome: BlobPutOutcome
        do {
            outcome = try await storageCall { try await storage.putBlobs(blobs, in: store, writeTokenHash: tokenHash) }
        } catch let error as SyncHTTPError {
            logger.notice("blob write refused", metadata: ["store": "\(store)", "blobs": "\(blobs.count)", "reason": "\(error.message)"])
            throw error
        }
        if outcome.addedCount > 0 { await announce(store, sequence: outcome.cursor.sequence) }
        metrics.pushes.increment()
        metrics.blobsAdded.increment(by: outcome.addedCount)
        if let length = request.headers[.contentLength].flatMap({ Int($0) }) { metrics.pushedBytes.increment(by: length) }
        logger.info("blob write", metadata: ["store": "\(store)", "added": "\(outcome.addedCount)",
                                             "alreadyPresent": "\(outcome.alreadyPresentCount)", "differing": "\(outcome.differing.count)",
                                             "cursor": "\(outcome.cursor)"])
        return try json(BlobPutResponse(addedCount: outcome.addedCount, alreadyPresentCount: outcome.alreadyPresentCount,
                                        differing: outcome.differing, cursor: outcome.cursor.description))
    }

    func blobEvents(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let store = try authorize(request, context)
        _ = try blobStorage()
        return try await longPoll(request, key: LongPollHub.Key(store: store, kind: .blobs))
    }

    func replaceWriteToken(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let store = try authorize(request, context)
        let storage = try blobStorage()
        guard let current = try writeTokenHash(request) else {
            throw SyncHTTPError(.writeTokenRejected, "Replacing the write token needs the current one (header \(BlindAPI.writeTokenHeader)).")
        }
        let text = try await decodeBody(WriteTokenRequest.self, request).tokenHash
        guard let new = Self.hexBytes(text, count: 32) else {
            throw SyncHTTPError(.malformedRequest, "tokenHash must be 64 lower-case hex digits.")
        }
        try await storageCall { try await storage.replaceWriteTokenHash(in: store, currentTokenHash: current, with: new) }
        logger.info("write token replaced", metadata: ["store": "\(store)"])
        return Response(status: .noContent)
    }

    /// The SHA-256 of the request's write token, or nil without one.
    func writeTokenHash(_ request: Request) throws -> Data? {
        let name = BlindAPI.writeTokenHeader.lowercased()
        guard let text = request.headers.first(where: { $0.name.canonicalName == name })?.value else { return nil }
        guard let token = Self.hexBytes(text, count: 32) else {
            throw SyncHTTPError(.malformedRequest, "\(BlindAPI.writeTokenHeader) must be 64 lower-case hex digits.")
        }
        return BlobWriteGuard.hash(token)
    }

    /// The bytes of `text` when it is exactly `count` bytes in lower-case hex.
    static func hexBytes(_ text: String, count: Int) -> Data? {
        let digits = Array(text.utf8)
        guard digits.count == count * 2 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case 0x30...0x39: return digit - 0x30
            case 0x61...0x66: return digit - 0x61 + 10
            default: return nil
            }
        }
        var bytes = Data(capacity: count)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }
}
