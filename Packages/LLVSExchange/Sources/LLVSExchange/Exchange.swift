import Foundation
import LLVSCore
import LLVSStore
import LLVSSupport

/// A version with the changes it made, as an exchange ships it: the receiver adds it with
/// `Store.addVersion(_:storing:)`.
public typealias VersionChanges = (version: Version, valueChanges: [Value.Change])

/// Moves versions between a store and somewhere else — a shared directory, a server, a
/// peer: the equivalent of `git push` and `git pull`.
///
/// A conforming type implements the *parts* below, each a single round trip to the other
/// side; the shared sync algorithm (``retrieve(progress:)`` and ``send(upTo:progress:)``,
/// in `Exchange+Retrieving.swift` and `Exchange+Sending.swift`) composes them:
/// it finds what each side lacks — from a cursor and the remembered heads of the other
/// side when the exchange supports cursors, so it need not list every version each time —,
/// moves versions in batches bounded by bytes, adds a version only after its
/// predecessors whatever order they arrive in, and leaves both sides valid when
/// interrupted, so the next exchange completes the transfer.
///
/// Every part has an `async throws` form (the requirement) and a completion-handler form
/// (`Exchange+CompletionHandlers.swift`).
public protocol Exchange: AnyObject, Sendable {
    /// The local store versions are retrieved into and sent from.
    var store: Store { get }

    /// What the exchange remembers between runs (a cursor into the other side and the heads
    /// known to be there), so the next exchange only looks at what is new. Nil for a fresh
    /// exchange. Persist it (the `StoreCoordinator` does) to keep incremental syncs cheap
    /// across launches; a lost or foreign state only costs a full listing.
    var restorationState: Data? { get set }

    /// Changes ``restorationState`` in one step: reads it, lets `body` change it and writes
    /// it back, with no other change in between, so a send and a retrieve running at once
    /// on this exchange both keep what they record. The sync algorithm records its progress
    /// only through this. An exchange gets it by keeping its state in an
    /// ``ExchangeRestorationState`` (``RestorationStateKeeping``); the default reads and
    /// writes the property, which is not one step.
    ///
    /// - Throws: What `body` throws; then the state is unchanged.
    func updateRestorationState<Failure: Error>(_ body: (inout Data?) throws(Failure) -> Void) throws(Failure)

    /// The most bytes of value data one batch of ``retrieveValueChanges(forVersionsIdentifiedBy:)``
    /// or ``send(versionChanges:)`` should carry (at least one version goes in a batch).
    var maximumBatchByteCount: Int { get }

    /// The most bytes of value data ``send(upTo:progress:)`` reads from the store and hands
    /// to ``send(versionChanges:)`` at once (it is never more than ``maximumBatchByteCount``).
    /// A send reads each batch while the one before it is sent, so an exchange that works on
    /// a batch before it leaves (an encrypted exchange seals it) asks for smaller batches, and
    /// that work overlaps the reading. By default, ``maximumBatchByteCount``.
    var sendBatchByteCount: Int { get }

    /// The most bytes of value data the first batch of ``send(upTo:progress:)`` carries;
    /// each next batch may carry twice the one before, up to ``sendBatchByteCount``, and the
    /// last batches shrink back to it, each carrying at most half as much again as the one
    /// after it and the last at most this many (a short send takes from both ends by turns,
    /// so its first and last batches are small too). A send
    /// prepares a batch only once it is read, so an exchange that works on its batches (an
    /// encrypted exchange seals them) starts with a small one and its work begins at once,
    /// and ends with a small one, so little work is left once everything is read.
    /// By default, ``sendBatchByteCount`` (every batch alike).
    var firstSendBatchByteCount: Int { get }

    /// The most bytes of value data the first batch of ``retrieve(progress:)`` carries; each
    /// next batch may carry twice the one before, up to ``maximumBatchByteCount``. A retrieve
    /// fetches a batch's changes while it adds the batch before, so an exchange that works on
    /// the changes it hands out (an encrypted exchange decodes them from the blobs it opened)
    /// starts with a small batch: the store starts adding after little of that work, and the
    /// rest is done while it adds. By default, ``maximumBatchByteCount`` (every batch alike).
    var firstRetrieveBatchByteCount: Int { get }

