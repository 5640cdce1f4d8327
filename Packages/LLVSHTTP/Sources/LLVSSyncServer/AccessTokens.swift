import Crypto
import Foundation
import LLVSSyncProtocol

/// Which bearer tokens open which stores. A store name maps to its tokens; the name `*`
/// maps to tokens that open every store (and create stores on first push).
///
/// Tokens are kept as SHA-256 digests and compared in constant time. Sources:
/// - a JSON file: `{"stores": {"notes": ["token-1", "token-2"], "*": ["admin-token"]}}`
/// - an environment variable (`LLVS_SERVER_TOKENS`): `notes=token-1,token-2;*=admin-token`
public struct AccessTokens: Sendable {
    /// The name that stands for every store.
    public static let anyStore = "*"
    /// The shortest token accepted.
    public static let minimumTokenLength = 16

    private var digests: [String: [[UInt8]]] = [:]

    /// Creates the table from tokens by store name.
    ///
    /// - Throws: ``AccessTokensError`` for an invalid store name or a token shorter than
    ///   ``minimumTokenLength`` characters.
    public init(_ tokensByStore: [String: [String]]) throws {
        for (store, tokens) in tokensByStore {
            guard store == Self.anyStore || SyncStoreName.isValid(store) else { throw AccessTokensError.invalidStoreName(store) }
            for token in tokens {
                guard token.count >= Self.minimumTokenLength, !token.contains(where: \.isWhitespace) else {
                    throw AccessTokensError.invalidToken(store: store, reason: "tokens need at least \(Self.minimumTokenLength) characters and no spaces")
                }
                digests[store, default: []].append(Self.digest(token))
            }
        }
    }

    /// No tokens: every request is refused.
    public static let none = AccessTokens()

    private init() {}

    /// True when no token opens anything.
    public var isEmpty: Bool { digests.values.allSatisfy(\.isEmpty) }

    /// Reads a JSON token file (`{"stores": {NAME: [TOKEN, …]}}`).
    ///
    /// - Throws: ``AccessTokensError/unreadable(path:reason:)`` or the errors of ``init(_:)``.
    public static func load(fileURL: URL) throws -> AccessTokens {
        struct File: Decodable { var stores: [String: [String]] }
        let data: Data
        do {
            data = try Data(contentsOf: fileURL)
        } catch {
            throw AccessTokensError.unreadable(path: fileURL.path, reason: "\(error.localizedDescription)")
        }
        do {
            return try AccessTokens(JSONDecoder().decode(File.self, from: data).stores)
        } catch let error as AccessTokensError {
            throw error
        } catch {
            throw AccessTokensError.unreadable(path: fileURL.path, reason: "expected {\"stores\": {\"NAME\": [\"TOKEN\"]}}: \(error)")
        }
    }

    /// Parses `NAME=TOKEN,TOKEN;NAME=TOKEN` (the `LLVS_SERVER_TOKENS` form).
    ///
    /// - Throws: ``AccessTokensError/unreadable(path:reason:)`` naming the malformed entry,
    ///   or the errors of ``init(_:)``.
    public static func parse(_ text: String, source: String = "LLVS_SERVER_TOKENS") throws -> AccessTokens {
        var table: [String: [String]] = [:]
        for entry in text.split(separator: ";") where !entry.trimmingCharacters(in: .whitespaces).isEmpty {
            let parts = entry.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { throw AccessTokensError.unreadable(path: source, reason: "entry \"\(entry)\" is not NAME=TOKEN[,TOKEN…]") }
            let name = parts[0].trimmingCharacters(in: .whitespaces)
            table[name, default: []] += parts[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        return try AccessTokens(table)
    }

    /// A new random token: 32 random bytes as 64 hex digits.
    public static func generateToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// True when `token` opens the store named `store` (given as it appeared in the URL).
    public func permits(_ token: String?, store: String) -> Bool {
        guard let token, !token.isEmpty else { return false }
        let presented = Self.digest(token)
        var match = false
        for candidate in (digests[store] ?? []) + (digests[Self.anyStore] ?? []) {
            match = Self.constantTimeEqual(candidate, presented) || match
        }
        return match
    }

    /// True when `token` is listed under `*` (it opens every store): an administrator's token.
    public func permitsEveryStore(_ token: String?) -> Bool {
        guard let token, !token.isEmpty else { return false }
        let presented = Self.digest(token)
        var match = false
        for candidate in digests[Self.anyStore] ?? [] {
            match = Self.constantTimeEqual(candidate, presented) || match
        }
        return match
    }

    /// True when `token` is `expected`, compared in constant time (through their digests).
    public static func matches(_ token: String?, _ expected: String) -> Bool {
        guard let token, !token.isEmpty, !expected.isEmpty else { return false }
        return constantTimeEqual(digest(token), digest(expected))
    }

    private static func digest(_ token: String) -> [UInt8] {
        Array(SHA256.hash(data: Data(token.utf8)))
    }

    private static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}

/// Why a token table could not be made.
public enum AccessTokensError: Error, Hashable, CustomStringConvertible {
    /// A key is neither `*` nor a valid store name.
    case invalidStoreName(String)
    /// A token is unusable; `reason` says why.
    case invalidToken(store: String, reason: String)
    /// The token source cannot be read or parsed.
    case unreadable(path: String, reason: String)

    /// A sentence naming the problem.
    public var description: String {
        switch self {
        case .invalidStoreName(let name):
            return "\"\(name)\" is not a store name (1-64 of A-Z a-z 0-9 . _ -, or * for every store)"
        case let .invalidToken(store, reason):
            return "A token for \(store) is invalid: \(reason)"
        case let .unreadable(path, reason):
            return "Cannot read the tokens from \(path): \(reason)"
        }
    }
}
