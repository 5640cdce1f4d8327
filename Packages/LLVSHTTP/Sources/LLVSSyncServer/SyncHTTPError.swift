import Foundation
import Hummingbird
import LLVSCore
import LLVSSyncProtocol
import LLVSSyncStorage

/// An error answered with its status and a JSON ``SyncErrorBody``.
struct SyncHTTPError: HTTPResponseError {
    let code: SyncErrorCode
    let message: String
    /// Sent as `Retry-After` (with 503).
    let retryAfterSeconds: Int?

    init(_ code: SyncErrorCode, _ message: String, retryAfterSeconds: Int? = nil) {
        self.code = code
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
    }

    var status: HTTPResponse.Status { HTTPResponse.Status(code: code.statusCode) }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers: HTTPFields = [.contentType: "application/json"]
        if code == .unauthorized { headers[.wwwAuthenticate] = "Bearer realm=\"llvs\"" }
        if let retryAfterSeconds { headers[.retryAfter] = "\(retryAfterSeconds)" }
        let body = (try? CanonicalJSON.encode(SyncErrorBody(error: code, message: message))) ?? Data()
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// The answer to a storage failure.
    init(_ error: SyncStorageError) {
        switch error {
        case .unknownPredecessors:
            self.init(.unknownPredecessors, error.description)
        case .conflictingVersion, .invalidSnapshot, .invalidInput:
            self.init(.invalidContent, error.description)
        case .unsupported:
            self.init(.unsupported, error.description)
        case .writeTokenRejected:
            self.init(.writeTokenRejected, error.description)
        case .unavailable:
            self.init(.storageUnavailable, "The server's storage failed; try again later.")
        }
    }
}