    /// The bytes each version counts for in ``send(upTo:progress:)``'s batches beside its
    /// value data: what preparing a version costs beside its data (its record, its framing),
    /// so that a batch of many small versions is not more work than the batch before. By
    /// default 0. Batches never carry more value data than ``sendBatchByteCount`` either way.
    var sendBatchBytesPerVersion: Int { get }

    /// Whether each batch this exchange sends has a fixed cost beside its data (a directory:
    /// a batch file, a log record and their syncs; a WebDAV folder: a dozen requests and
    /// more): ``send(upTo:progress:)`` then joins the parts it prepares into batches as large
    /// as ``maximumBatchByteCount``, and an exchange wrapping it (an encrypted exchange) says
    /// so too. False by default.
    var prefersFewBatches: Bool { get }

    /// Whether ``retrieve(progress:)`` checks, before adding it, that each version presenting
    /// itself as a merge the store made carries the identifier its record derives (SPEC.md,
    /// "Merge identity"; `Store.addVersions(_:checkingMergeIdentifiers:)`). False by default:
    /// a version added by hand that looks exactly like a store's merge (an identifier of
    /// that form and its later predecessor's timestamp) but is not one would be refused. An
    /// encrypted exchange checks: a store's devices name merges by their content, and
    /// nothing else vouches for a sealed record.
    var checksMergeIdentifiers: Bool { get }

    /// A new stream that yields whenever the other side has versions this store lacks (or
    /// may have: a yield is a hint to call ``retrieve(progress:)``). It ends when the
    /// exchange is released or the consumer stops iterating.
    var newVersionsAvailable: AsyncStream<Void> { get }

    /// Sets the other side up for retrieving (connects, creates a directory, ...).
    ///
    /// - Throws: An ``ExchangeError`` or the transport's error.
    func prepareToRetrieve() async throws

    /// The identifiers of every version on the other side.
    ///
    /// - Throws: An ``ExchangeError`` or the transport's error.
    func retrieveAllVersionIdentifiers() async throws -> [Version.ID]

    /// The identifiers of the versions added to the other side after `cursor` (every
    /// version for a nil cursor), and the cursor to continue from. The default lists every
    /// version each time; an exchange that can do better overrides it.
    ///
    /// - Throws: An ``ExchangeError`` or the transport's error.
    func retrieveVersionIdentifiers(after cursor: ExchangeCursor?) async throws -> VersionIdentifierPage

    /// Lists what ``retrieveVersionIdentifiers(after:)`` lists, handing the identifiers to
    /// `body` in parts as they become known, the next part only once `body` has returned
    /// from the one before, and returns the whole page. ``retrieve(progress:)`` lists this
    /// way and adds each part's versions in `body`. An exchange that must work on what it
    /// lists before it can name the versions (an encrypted exchange opens each blob) hands
    /// over each part once it is named and names the next one meanwhile, so that work
    /// overlaps the adding. By default, one part: the whole page.
    ///
    /// - Throws: What ``retrieveVersionIdentifiers(after:)`` throws, after the parts before
    ///   the failing one were handed over; what `body` throws, at once.
    func retrieveVersionIdentifiers(after cursor: ExchangeCursor?,
                                    inParts body: ([Version.ID]) async throws -> Void) async throws -> VersionIdentifierPage

    /// The versions with these identifiers (in any order).
    ///
    /// - Throws: ``ExchangeError/missingVersion(_:)`` or a malformed-data error naming what
    ///   was wrong, or the transport's error.
    func retrieveVersions(identifiedBy versionIds: [Version.ID]) async throws -> [Version]

    /// The changes each of these versions made.
    ///
    /// - Throws: ``ExchangeError/missingValueChanges(_:)`` or a malformed-data error, or
    ///   the transport's error.
    func retrieveValueChanges(forVersionsIdentifiedBy versionIds: [Version.ID]) async throws -> [Version.ID: [Value.Change]]

    /// Sets the other side up for sending.
    ///
    /// - Throws: An ``ExchangeError`` or the transport's error.
    func prepareToSend() async throws

    /// Stores versions with their changes on the other side. Each version's predecessors
    /// are on the other side already or earlier in `versionChanges`. A version becomes
    /// visible there only once it and its changes are completely stored.
    ///
    /// - Throws: An ``ExchangeError`` or the transport's error.
    func send(versionChanges: [VersionChanges]) async throws

