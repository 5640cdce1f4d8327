import Foundation
import LLVS

/// Where `llvs` finds the credentials for a WebDAV folder: never on the command line.
///
/// 1. `$LLVS_WEBDAV_TOKEN`: a bearer token.
/// 2. `$LLVS_WEBDAV_USER` and `$LLVS_WEBDAV_PASSWORD`: Basic credentials.
/// 3. A netrc file (`$LLVS_NETRC`, else `~/.netrc`): the `login` and `password` of the
///    `machine` entry for the folder's host, else of the `default` entry.
///
/// None of them: the requests carry no credentials.
enum WebDAVCredentials {
    static let tokenVariable = "LLVS_WEBDAV_TOKEN"
    static let userVariable = "LLVS_WEBDAV_USER"
    static let passwordVariable = "LLVS_WEBDAV_PASSWORD"
    static let netrcVariable = "LLVS_NETRC"

    /// Where to put credentials, for messages.
    static let help = "set LLVS_WEBDAV_USER and LLVS_WEBDAV_PASSWORD (or LLVS_WEBDAV_TOKEN), or add a machine entry to ~/.netrc (or $LLVS_NETRC)"

    #if HTTPClient
    /// The credentials for the folder at `url`.
    ///
    /// - Throws: ``CLIError/usage(_:)`` when only one of user and password is set, or
    ///   `$LLVS_NETRC` names a file that cannot be read.
    static func authorization(for url: URL, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> WebDAVAuthorization? {
        func variable(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        if let token = variable(tokenVariable) { return .bearer(token) }
        switch (variable(userVariable), variable(passwordVariable)) {
        case let (user?, password?): return .basic(user: user, password: password)
        case (.some, nil): throw CLIError.usage("\(userVariable) is set but \(passwordVariable) is not")
        case (nil, .some): throw CLIError.usage("\(passwordVariable) is set but \(userVariable) is not")
        case (nil, nil): break
        }
        let path: String
        if let named = variable(netrcVariable) {
            guard FileManager.default.isReadableFile(atPath: named) else { throw CLIError.usage("\(netrcVariable) names \(named), which cannot be read") }
            path = named
        } else {
            path = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".netrc").path
        }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else { return nil }
        return Netrc(parsing: text).credentials(forHost: url.host ?? "").map { .basic(user: $0.login, password: $0.password) }
    }
    #endif
}
