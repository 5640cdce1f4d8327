import LLVSCore
import LLVSSyncProtocol

/// How every storage turns cursors into listing pages, so they agree exactly.
public enum SyncListing {
    /// The identity reported for a store nothing was ever pushed to.
    public static let emptyStoreIdentity = "empty"

    /// The cursor of a store nothing was ever pushed to.
    public static var emptyStoreCursor: SyncCursor { SyncCursor(storeIdentity: emptyStoreIdentity, sequence: 0) }

    /// The page of a store nothing was ever pushed to.
    public static func emptyStorePage(after cursor: SyncCursor?) -> SyncListingPage {
        SyncListingPage(versionIds: [], cursor: emptyStoreCursor, isCompleteListing: true, hasMore: false)
    }

    /// The sequence to list after: the cursor's, when it belongs to this incarnation of the
    /// store and does not point past its end; otherwise 0 (a complete listing).
    public static func startSequence(_ cursor: SyncCursor?, identity: String, lastSequence: Int64) -> Int64 {
        guard let cursor, cursor.storeIdentity == identity, cursor.sequence <= lastSequence else { return 0 }
        return cursor.sequence
    }

    /// A page from up to `limit + 1` rows after `start` (the extra row only tells that more follow).
    public static func page(_ rows: [(sequence: Int64, id: Version.ID)], identity: String, start: Int64, limit: Int) -> SyncListingPage {
        let shown = rows.prefix(limit)
        return SyncListingPage(versionIds: shown.map(\.id), cursor: SyncCursor(storeIdentity: identity, sequence: shown.last?.sequence ?? start),
                               isCompleteListing: start == 0, hasMore: rows.count > limit)
    }
}
