import Foundation
import LLVSCore

/// A key together with its scope: the address of one value in a `KeyValueDatabase`.
///
/// A scope is a key prefix, not a directory: nothing creates or deletes it; a scope exists
/// while some key in it has a value. The empty scope is the default.
public struct ScopedKey: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The scope (a group of related keys); `""` by default.
    public var scope: String
    /// The key within the scope.
    public var key: String

    /// Creates a scoped key.
    public init(scope: String = "", key: String) {
        self.scope = scope
        self.key = key
    }

    /// Orders by scope, then key (UTF-8 bytes).
    public static func < (lhs: ScopedKey, rhs: ScopedKey) -> Bool {
        lhs.scope != rhs.scope ? lhs.scope.utf8.lexicographicallyPrecedes(rhs.scope.utf8) : lhs.key.utf8.lexicographicallyPrecedes(rhs.key.utf8)
    }

    /// `scope/key`, or `key` in the empty scope.
    public var description: String {
        scope.isEmpty ? key : "\(scope)/\(key)"
    }
}

/// How the database's keys map to store value identifiers (SPEC.md section 16):
/// `kv/` + the scope with `%` and `/` percent-escaped + `/` + the key. The database's own
/// records live under `meta/`.
enum StoreKeys {
    static let valuePrefix = "kv/"
    static let applicationIdentifier = Value.ID("meta/application-identifier")
    static let authorPrefix = "meta/authors/"

    /// The store identifier of a scoped key.
    static func valueId(_ key: ScopedKey) -> Value.ID {
        Value.ID(valuePrefix + escape(key.scope) + "/" + key.key)
    }

    /// The identifiers of every key in `scope` start with this.
    static func prefix(ofScope scope: String) -> String {
        valuePrefix + escape(scope) + "/"
    }

    /// The scoped key a store identifier names, or nil for the database's own records.
    static func scopedKey(_ id: Value.ID) -> ScopedKey? {
        guard id.rawValue.hasPrefix(valuePrefix) else { return nil }
        let rest = id.rawValue.dropFirst(valuePrefix.count)
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        return ScopedKey(scope: unescape(rest[..<slash]), key: String(rest[rest.index(after: slash)...]))
    }

    /// The store identifier of an author's record.
    static func authorId(_ id: UUID) -> Value.ID {
        Value.ID(authorPrefix + id.uuidString)
    }

    private static func escape(_ scope: String) -> String {
        guard scope.contains(where: { $0 == "%" || $0 == "/" }) else { return scope }
        return scope.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "/", with: "%2F")
    }

    private static func unescape(_ scope: Substring) -> String {
        guard scope.contains("%") else { return String(scope) }
        return scope.replacingOccurrences(of: "%2F", with: "/").replacingOccurrences(of: "%25", with: "%")
    }
}
