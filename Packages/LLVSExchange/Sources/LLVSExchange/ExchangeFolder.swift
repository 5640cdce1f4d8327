import Foundation
import LLVSZones

/// Where a ``FolderExchange`` keeps its files: the few operations the directory formats
/// (SPEC.md section 11) need from storage, so that one implementation of the formats runs
/// over a local directory (``LocalExchangeFolder``), WebDAV (`WebDAVFolder` in LLVSHTTP),
/// or storage of your own.
///
/// Paths are relative to the folder's root, `/`-separated (`batches/ab/ab….batch`). Every
/// file appears atomically (readers see all of it or none) and is never replaced with other
/// content, except a log segment, which only its own writer replaces by a longer copy.
/// Errors are ``ExchangeError`` values naming the location (``location(of:)``).
public protocol ExchangeFolder: Sendable {
    /// Where `path` is, in words a person can find it by (a file path, a URL), for errors.
    func location(of path: String) -> String

    /// The bytes of the file at `path`, or nil when there is none.
    ///
    /// - Throws: ``ExchangeError/transport(operation:location:reason:)`` when it cannot be read.
    func read(_ path: String) async throws -> Data?

    /// The entries of the folder at `path`, empty when there is no such folder.
    ///
    /// - Throws: ``ExchangeError/transport(operation:location:reason:)`` when it cannot be listed.
    func list(_ path: String) async throws -> [ExchangeFolderEntry]

    /// Publishes `data` at `path` atomically unless a file is there already, creating the
    /// folders on the way.
    ///
    /// - Parameters:
    ///   - data: The file's bytes.
    ///   - path: The file's path, relative to the folder.
    ///   - durably: Whether the file must survive a crash once this returns; when
    ///     false, ``synchronize(_:)`` makes it so later.
    /// - Returns: False, with nothing written, when a file was there.
    /// - Throws: ``ExchangeError/transport(operation:location:reason:)``.
    func create(_ data: Data, at path: String, durably: Bool) async throws -> Bool

    /// Publishes `data` at `path` atomically and durably, replacing any file there.
    ///
    /// - Throws: ``ExchangeError/transport(operation:location:reason:)``.
    func replace(_ data: Data, at path: String) async throws

    /// Makes files created with `durably: false` (and their folders) survive a crash.
    ///
    /// - Throws: ``ExchangeError/transport(operation:location:reason:)``.
    func synchronize(_ paths: [String]) async throws

    /// Removes the file or folder (with what it holds) at `path`; an absent one is no error.
    ///
    /// - Throws: ``ExchangeError/transport(operation:location:reason:)``.
    func remove(_ path: String) async throws

    /// The version log in the folder at `path`: segments of records (SPEC.md, "Version
    /// log"), of which the returned log appends only to one of its own.
    func log(at path: String) -> any ExchangeFolderLog

    /// The folders where this storage keeps temporary files (`.tmp-*`), when they are in
    /// fixed places, so that removing stale ones lists only these; nil (the default) when
    /// they are beside the files they become, in any folder.
    var temporaryFileFolders: [String]? { get }

    /// Whether each file written costs a round trip to another machine (a WebDAV server).
    /// False by default. An exchange over any folder prefers few batches
    /// (``Exchange/prefersFewBatches``): each costs a file, a log record and their syncs.
    var isRemote: Bool { get }
}

extension ExchangeFolder {
    /// Nil: temporary files are beside the files they become.
    public var temporaryFileFolders: [String]? { nil }

    /// False: a local folder.
    public var isRemote: Bool { false }
}

/// One entry of an ``ExchangeFolder`` listing.
public struct ExchangeFolderEntry: Sendable, Hashable {
    /// The entry's name in its folder.
    public var name: String
    /// Whether it is a folder.
    public var isFolder: Bool
    /// Its size in bytes (0 for a folder, or where the storage does not say).
    public var byteCount: Int
    /// When it was last changed, where the storage says.
    public var modified: Date?

    /// An entry named `name`.
    public init(name: String, isFolder: Bool, byteCount: Int = 0, modified: Date? = nil) {
        self.name = name
        self.isFolder = isFolder
        self.byteCount = byteCount
        self.modified = modified
    }
}

/// A version log kept in an ``ExchangeFolder``: the exchange's log of what is complete.
public protocol ExchangeFolderLog: Sendable {
    /// Appends records to this log's own segment, durably.
    ///
    /// - Throws: ``ExchangeError/transport(operation:location:reason:)``.
    func append(_ records: [Data]) async throws

    /// The records every writer appended after `cursor`, and the cursor after them.
    ///
    /// - Throws: ``ExchangeError/malformedData(location:reason:)`` for a damaged segment,
    ///   ``ExchangeError/transport(operation:location:reason:)`` when one cannot be read.
    func records(after cursor: VersionLogCursor) async throws -> (records: [Data], cursor: VersionLogCursor)

    /// A short token that changes when the log gains records, read more cheaply than the
    /// records (one small request where the storage is remote), so that an idle poll costs
    /// little; nil (the default) when the log has no such token, and polls read the records.
    ///
    /// A token is a hint: a poll that sees the same token may skip reading the records, so
    /// ``FolderExchange/newVersionsAvailable`` still reads them now and then, for writers
    /// that do not keep the token (a stopped sender, a peer writing the folder as a synced
    /// directory).
    ///
    /// - Parameter previous: The token the caller holds (it may be sent as `If-None-Match`).
    /// - Throws: ``ExchangeError/transport(operation:location:reason:)``.
    func changeToken(ifDifferentFrom previous: String?) async throws -> String?
}

extension ExchangeFolderLog {
    /// Nil: the log keeps no change token.
    public func changeToken(ifDifferentFrom previous: String?) async throws -> String? { nil }
}
