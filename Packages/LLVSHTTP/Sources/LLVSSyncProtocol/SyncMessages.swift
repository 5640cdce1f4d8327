import Foundation
import LLVSCore

/// `GET versions`: identifiers of versions in the order the server stored them.
public struct VersionListing: Codable, Hashable, Sendable {
    /// The identifiers, in storage order.
    public var versionIds: [Version.ID]
    /// The cursor after the last identifier listed; pass it as `after` to continue.
    public var cursor: String
    /// True when the listing started from the beginning (no cursor, or a foreign one).
    public var isCompleteListing: Bool
    /// True when more versions follow; ask again with ``cursor``.
    public var hasMore: Bool

    /// Creates a listing.
    public init(versionIds: [Version.ID], cursor: String, isCompleteListing: Bool, hasMore: Bool) {
        self.versionIds = versionIds
        self.cursor = cursor
        self.isCompleteListing = isCompleteListing
        self.hasMore = hasMore
    }
}

/// The body of `POST versions/fetch` and `POST changes/fetch`.
public struct VersionIdentifiersRequest: Codable, Hashable, Sendable {
    /// The versions asked for (at most ``SyncLimits/maximumIdentifiersPerRequest``).
    public var versionIds: [Version.ID]

    /// Creates a request.
    public init(versionIds: [Version.ID]) {
        self.versionIds = versionIds
    }
}

/// The answer to `POST versions/fetch`: the records the server has, in any order; an
/// identifier the server lacks is left out.
public struct VersionsResponse: Codable, Sendable {
    /// The version records (their `successors` empty).
    public var versions: [Version]

    /// Creates a response.
    public init(versions: [Version]) {
        self.versions = versions
    }
}

/// The changes one version made, as pushed and fetched.
public struct VersionChangesMessage: Codable, Sendable {
    /// The version (its `successors` empty).
    public var version: Version
    /// The changes it made.
    public var valueChanges: [Value.Change]

    /// Creates a message.
    public init(version: Version, valueChanges: [Value.Change]) {
        self.version = version
        self.valueChanges = valueChanges
    }
}

/// The changes of one version in the answer to `POST changes/fetch`.
public struct StoredValueChanges: Codable, Sendable {
    /// The version the changes belong to.
    public var versionId: Version.ID
    /// The changes it made.
    public var valueChanges: [Value.Change]

    /// Creates an entry.
    public init(versionId: Version.ID, valueChanges: [Value.Change]) {
        self.versionId = versionId
        self.valueChanges = valueChanges
    }
}

/// The answer to `POST changes/fetch`; a version the server lacks is left out.
public struct ValueChangesResponse: Codable, Sendable {
    /// One entry per version found.
    public var changes: [StoredValueChanges]

    /// Creates a response.
    public init(changes: [StoredValueChanges]) {
        self.changes = changes
    }
}

/// The body of `POST push`: versions with their changes, each after its predecessors or
/// with its predecessors already on the server. The server stores all of them or none.
public struct PushRequest: Codable, Sendable {
    /// The versions, predecessors first.
    public var versions: [VersionChangesMessage]

    /// Creates a request.
    public init(versions: [VersionChangesMessage]) {
        self.versions = versions
    }
}

/// The answer to a successful push.
public struct PushResponse: Codable, Hashable, Sendable {
    /// The versions stored by this push, in the order pushed.
    public var added: [Version.ID]
    /// How many pushed versions the server held already (a retried push repeats them).
    public var alreadyPresentCount: Int
    /// The store's cursor after the push.
    public var cursor: String

    /// Creates a response.
    public init(added: [Version.ID], alreadyPresentCount: Int, cursor: String) {
        self.added = added
        self.alreadyPresentCount = alreadyPresentCount
        self.cursor = cursor
    }
}

/// The answer to `GET events`.
public struct EventsResponse: Codable, Hashable, Sendable {
    /// True when versions were stored after the cursor asked about.
    public var newVersionsAvailable: Bool
    /// The store's latest cursor.
    public var cursor: String

    /// Creates a response.
    public init(newVersionsAvailable: Bool, cursor: String) {
        self.newVersionsAvailable = newVersionsAvailable
        self.cursor = cursor
    }
}

/// The answer to `GET /health`.
public struct HealthResponse: Codable, Hashable, Sendable {
    /// `ok` when the storage answered.
    public var status: String
    /// The storage kind: `sqlite`, `postgres` or `store`.
    public var storage: String

    /// Creates a response.
    public init(status: String, storage: String) {
        self.status = status
        self.storage = storage
    }
}
