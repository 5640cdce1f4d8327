import Foundation
import LLVSCore
import LLVSMerge
import LLVSSQLite
import LLVSStore
import LLVSSupport
import LLVSZones

/// A key-value database whose copies merge without losing anything: the KeyValueCRDT
/// system, built on a versioned LLVS store.
///
/// Values are text, JSON or blobs under keys grouped in scopes. Every write makes a store
/// version. `merge(source:)` brings in another database's versions; a key written
/// concurrently on both sides then reads as every concurrent value (a multi-value
/// register), each with its author and timestamp, until someone who has seen them writes
/// again. Deletes are tombstones that lose to concurrent writes.
///
/// ```swift
/// let database = try KeyValueDatabase(fileURL: url, authorDescription: "Brian's iPhone")
/// try database.writeText("Hello, world!", to: "key")
/// let text = try database.read(key: "key").text
/// ```
///
/// A database at a file URL is a directory holding an SQLite store
/// (`llvs-store.sqlite`) and its full-text index (`search-index.sqlite`); a nil URL makes an
/// in-memory database. Beyond KeyValueCRDT, the store keeps the full history of every key
/// (``history(key:scope:)``), and ``sync(with:)`` syncs through any LLVS exchange. The
/// database is safe to use from any thread; one process at a time should write to a
/// directory.
public final class KeyValueDatabase: Sendable {
    /// The versioned store underneath: its history is the database's history.
    /// ``eraseVersionHistory()`` replaces it with a new store holding one version.
    public var store: Store {
        storeBox.withLock { $0 }
    }

    let storeBox: Locked<Store>

    /// Who this instance writes as.
    public let author: Author

    /// The database's directory, or nil for an in-memory database.
    public let fileURL: URL?

    /// This instance's actor: it names the instance's writes in the registers, so two
    /// instances (even of one author) never mistake each other's writes.
    let actor: String

    let searchIndex: SearchIndex
    let arbiter = MultiValueRegisterArbiter()
    let state: Locked<State>
    let observers = Observers()

    struct State: Sendable {
        /// The version the database reads and writes at.
        var head: LLVSCore.Version.ID?
        /// Whether this instance has stored its author's record.
        var authorRecorded = false
        /// Set by ``KeyValueDatabase/close()``: no more writes.
        var closed = false
        /// Local writes not yet in the full-text index (see ``PendingIndexUpdate``).
        var pendingIndex = PendingIndexUpdate()
    }

    /// The file name of the full-text index inside the database directory.
    public static let searchIndexFileName = "search-index.sqlite"

    /// The metadata key under which each version records the id of the author who made it.
    public static let authorMetadataKey: LLVSCore.Version.MetadataKey = "kvdb.author"

    /// Opens (or creates) the database at `fileURL` — nil for an in-memory database — and
    /// writes as `author`.
    ///
    /// - Throws: A `StoreError` when the store cannot be opened, or a
    ///   ``KeyValueDatabaseError`` when its index cannot.
    public convenience init(fileURL: URL?, author: Author) throws {
        try self.init(fileURL: fileURL, resolveAuthor: { _, _ in author })
    }

    /// Opens (or creates) the database at `fileURL`, writing as the author of this
    /// description: the one recorded in the database under it, or a new one.
    ///
    /// - Throws: See ``init(fileURL:author:)``.
    public convenience init(fileURL: URL?, authorDescription: String) throws {
        try self.init(fileURL: fileURL, resolveAuthor: { store, head in
            try Self.authors(in: store, at: head).first { $0.name == authorDescription } ?? Author(id: UUID(), name: authorDescription)
        })
    }

    /// Opens the database and checks its application identifier with `upgrader` (the four
    /// rules of ``ApplicationDataUpgrader``), upgrading older data.
    ///
    /// - Throws: ``KeyValueDatabaseError/applicationIdentifierMismatch(expected:found:)``,
    ///   ``KeyValueDatabaseError/applicationDataTooNew(expected:found:)``, what the upgrader
    ///   throws, or the errors of ``init(fileURL:author:)``.
    public convenience init(fileURL: URL?, authorDescription: String, upgrader: some ApplicationDataUpgrader) throws {
        try self.init(fileURL: fileURL, authorDescription: authorDescription)
        try applyUpgrader(upgrader)
    }

    /// Opens the database as `author` and checks it with `upgrader`.
    ///
    /// - Throws: See ``init(fileURL:authorDescription:upgrader:)``.
    public convenience init(fileURL: URL?, author: Author, upgrader: some ApplicationDataUpgrader) throws {
        try self.init(fileURL: fileURL, author: author)
        try applyUpgrader(upgrader)
    }

    private init(fileURL: URL?, resolveAuthor: (Store, LLVSCore.Version.ID?) throws -> Author) throws {
        self.fileURL = fileURL
        let store: Store
        if let fileURL {
            try FileManager.default.createDirectory(at: fileURL, withIntermediateDirectories: true)
            store = try Self.openStore(in: fileURL)
            searchIndex = try SearchIndex(fileURL: fileURL.appendingPathComponent(Self.searchIndexFileName))
        } else {
            store = try Self.makeMemoryStore()
            searchIndex = try SearchIndex(fileURL: nil)
        }
        storeBox = Locked(store)
        let head = try Self.mergingHeads(of: store, into: nil, arbiter: arbiter)
        author = try resolveAuthor(store, head)
        actor = UUID().uuidString
        state = Locked(State(head: head))
        try catchUpSearchIndex()
    }

    /// How many bytes of heap the caches of a database's store may hold (its
    /// `Store.cacheByteLimit`): 8 MiB, a quarter of a plain store's default. A database
    /// reads each key's register once per read and keeps no decoded copies of its own, so
    /// the W10 workload reads as fast with 8 MiB as with 32 MiB (79,000 against 82,000
    /// random reads a second) and its process, with four databases open, peaks 11 MB lower.
    public static let storeCacheByteLimit = 8 << 20

    /// A new, empty in-memory store.
    static func makeMemoryStore() throws -> Store {
        try Store(rootDirectoryURL: URL(fileURLWithPath: "/memory/\(UUID().uuidString)"), storage: MemoryStorage(),
                  cacheByteLimit: storeCacheByteLimit)
    }

    /// Opens (creating if needed) the SQLite store in `directory`.
    static func openStore(in directory: URL) throws -> Store {
        try Store(rootDirectoryURL: directory, storage: SQLiteStorage(), cacheByteLimit: storeCacheByteLimit)
    }

    /// The store version the database currently reads and writes at (nil before the first
    /// write).
    public var currentVersionId: LLVSCore.Version.ID? {
        state.withLock { $0.head }
    }
}
