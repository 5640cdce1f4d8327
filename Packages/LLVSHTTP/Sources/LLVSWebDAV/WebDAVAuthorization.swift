import Foundation

/// How a ``WebDAVFolder`` proves who it is to the server.
public enum WebDAVAuthorization: Sendable, Hashable {
    /// HTTP Basic: a user name and a password (or app password), sent with every request.
    /// Use it over TLS only: over `http` anyone on the path reads the password.
    case basic(user: String, password: String)
    /// A bearer token (OAuth or a server's app token).
    case bearer(String)

    /// The `Authorization` header's value.
    var headerValue: String {
        switch self {
        case let .basic(user, password): "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        case let .bearer(token): "Bearer \(token)"
        }
    }
}