    /// Works on a batch ``send(upTo:progress:)`` has read, before it is sent. A send calls
    /// this on each batch as soon as it is read, while the batch before it is being sent,
    /// so the work overlaps the sending (an encrypted exchange seals the batch here, and
    /// seals the next one while a transport writes this one). By default, nothing.
    ///
    /// - Throws: What the work throws; nothing of the batch is sent then.
    func prepare(forSending versionChanges: [VersionChanges]) throws -> PreparedBatch

    /// Sends a batch ``prepare(forSending:)`` made, or several it made joined (for an exchange
    /// that ``prefersFewBatches``: ``PreparedBatch/joinedWork``), as ``send(versionChanges:)`` sends
    /// its versions (which it does by default).
    ///
    /// - Throws: What ``send(versionChanges:)`` throws.
    func send(prepared batch: PreparedBatch) async throws
}

/// A batch read for sending, with what ``Exchange/prepare(forSending:)`` made of it: in one
/// part, or in several joined (an exchange that ``Exchange/prefersFewBatches`` gets the parts
/// it prepared joined into one batch).
public struct PreparedBatch: Sendable {
    /// The versions with their changes, as read from the store (every part's, in order).
    public let versionChanges: [VersionChanges]
    /// What the exchange made of them for its ``Exchange/send(prepared:)`` (nil by default,
    /// and for joined parts: see ``joinedWork``).
    public let work: (any Sendable)?
    /// The ``work`` of each batch this one joins (``init(joining:)``), in order; empty for a
    /// batch prepared in one part.
    public let joinedWork: [(any Sendable)?]

    /// A batch of `versionChanges` with `work` done on it.
    public init(versionChanges: [VersionChanges], work: (any Sendable)? = nil) {
        self.versionChanges = versionChanges
        self.work = work
        self.joinedWork = []
    }

    /// One batch of `parts`' versions, in order, keeping each part's work.
    public init(joining parts: [PreparedBatch]) {
        self.versionChanges = parts.flatMap(\.versionChanges)
        self.work = nil
        self.joinedWork = parts.flatMap { $0.joinedWork.isEmpty ? [$0.work] : $0.joinedWork }
    }

    /// The ``work`` of this batch, or of each part it joins (``joinedWork``), in order, as
    /// `Work`: what an exchange's ``Exchange/send(prepared:)`` looks for. Nil when any of them
    /// is something else, or nothing (a part prepared by another exchange, say).
    ///
    /// - Complexity: O(number of parts).
    public func workOfEachPart<Work>(as type: Work.Type) -> [Work]? {
        let works = joinedWork.isEmpty ? [work] : joinedWork
        let typed = works.compactMap { $0 as? Work }
        return typed.count == works.count ? typed : nil
    }
}

extension Exchange {
    /// 5 MB per batch.
    public var maximumBatchByteCount: Int { 5_000_000 }

    /// ``maximumBatchByteCount``.
    public var sendBatchByteCount: Int { maximumBatchByteCount }

    /// ``sendBatchByteCount``: batches alike.
    public var firstSendBatchByteCount: Int { sendBatchByteCount }

    /// ``maximumBatchByteCount``: batches alike.
    public var firstRetrieveBatchByteCount: Int { maximumBatchByteCount }

    /// 0: a version counts for its value data only.
    public var sendBatchBytesPerVersion: Int { 0 }

    /// False: a batch costs little.
    public var prefersFewBatches: Bool { false }

    /// The batch as it is, with no work done.
    public func prepare(forSending versionChanges: [VersionChanges]) throws -> PreparedBatch {
        PreparedBatch(versionChanges: versionChanges)
    }

    /// ``send(versionChanges:)`` of the batch's versions.
    public func send(prepared batch: PreparedBatch) async throws {
        try await send(versionChanges: batch.versionChanges)
    }

    /// Not checked.
    public var checksMergeIdentifiers: Bool { false }

    /// Nothing to prepare.
    public func prepareToRetrieve() async throws {}

    /// Nothing to prepare.
    public func prepareToSend() async throws {}

    /// Reads ``restorationState``, lets `body` change it and writes it back: not one step,
    /// so an exchange that may run a send and a retrieve at once keeps its state in an
    /// ``ExchangeRestorationState`` instead (``RestorationStateKeeping``).
    ///
    /// - Throws: What `body` throws; then the state is unchanged.
    public func updateRestorationState<Failure: Error>(_ body: (inout Data?) throws(Failure) -> Void) throws(Failure) {
        var state = restorationState
        try body(&state)
        restorationState = state
    }

