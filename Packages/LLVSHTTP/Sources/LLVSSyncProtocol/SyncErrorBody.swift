/// The JSON body of every error response: `{"error":"CODE","message":"…"}`.
public struct SyncErrorBody: Codable, Hashable, Sendable {
    /// A stable, machine-readable code (see ``SyncErrorCode``).
    public var error: String
    /// A sentence for people.
    public var message: String

    /// Creates a body.
    public init(error: SyncErrorCode, message: String) {
        self.error = error.rawValue
        self.message = message
    }
}

/// The error codes of the sync API, with the HTTP status each is sent with.
public enum SyncErrorCode: String, Codable, Sendable, CaseIterable {
    /// 401: no token, or not one valid for this store. Says nothing about the store.
    case unauthorized
    /// 400: the body is not the JSON expected, or a parameter is malformed.
    case malformedRequest
    /// 400: the store name is not valid (checked after the token).
    case invalidStoreName
    /// 404: no such route.
    case notFound
    /// 404: the store holds no snapshot (or no such chunk).
    case noSnapshot
    /// 413: the body is larger than the server accepts.
    case bodyTooLarge
    /// 422: an identifier is longer than ``SyncLimits/maximumIdentifierByteCount``, or a
    /// request names too many.
    case limitExceeded
    /// 422: a pushed version's predecessor is neither on the server nor earlier in the push.
    case unknownPredecessors
    /// 422: a pushed version is inconsistent (a version repeated with other content, a
    /// snapshot manifest that does not match its chunks).
    case invalidContent
    /// 403: a blind store's write needs the write token of the store's current key epoch
    /// (header `LLVS-Write-Token`), and this request's token is missing or not that one.
    case writeTokenRejected
    /// 501: this server does not offer the operation (a peer serving a store holds no snapshots).
    case unsupported
    /// 503: the storage failed; retry later.
    case storageUnavailable
    /// 503: the server is at one of its limits (open connections, or the memory that
    /// concurrent request bodies may hold); retry after the `Retry-After` header's seconds.
    case overloaded

    /// The HTTP status code sent with this error.
    public var statusCode: Int {
        switch self {
        case .unauthorized: return 401
        case .malformedRequest, .invalidStoreName: return 400
        case .writeTokenRejected: return 403
        case .notFound, .noSnapshot: return 404
        case .bodyTooLarge: return 413
        case .limitExceeded, .unknownPredecessors, .invalidContent: return 422
        case .unsupported: return 501
        case .storageUnavailable, .overloaded: return 503
        }
    }
}
