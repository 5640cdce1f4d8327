import LLVSCore

/// The texts of local writes not yet in the full-text index, and the store versions they
/// lead from and to.
///
/// Each FTS5 transaction writes a new index segment, which later merges rewrite: committing
/// the index once per `writeText` cost more than the store version itself. So a write
/// queues its keys' texts here, and the queue goes to the index in one transaction when a
/// search needs it, when it reaches ``keyLimit`` keys or ``byteLimit`` bytes of text, and
/// before anything else moves the index (a merge, a sync, erasing the history, closing).
/// A key written twice keeps its last texts only.
///
/// The queue is memory only: if the process ends first, the index (which records the store
/// version it reflects) is behind, and the next open catches it up from the store's
/// differences, as after a crash between a store write and its index update.
struct PendingIndexUpdate: Sendable {
    /// The most keys the queue holds before it is written.
    static let keyLimit = 1_000
    /// The most UTF-8 bytes of text the queue holds before it is written.
    static let byteLimit = 1 << 20

    /// Each queued key's texts after the last queued write (empty: the key has no text).
    private var texts: [ScopedKey: [String]] = [:]
    /// The UTF-8 bytes of ``texts`` (counting replaced texts too: a bound, not a measure).
    private var byteCount = 0
    /// The version the index is at (the one before the first queued write).
    private var base: Version.ID?
    /// The version after the last queued write.
    private var head: Version.ID?

    /// True when nothing is queued.
    var isEmpty: Bool { head == nil }

    /// True when the queue has reached one of its limits.
    var isFull: Bool { texts.count >= Self.keyLimit || byteCount >= Self.byteLimit }

    /// Queues the texts a write from `previous` to `next` gave its keys.
    mutating func add(_ entries: [(ScopedKey, [String])], from previous: Version.ID?, to next: Version.ID) {
        if head == nil { base = previous }
        head = next
        for (key, keyTexts) in entries {
            texts[key] = keyTexts
            byteCount += keyTexts.reduce(key.scope.utf8.count + key.key.utf8.count) { $0 + $1.utf8.count }
        }
    }

    /// Empties the queue, returning its entries (sorted by key) with the version the index
    /// must be at and the one they bring it to; nil when nothing is queued.
    mutating func take() -> (entries: [(ScopedKey, [String])], from: Version.ID?, to: Version.ID)? {
        guard let next = head else { return nil }
        defer { self = PendingIndexUpdate() }
        return (texts.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, base, next)
    }
}