    /// Lists every version (the fallback for exchanges without cursors).
    ///
    /// - Throws: What ``retrieveAllVersionIdentifiers()`` throws.
    public func retrieveVersionIdentifiers(after cursor: ExchangeCursor?) async throws -> VersionIdentifierPage {
        VersionIdentifierPage(versionIds: try await retrieveAllVersionIdentifiers(), cursor: nil, isCompleteListing: true)
    }

    /// One part: the page ``retrieveVersionIdentifiers(after:)`` lists, handed to `body`
    /// whole.
    ///
    /// - Throws: What ``retrieveVersionIdentifiers(after:)`` and `body` throw.
    public func retrieveVersionIdentifiers(after cursor: ExchangeCursor?,
                                           inParts body: ([Version.ID]) async throws -> Void) async throws -> VersionIdentifierPage {
        let page = try await retrieveVersionIdentifiers(after: cursor)
        try await body(page.versionIds)
        return page
    }
}

/// A position in the other side's list of versions, opaque to everyone but the exchange
/// that made it.
public struct ExchangeCursor: Hashable, Codable, Sendable {
    /// The exchange's encoding of the position.
    public var rawValue: Data

    /// Wraps an exchange's encoding of a position.
    public init(rawValue: Data) {
        self.rawValue = rawValue
    }
}

/// Version identifiers listed by ``Exchange/retrieveVersionIdentifiers(after:)``.
public struct VersionIdentifierPage: Sendable {
    /// The identifiers listed (possibly with repeats, in any order).
    public var versionIds: [Version.ID]
    /// Where to continue next time; nil when the exchange has no cursors.
    public var cursor: ExchangeCursor?
    /// True when `versionIds` is everything on the other side (not only what came after the
    /// cursor), for example because the cursor was nil or no longer valid.
    public var isCompleteListing: Bool

    /// Creates a page.
    public init(versionIds: [Version.ID], cursor: ExchangeCursor?, isCompleteListing: Bool) {
        self.versionIds = versionIds
        self.cursor = cursor
        self.isCompleteListing = isCompleteListing
    }
}

/// The restoration state of an exchange under one lock: read, written, or changed in one
/// step (``update(_:)``). An exchange keeps one and conforms to ``RestorationStateKeeping``,
/// which gives it ``Exchange/restorationState`` and ``Exchange/updateRestorationState(_:)``.
public final class ExchangeRestorationState: Sendable {
    private let state: Locked<Data?>

    /// A state holding `data` (nil for a fresh exchange).
    public init(_ data: Data? = nil) {
        state = Locked(data)
    }

    /// The state now.
    public var data: Data? {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }

    /// Changes the state in one step: no other read or change happens between the read
    /// `body` sees and its write.
    ///
    /// - Throws: What `body` throws; then the state is unchanged.
    public func update<Failure: Error>(_ body: (inout Data?) throws(Failure) -> Void) throws(Failure) {
        try state.withLock { (data) throws(Failure) in
            var changed = data
            try body(&changed)
            data = changed
        }
    }
}

/// An exchange that keeps its restoration state in an ``ExchangeRestorationState``, from
/// which it gets ``Exchange/restorationState`` and a one-step
/// ``Exchange/updateRestorationState(_:)``: what every exchange of this package and of
/// LLVSHTTP does, and what yours should do.
///
/// ```swift
/// final class MyExchange: RestorationStateKeeping {
///     let restoration = ExchangeRestorationState()
///     // store, newVersionsAvailable and the parts
/// }
/// ```
public protocol RestorationStateKeeping: Exchange {
    /// Where the restoration state is kept.
    var restoration: ExchangeRestorationState { get }
}

extension RestorationStateKeeping {
    /// See ``Exchange/restorationState``.
    public var restorationState: Data? {
        get { restoration.data }
        set { restoration.data = newValue }
    }

    /// Changes the state under its lock (``ExchangeRestorationState/update(_:)``).
    ///
    /// - Throws: What `body` throws; then the state is unchanged.
    public func updateRestorationState<Failure: Error>(_ body: (inout Data?) throws(Failure) -> Void) throws(Failure) {
        try restoration.update(body)
    }
}
