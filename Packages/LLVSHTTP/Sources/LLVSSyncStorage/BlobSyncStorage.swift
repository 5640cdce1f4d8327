import Crypto
import Foundation
import LLVSSyncProtocol

/// A storage that also keeps blind stores (SPEC.md, "Blind stores"): per store, ordered
/// opaque blobs under client-chosen names, numbered by a sequence that grows by one per
/// blob in commit order (so cursors and long polls work as for versions), and the SHA-256
/// of the one write token that writes need. Nothing else about the blobs is known.
///
/// Blind stores are a namespace apart from the stores of ``SyncStorage``.
public protocol BlobSyncStorage: SyncStorage {
    /// The blobs stored after `cursor` (from the beginning when the cursor is nil or belongs
    /// to another incarnation of the store), at most `limit`.
    ///
    /// - Throws: ``SyncStorageError/unavailable(_:)``.
    func listBlobs(in store: SyncStoreName, after cursor: SyncCursor?, limit: Int) async throws -> BlobListingPage

    /// The cursor after the blind store's last blob.
    ///
    /// - Throws: ``SyncStorageError/unavailable(_:)``.
    func latestBlobCursor(in store: SyncStoreName) async throws -> SyncCursor

    /// The latest blob cursor of each of `stores`, read at once where the storage can.
    ///
    /// - Throws: ``SyncStorageError/unavailable(_:)``.
    func latestBlobCursors(in stores: [SyncStoreName]) async throws -> [SyncStoreName: SyncCursor]

    /// The blobs found among `names`, in any order.
    ///
    /// - Throws: ``SyncStorageError/unavailable(_:)``.
    func blobs(in store: SyncStoreName, named names: [String]) async throws -> [(name: String, data: Data)]

    /// Stores the blobs atomically (names already stored are left as they are), after
    /// checking `writeTokenHash` by ``BlobWriteGuard``.
    ///
    /// - Throws: ``SyncStorageError/writeTokenRejected(_:)`` (nothing is stored then),
    ///   ``SyncStorageError/unavailable(_:)``.
    func putBlobs(_ blobs: [(name: String, data: Data)], in store: SyncStoreName, writeTokenHash: Data?) async throws -> BlobPutOutcome

    /// Replaces the hash of the write token the store's writes need, when `currentTokenHash`
    /// is the stored one (or none is stored yet).
    ///
    /// - Throws: ``SyncStorageError/writeTokenRejected(_:)``, ``SyncStorageError/unavailable(_:)``.
    func replaceWriteTokenHash(in store: SyncStoreName, currentTokenHash: Data, with newHash: Data) async throws
}

/// One page of a blind store's blobs.
public struct BlobListingPage: Sendable, Hashable {
    /// The blobs' names and sizes, in storage order.
    public var entries: [BlobListing.Entry]
    /// The cursor after the last blob (or the one passed in, when none).
    public var cursor: SyncCursor
    /// True when the page starts at the beginning of the list.
    public var isCompleteListing: Bool
    /// True when more blobs follow the page.
    public var hasMore: Bool

    /// Creates a page.
    public init(entries: [BlobListing.Entry], cursor: SyncCursor, isCompleteListing: Bool, hasMore: Bool) {
        self.entries = entries
        self.cursor = cursor
        self.isCompleteListing = isCompleteListing
        self.hasMore = hasMore
    }

    /// The page of `rows` read after sequence `start` (at most `limit + 1` rows: one more
    /// tells that more follow).
    public static func page(_ rows: [(sequence: Int64, entry: BlobListing.Entry)], identity: String, start: Int64, limit: Int) -> BlobListingPage {
        let shown = rows.prefix(limit)
        return BlobListingPage(entries: shown.map(\.entry), cursor: SyncCursor(storeIdentity: identity, sequence: shown.last?.sequence ?? start),
                               isCompleteListing: start == 0, hasMore: rows.count > limit)
    }
}

/// What a blob write stored.
public struct BlobPutOutcome: Sendable, Hashable {
    /// How many blobs were stored.
    public var addedCount: Int
    /// How many were stored already with the same bytes.
    public var alreadyPresentCount: Int
    /// Names stored already with other bytes (not replaced).
    public var differing: [String]
    /// The store's cursor after the write.
    public var cursor: SyncCursor

    /// Creates an outcome.
    public init(addedCount: Int, alreadyPresentCount: Int, differing: [String], cursor: SyncCursor) {
        self.addedCount = addedCount
        self.alreadyPresentCount = alreadyPresentCount
        self.differing = differing
        self.cursor = cursor
    }
}

/// The write-token rule of blind stores, the same for every storage.
///
/// A write holding a name outside `BlindAPI.unguardedNamePrefix` needs a token. The first
/// such write to a store sets the token hash; later ones must present the token whose hash
/// is stored. ``replacement(stored:current:new:)`` moves the store to a new token (a new key
/// epoch): from then on the old token writes nothing.
public enum BlobWriteGuard {
    /// The hash to store after the write (nil: unchanged).
    ///
    /// - Throws: ``SyncStorageError/writeTokenRejected(_:)``.
    public static func check(stored: Data?, given: Data?, names: [String]) throws -> Data? {
        guard names.contains(where: { !$0.hasPrefix(BlindAPI.unguardedNamePrefix) }) else { return nil }
        guard let given else {
            throw SyncStorageError.writeTokenRejected("this write needs the store's write token (header \(BlindAPI.writeTokenHeader))")
        }
        guard let stored else { return given }
        guard equal(stored, given) else {
            throw SyncStorageError.writeTokenRejected("the write token is not the one of the store's current key epoch")
        }
        return nil
    }

    /// The hash to store when a client holding the token hashed as `current` asks to move to
    /// `new`: `new`, when `current` is the stored hash or none is stored.
    ///
    /// - Throws: ``SyncStorageError/writeTokenRejected(_:)``.
    public static func replacement(stored: Data?, current: Data, new: Data) throws -> Data {
        if let stored, !equal(stored, current), !equal(stored, new) {
            throw SyncStorageError.writeTokenRejected("only the holder of the store's current write token can replace it")
        }
        return new
    }

    /// The hash of a write token, as stored.
    public static func hash(_ token: Data) -> Data { Data(SHA256.hash(data: token)) }

    /// Compares two hashes in time independent of where they differ.
    static func equal(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// Which blobs of a write are new, present with the same bytes, or present with others.
public struct BlobPutPlan: Sendable {
    /// The blobs to store, in the order given.
    public private(set) var toInsert: [(name: String, data: Data)] = []
    /// How many were stored already (or earlier in the write) with the same bytes.
    public private(set) var alreadyPresentCount = 0
    /// Names stored already (or earlier in the write) with other bytes.
    public private(set) var differing: [String] = []

    /// Plans `blobs` against the stored bytes of their names.
    public init(blobs: [(name: String, data: Data)], stored: [String: Data]) {
        var known = stored
        for blob in blobs {
            if let existing = known[blob.name] {
                if existing == blob.data { alreadyPresentCount += 1 } else { differing.append(blob.name) }
            } else {
                known[blob.name] = blob.data
                toInsert.append(blob)
            }
        }
    }
}

extension BlobSyncStorage {
    /// Reads each blind store's latest cursor in turn.
    ///
    /// - Throws: ``SyncStorageError/unavailable(_:)``.
    public func latestBlobCursors(in stores: [SyncStoreName]) async throws -> [SyncStoreName: SyncCursor] {
        var cursors: [SyncStoreName: SyncCursor] = [:]
        for store in stores { cursors[store] = try await latestBlobCursor(in: store) }
        return cursors
    }
}
