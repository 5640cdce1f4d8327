/// Why an ``HTTPExchange`` request failed. Each case names the URL.
public enum HTTPExchangeError: Error, Hashable, CustomStringConvertible {
    /// 401: the token is missing or does not open this store.
    case unauthorized(url: String)
    /// The server refused the request (a 4xx other than 401, or 501), with its error code
    /// and message.
    case rejected(url: String, status: Int, code: String, message: String)
    /// Every attempt failed transiently (see ``HTTPRetryPolicy``); `reason` is the last failure.
    case unavailable(url: String, attempts: Int, reason: String)
    /// The server answered with something that is not the expected JSON.
    case malformedResponse(url: String, reason: String)
    /// The store URL cannot be used (it must be http or https, with a host).
    case invalidStoreURL(String)
    /// A PEM file of certificates to trust cannot be read or holds none.
    case unusableCertificates(path: String, reason: String)
    /// The server's TLS certificate is not trusted (no trusted authority signed it, or it
    /// does not name the host): trust its authority (``HTTPExchange`` takes the certificates
    /// to trust) or fix the URL. Not retried: trying again does not change it.
    case untrustedCertificate(url: String, reason: String)

    /// A sentence naming the problem.
    public var description: String {
        switch self {
        case .unauthorized(let url):
            return "\(url): the server refused the access token (401); pass a token valid for this store"
        case let .rejected(url, status, code, message):
            return "\(url): the server refused the request (\(status) \(code)): \(message)"
        case let .unavailable(url, attempts, reason):
            return "\(url): no answer after \(attempts) attempt(s): \(reason)"
        case let .malformedResponse(url, reason):
            return "\(url): malformed response: \(reason)"
        case .invalidStoreURL(let url):
            return "\(url) is not a store URL (http[s]://HOST[:PORT]/v1/stores/NAME)"
        case let .unusableCertificates(path, reason):
            return "cannot trust the certificates of \(path): \(reason)"
        case let .untrustedCertificate(url, reason):
            return "\(url): the server's TLS certificate is not trusted: \(reason)"
        }
    }
}
