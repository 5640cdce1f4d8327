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

    /// True when scope and key have byte-for-byte identical UTF-8 forms (SPEC.md section 1:
    /// `é` composed and decomposed are two keys, which Swift's `String ==` would merge).
    public static func == (lhs: ScopedKey, rhs: ScopedKey) -> Bool {
        compareBytes(lhs.key, rhs.key) == 0 && compareBytes(lhs.scope, rhs.scope) == 0
    }

    /// Hashes the key consistently with its byte-wise equality.
    public func hash(into hasher: inout Hasher) {
        Self.combineBytes(of: scope, into: &hasher)
        Self.combineBytes(of: key, into: &hasher)
    }

    /// Orders by scope, then key (UTF-8 bytes).
    public static func < (lhs: ScopedKey, rhs: ScopedKey) -> Bool {
        let scopes = compareBytes(lhs.scope, rhs.scope)
        return scopes != 0 ? scopes < 0 : compareBytes(lhs.key, rhs.key) < 0
    }

    /// Compares the UTF-8 bytes of two strings (negative, zero or positive, as `memcmp`),
    /// through their contiguous UTF-8 storage: no per-byte iteration.
    static func compareBytes(_ lhs: String, _ rhs: String) -> Int {
        var lhs = lhs, rhs = rhs
        return lhs.withUTF8 { left in
            rhs.withUTF8 { right in
                let common = min(left.count, right.count)
                if common > 0, let a = left.baseAddress, let b = right.baseAddress {
                    let order = memcmp(a, b, common)
                    if order != 0 { return Int(order) }
                }
                return left.count - right.count
            }
        }
    }

    /// Feeds a string's UTF-8 bytes and their count to `hasher`.
    private static func combineBytes(of part: String, into hasher: inout Hasher) {
        var part = part
        part.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(part.utf8.count)
    }

    /// True when `candidate` is in `scope` and named `key` (nil for any), comparing bytes.
    static func matches(_ candidate: ScopedKey, scope: String?, key: String?) -> Bool {
        (scope.map { $0.utf8.elementsEqual(candidate.scope.utf8) } ?? true)
            && (key.map { $0.utf8.elementsEqual(candidate.key.utf8) } ?? true)
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
    /// Works on Unicode scalars, not characters: a key may start with a combining mark,
    /// which would join the separating `/` into one character (SPEC.md section 1).
    static func scopedKey(_ id: Value.ID) -> ScopedKey? {
        let scalars = id.rawValue.unicodeScalars
        let prefix = valuePrefix.unicodeScalars
        guard scalars.starts(with: prefix) else { return nil }
        let rest = scalars.dropFirst(prefix.count)
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        return ScopedKey(scope: unescape(String(rest[..<slash])), key: String(rest[rest.index(after: slash)...]))
    }

    /// The store identifier of an author's record.
    static func authorId(_ id: UUID) -> Value.ID {
        Value.ID(authorPrefix + id.uuidString)
    }

    /// `scope` with `%` and `/` percent-escaped, scalar by scalar.
    private static func escape(_ scope: String) -> String {
        guard scope.unicodeScalars.contains(where: { $0 == "%" || $0 == "/" }) else { return scope }
        var escaped = String.UnicodeScalarView()
        for scalar in scope.unicodeScalars {
            switch scalar {
            case "%": escaped.append(contentsOf: "%25".unicodeScalars)
            case "/": escaped.append(contentsOf: "%2F".unicodeScalars)
            default: escaped.append(scalar)
            }
        }
        return String(escaped)
    }

    /// The scope `escape` made `escaped` from.
    private static func unescape(_ escaped: String) -> String {
        let scalars = Array(escaped.unicodeScalars)
        guard scalars.contains("%") else { return escaped }
        var scope = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            if scalars[index] == "%", index + 2 < scalars.count {
                let code = String(String.UnicodeScalarView(scalars[(index + 1)...(index + 2)]))
                if code == "25" || code == "2F" {
                    scope.append(code == "25" ? "%" : "/")
                    index += 3
                    continue
                }
            }
            scope.append(scalars[index])
            index += 1
        }
        return String(scope)
    }
}
