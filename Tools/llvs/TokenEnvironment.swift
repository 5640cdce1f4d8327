import Foundation

/// The access token in the environment, for `push`, `pull`, `sync` with a URL and `serve`
/// when `--token` is absent.
enum TokenEnvironment {
    /// The variable's name.
    static let variable = "LLVS_TOKEN"

    /// `$LLVS_TOKEN`, unless it is unset or empty.
    static var token: String? {
        ProcessInfo.processInfo.environment[variable].flatMap { $0.isEmpty ? nil : $0 }
    }
}
