import LLVS

#if HTTPClient
/// How `llvs` reports a failed exchange over HTTP (``CLIError/remote(_:)``): a URL the
/// exchange cannot use is a usage error (64); a refused token, a refused request, a server
/// that does not answer and a malformed answer are failures (1).
extension HTTPExchangeError {
    /// The process exit status.
    var exitStatus: Int32 {
        switch self {
        case .invalidStoreURL, .unusableCertificates: return 64
        case .unauthorized, .rejected, .unavailable, .malformedResponse, .untrustedCertificate: return 1
        }
    }

    /// The `error.code` of `--json` output.
    var code: String {
        switch self {
        case .unauthorized: return "unauthorized"
        case .rejected: return "rejected"
        case .unavailable: return "unavailable"
        case .malformedResponse: return "malformedResponse"
        case .invalidStoreURL: return "invalidStoreURL"
        case .unusableCertificates: return "unusableCertificates"
        case .untrustedCertificate: return "untrustedCertificate"
        }
    }

    /// The message: the library's sentence, with what to do next where the tool knows it.
    var message: String {
        switch self {
        case .unauthorized(let url):
            return "\(Self.withoutQuery(url)): the server refused the access token (401 unauthorized); pass a token valid for this store with --token or LLVS_TOKEN"
        case let .unavailable(url, attempts, reason):
            return "\(Self.withoutQuery(url)): no answer after \(Output.count(attempts, "attempt")): \(reason) (is the server running, and is the URL right?)"
        case let .untrustedCertificate(url, reason):
            return "\(Self.withoutQuery(url)): the server's TLS certificate is not trusted: \(reason). " + Self.trustHint
        case .rejected, .malformedResponse, .invalidStoreURL, .unusableCertificates:
            return description
        }
    }

    /// What to do about a certificate the tool does not trust.
    static let trustHint = "If the server uses a self-signed certificate or a private certificate authority, "
        + "name that certificate (PEM) in the environment variable \(RemoteLocation.trustedCertificatesVariable); "
        + "otherwise check the URL's host name."

    /// The request URL without its query (the cursor and limit mean nothing to a reader).
    private static func withoutQuery(_ url: String) -> Substring {
        url.prefix { $0 != "?" }
    }
}
#endif
