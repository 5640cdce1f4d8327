import Foundation

/// Picks one value out of the concurrent versions of a key: the application's rule for
/// showing a single value while a conflict stands.
///
/// ```swift
/// let text = try database.read(key: "title").resolved(with: .lastWriterWins)?.text
/// ```
public protocol Resolver {
    /// The winning value among `versions`, or nil (for example when there are none).
    func resolveVersions(_ versions: [KeyValueDatabase.Version]) -> KeyValueDatabase.Value?
}

/// Picks the most recent version; of equal timestamps, the greater author id, so every
/// replica picks the same one.
public struct LastWriterWinsResolver: Resolver, Sendable {
    /// Creates the resolver.
    public init() {}

    /// The value of the latest version (`.null` when that is a delete), or nil when there
    /// are none.
    public func resolveVersions(_ versions: [KeyValueDatabase.Version]) -> KeyValueDatabase.Value? {
        versions.max { a, b in
            a.timestamp != b.timestamp ? a.timestamp < b.timestamp : a.authorID.uuidString < b.authorID.uuidString
        }?.value
    }
}

extension Resolver where Self == LastWriterWinsResolver {
    /// The last-writer-wins resolver: `resolved(with: .lastWriterWins)`.
    public static var lastWriterWins: LastWriterWinsResolver { LastWriterWinsResolver() }
}
