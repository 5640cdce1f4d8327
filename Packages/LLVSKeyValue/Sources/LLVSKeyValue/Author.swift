import Foundation

/// Who writes to a database: every value read back carries its author's id.
///
/// Give each device or user its own author. Several databases may share one author: a
/// database tells its concurrent writes apart by a per-instance actor, not by the author.
public struct Author: Hashable, Codable, Sendable {
    /// The author's stable identifier.
    public var id: UUID
    /// A description for people, such as "Brian's iPhone".
    public var name: String

    /// Creates an author.
    public init(id: UUID, name: String) {
        self.id = id
        self.name = name
    }
}
