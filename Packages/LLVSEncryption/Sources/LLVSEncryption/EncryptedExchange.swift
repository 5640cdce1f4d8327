import Foundation
import LLVSCore
import LLVSExchange
import LLVSStore
import LLVSSupport

/// An exchange that seals every version before it leaves the store and opens it on the way
/// in, through any other exchange (a shared directory, the sync server, memory) or a blind
/// sync server store: the other side holds one blob per version and learns only how many
/// there are, their padded sizes and when they arrived (SPEC.md, "Encrypted exchanges").
///
/// ```swift
/// let keys = EncryptionKeys(storeKey: storeKey)
/// let exchange = EncryptedExchange(
///     sealing: FileSystemExchange(rootDirectoryURL: sharedURL, store: store), keys: keys)
/// try await exchange.send()
/// try await exchange.retrieve()
/// ```
///
/// On the other side, version `v` is a blob named by the lower-case hex of
/// HMAC-SHA256(name key, `v`'s identifier), kept by a ``SealedBlobTransport``: through an
/// exchange, a ``CarrierBlobTransport`` (hand that exchange to nothing else); through a
/// blind server store, its blobs as they are, with writes guarded by the current epoch's
/// write token (``EncryptionKeys/writeToken(ofEpoch:)``).
///
/// What is checked on the way in: the blob opens under the key of the epoch its header names,
/// with the store and the name bound in (so a flipped bit, a cut, a blob moved to another
/// name or replayed from another store are refused with ``EncryptionError/tampered(name:reason:)``
/// and nothing of its group is added: a retrieve adds the blobs it opens group by group, see
/// ``retrieveVersionIdentifiers(after:inParts:)``); it holds one version, and that version's
/// name is the blob's. A blob sealed under an epoch whose key has not arrived is **pending**: left
/// out of the retrieve, listed again by the next one, and added once
/// ``updateKeys(_:)`` brings its key; it never fails a sync (``pendingVersionCount``).
public final class EncryptedExchange: RestorationStateKeeping {
    /// The value identifier of a carrier's one value, the blob.
    public static let sealedValueId = Value.ID("sealed")

    /// Where the blobs are kept.
    public let transport: any SealedBlobTransport
    /// The store versions are retrieved into and sent from.
    public let store: Store
    /// The cursor into the other side's list of blobs and the heads known to be there.
    public let restoration = ExchangeRestorationState()
    /// The transport's batch limit: a blob is a version's data and a few bytes more.
    public var maximumBatchByteCount: Int { transport.maximumBatchByteCount }

    /// At most ``sealingBatchByteCount``: a send seals one part while the next is read. A
    /// transport that prefers few batches (a directory, where each costs a file, a log record
    /// and their syncs; a WebDAV folder, a dozen requests and more) gets the parts sealed
    /// joined into batches as large as it takes.
    public var sendBatchByteCount: Int { min(transport.maximumBatchByteCount, Self.sealingBatchByteCount) }

    /// A send's first part: at most ``firstSealingBatchByteCount``, so sealing starts after
    /// little reading; the parts after it double up to ``sendBatchByteCount``.
    public var firstSendBatchByteCount: Int { min(sendBatchByteCount, Self.firstSealingBatchByteCount) }

    /// ``maximumBatchByteCount``: a retrieve's batches come with their changes made already
    /// (``retrieveVersionIdentifiers(after:inParts:)`` makes them while the group before is
    /// added), and the first group it hands over is small.
    public var firstRetrieveBatchByteCount: Int { maximumBatchByteCount }

    /// The most bytes of value data a send's first batch (or part) seals (64 KiB): while it
    /// is read, nothing is sealed yet.
    public static let firstSealingBatchByteCount = 65_536

    /// 0: a version counts its value data alone in a send's batches. Counting each 2 KiB
    /// more (what sealing a small version costs beside its data) made a send of 1,000 small
    /// versions cut 10 batches instead of 4, and through a directory, where each batch costs
    /// a file, a log record and their syncs, the sealed send ran slower (W6E, sealed and
    /// plain in one process: 0.81 of plaintext against 0.89–0.93).
    public var sendBatchBytesPerVersion: Int { 0 }

    /// Whether the transport prefers few batches: a send joins the parts it seals into
    /// batches as large as the transport takes.
    public var prefersFewBatches: Bool { transport.prefersFewBatches }

    /// The most bytes of value data a batch seals at once (1 MiB): a send reads each batch
    /// from the store while the one before is sealed and put, its batches growing from
    /// ``firstSealingBatchByteCount`` to this and shrinking back at the end, so sealing adds
    /// little to the time reading takes; large enough that a batch is sealed on every core,
    /// and that a transport paying for each batch (a directory writes a file and a log
    /// record) pays for few. A transport that prefers few batches gets these joined.
    public static let sealingBatchByteCount = 1 << 20

    /// True: a retrieved version presenting itself as a merge the store made must carry the
    /// identifier its record derives, or the retrieve stops before adding it
    /// (`StoreError.mergeIdentifierMismatch`). The name already binds the identifier; this
    /// binds a merge's identifier to its content, so a device holding the key cannot
    /// publish other content under the identifier another device's merge will have.
    public var checksMergeIdentifiers: Bool { true }
    /// The transport's notifications.
    public var newVersionsAvailable: AsyncStream<Void> { transport.newBlobsAvailable }

    /// Opened versions kept between the listing that opened them and the call that takes
    /// their changes, up to this many bytes of version data; past it, changes are opened
    /// again when asked for.
    public static let openedChangesByteLimit = 64 << 20

    private let keys: Locked<EncryptionKeys>
    private let cache = Locked(Cache())
    /// The keyring, when the keys come from one, and who opens it.
    let membership: Locked<KeyringMembership?>

    private struct Cache {
        /// The version each known name stands for: local versions, versions opened, sent.
        var versionIdsByName: [String: Version.ID] = [:]
        /// How many of the store's versions, in the order added, are in `versionIdsByName`.
        var namedVersionCount = 0
        /// Versions opened by a listing and not yet taken, with their changes while within the
        /// byte limit.
        var opened: [Version.ID: (version: Version, changes: HeldChanges?)] = [:]
        var openedChangesBytes = 0
        /// Blobs whose epoch key has not arrived, by name.
        var pending: [String: UInt32] = [:]
    }

    /// A version's changes as a listing keeps them for the call that takes them: made by the
    /// listing of a retrieve (while the group before is added), checked only by any other
    /// listing.
    private enum HeldChanges {
        case checked(SealedVersion.CheckedChanges)
        case made([Value.Change], byteCount: Int)

        /// About the memory the changes take: the bytes of the version's batch.
        var byteCount: Int {
            switch self {
            case .checked(let changes): changes.byteCount
            case .made(_, let byteCount): byteCount
            }
        }
    }

    /// Seals through `inner` (as carriers, ``CarrierBlobTransport``) with `keys`.
    public convenience init(sealing inner: any Exchange, keys: EncryptionKeys) {
        self.init(blobs: CarrierBlobTransport(inner), store: inner.store, keys: keys)
    }

    /// Seals `store`'s versions into `transport` with `keys`.
    public init(blobs transport: any SealedBlobTransport, store: Store, keys: EncryptionKeys) {
        self.transport = transport
        self.store = store
        self.keys = Locked(keys)
        membership = Locked(nil)
    }

    /// Seals through `inner` with the keys `keyring` holds for `member`, and follows the
    /// keyring: revisions found on the other side are checked and taken, so a new epoch's
    /// key arrives with the retrieve that lists it (``keyring``, ``publish(_:)``).
    ///
    /// - Throws: ``EncryptionError/notEnrolled(reason:)`` when the keyring holds no keys for
    ///   `member`; ``EncryptionError/keyringRejected(revision:reason:)``.
    public convenience init(sealing inner: any Exchange, keyring: Keyring, member: KeyringMember) throws(EncryptionError) {
        try self.init(blobs: CarrierBlobTransport(inner), store: inner.store, keyring: keyring, member: member)
    }

    /// Seals `store`'s versions into `transport` with the keys `keyring` holds for `member`,
    /// and follows the keyring (as ``init(sealing:keyring:member:)``).
    ///
    /// - Throws: ``EncryptionError/notEnrolled(reason:)``, ``EncryptionError/keyringRejected(revision:reason:)``.
    public init(blobs transport: any SealedBlobTransport, store: Store, keyring: Keyring, member: KeyringMember) throws(EncryptionError) {
        self.transport = transport
        self.store = store
        keys = Locked(try member.secrets(in: keyring).encryptionKeys)
        membership = Locked(KeyringMembership(keyring: keyring, member: member))
    }

    /// The keys now.
    public var currentKeys: EncryptionKeys { keys.withLock { $0 } }

    /// Changes the keys (an epoch key arrived, a new epoch became current). Pending blobs of
    /// an epoch that now has a key are opened by the next retrieve.
    ///
    /// - Throws: What `body` throws; then the keys are unchanged.
    public func updateKeys<Failure: Error>(_ body: (inout EncryptionKeys) throws(Failure) -> Void) throws(Failure) {
        try keys.withLock { (current) throws(Failure) in
            var changed = current
            try body(&changed)
            current = changed
        }
    }

    /// How many blobs the last listings found sealed under an epoch whose key has not
    /// arrived.
    public var pendingVersionCount: Int { cache.withLock { $0.pending.count } }

    // MARK: The parts

    /// Prepares the transport.
    ///
    /// - Throws: What the transport throws.
    public func prepareToRetrieve() async throws { try await transport.prepareToRetrieve() }

    /// Prepares the transport.
    ///
    /// - Throws: What the transport throws.
    public func prepareToSend() async throws { try await transport.prepareToSend() }

    /// The identifiers of every version on the other side that opens (pending ones left out).
    ///
    /// - Throws: What ``retrieveVersionIdentifiers(after:)`` throws.
    public func retrieveAllVersionIdentifiers() async throws -> [Version.ID] {
        try await retrieveVersionIdentifiers(after: nil).versionIds
    }

    /// Lists the blobs added after `cursor` and names the versions they hold: a name of a
    /// version the store holds, sent or opened before costs nothing; the blobs of other
    /// names are fetched in groups and opened. With pending blobs the cursor stays where it
    /// was, so the next listing sees them again.
    ///
    /// - Throws: ``EncryptionError`` for a blob that is tampered with, malformed or not
    ///   sealed; what the wrapped exchange throws.
    public func retrieveVersionIdentifiers(after cursor: ExchangeCursor?) async throws -> VersionIdentifierPage {
        try await listVersions(after: cursor, makingChanges: false) { _ in }
    }

    /// Lists as ``retrieveVersionIdentifiers(after:)`` does, handing the versions named to
    /// `body` group by group as they are opened (the known names with the first group):
    /// while `body` adds one group's versions, the next group is opened and its changes
    /// made, and the one after it fetched. Groups hold 64 names, then 256, then 1,000 each,
    /// so a retrieve starts adding after opening few blobs, and a retrieve of at most 64 new
    /// blobs is refused whole when one of them is.
    ///
    /// - Throws: ``EncryptionError`` for a blob that is tampered with, malformed or not
    ///   sealed, after the groups before its own were handed over (nothing of its group is);
    ///   what the wrapped exchange and `body` throw.
    public func retrieveVersionIdentifiers(after cursor: ExchangeCursor?,
                                           inParts body: ([Version.ID]) async throws -> Void) async throws -> VersionIdentifierPage {
        try await listVersions(after: cursor, makingChanges: true, inParts: body)
    }

    /// The listing of both ``retrieveVersionIdentifiers(after:inParts:)`` and
    /// ``retrieveVersionIdentifiers(after:)``; `makingChanges` makes the changes of the
    /// versions opened (a retrieve takes them next), else they are only checked.
    private func listVersions(after cursor: ExchangeCursor?, makingChanges: Bool,
                              inParts body: ([Version.ID]) async throws -> Void) async throws -> VersionIdentifierPage {
        let page = try await transport.listBlobs(after: cursor)
        let names = try await takeKeyringCarriers(from: page.names)
        var listed: [Version.ID] = []
        var unknown: [String] = []
        var seen: Set<String> = []
        listed.reserveCapacity(names.count)
        seen.reserveCapacity(names.count)
        // Local versions are named (a MAC each) only when the listing holds a name not known
        // yet: it may be a version this store holds.
        if cache.withLock({ cache in names.contains { cache.versionIdsByName[$0] == nil } }) { nameLocalVersions() }
        cache.withLock { cache in
            for name in names where seen.insert(name).inserted {
                if let id = cache.versionIdsByName[name] {
                    listed.append(id)
                } else {
                    unknown.append(name)
                }
            }
        }
        var pending: [String: UInt32] = [:]
        var part = listed
        try await openGroups(Self.openingGroups(of: unknown), sizes: page.sizes, makingChanges: makingChanges) { (opened) in
            let named = keep(opened, pending: &pending)
            listed += named
            part += named
            try await body(part)
            part = []
        }
        if unknown.isEmpty { try await body(part) }
        cache.withLock { cache in
            if !cache.pending.isEmpty {
                for name in seen where cache.versionIdsByName[name] != nil { cache.pending[name] = nil }
            }
            cache.pending.merge(pending) { _, new in new }
        }
        return VersionIdentifierPage(versionIds: listed, cursor: pending.isEmpty ? page.cursor : cursor,
                                     isCompleteListing: page.isCompleteListing)
    }

    /// Keeps the versions `opened` by a listing (with their changes while within the byte
    /// limit) and names them; records the pending blobs in `pending`. Returns the identifiers
    /// of the versions opened, in order.
    private func keep(_ opened: [OpenedBlob], pending: inout [String: UInt32]) -> [Version.ID] {
        var named: [Version.ID] = []
        named.reserveCapacity(opened.count)
        cache.withLock { cache in
            cache.opened.reserveCapacity(cache.opened.count + opened.count)
            cache.versionIdsByName.reserveCapacity(cache.versionIdsByName.count + opened.count)
            for blob in opened {
                switch blob.checked {
                case .version(let version, let changes):
                    named.append(version.id)
                    cache.versionIdsByName[blob.name] = version.id
                    let held = blob.madeChanges.map { HeldChanges.made($0, byteCount: changes.byteCount) } ?? .checked(changes)
                    let keep = cache.openedChangesBytes + held.byteCount <= Self.openedChangesByteLimit
                    if keep { cache.openedChangesBytes += held.byteCount }
                    cache.opened[version.id] = (version, keep ? held : nil)
                case .pending(let epoch):
                    pending[blob.name] = epoch
                }
            }
        }
        return named
    }

    /// The versions with these identifiers, opened by a listing or fetched and opened now.
    ///
    /// - Throws: `ExchangeError.missingVersion(_:)` for a version no listing named;
    ///   ``EncryptionError`` for a blob refused; what the wrapped exchange throws.
    public func retrieveVersions(identifiedBy versionIds: [Version.ID]) async throws -> [Version] {
        var versions: [Version] = []
        var missing: [Version.ID] = []
        cache.withLock { cache in
            for id in versionIds {
                if let opened = cache.opened[id] { versions.append(opened.version) } else { missing.append(id) }
            }
        }
        for (version, _) in try await fetchAgain(missing, missing: ExchangeError.missingVersion) {
            versions.append(version)
        }
        return versions
    }

    /// The changes of these versions: made by a retrieve's listing while it opened them, made
    /// now on every core when another listing only checked them, or fetched and opened now.
    /// Changes handed out are dropped from the exchange's memory.
    ///
    /// - Throws: `ExchangeError.missingValueChanges(_:)` for a version no listing named;
    ///   ``EncryptionError`` for a blob refused; what the wrapped exchange throws.
    public func retrieveValueChanges(forVersionsIdentifiedBy versionIds: [Version.ID]) async throws -> [Version.ID: [Value.Change]] {
        var checked: [SealedVersion.CheckedChanges] = []
        var missing: [Version.ID] = []
        var result: [Version.ID: [Value.Change]] = [:]
        result.reserveCapacity(versionIds.count)
        cache.withLock { cache in
            for id in versionIds {
                if let changes = cache.opened[id]?.changes {
                    switch changes {
                    case .checked(let changes): checked.append(changes)
                    case .made(let made, _): result[id] = made
                    }
                    cache.opened[id] = nil
                    cache.openedChangesBytes -= changes.byteCount
                } else {
                    missing.append(id)
                }
            }
        }
        let decoded = try ParallelParts.map(checked, parallelFrom: Self.parallelBlobCount, partsPerCore: Self.partsPerCore) {
            (changes) throws(EncryptionError) -> [Value.Change] in try changes.decode()
        }
        for (changes, made) in zip(checked, decoded) { result[changes.versionId] = made }
        for (version, changes) in try await fetchAgain(missing, missing: ExchangeError.missingValueChanges) {
            result[version.id] = changes
            cache.withLock { _ = $0.opened.removeValue(forKey: version.id) }
        }
        return result
    }

    /// Seals each version and puts the blobs in one call. A version whose name the other
    /// side holds already, with other bytes, is opened there: the same version with the same
    /// changes was sent before (by this device, or another making the same merge, with
    /// another nonce) and is left as it is; anything else is a conflict.
    ///
    /// - Throws: `ExchangeError.conflictingVersion(_:location:)` naming the version (not
    ///   its blob) when the other side holds another version or other changes under its name
    ///   (a carrier exchange refuses the whole write then; a blind store keeps the others); ``EncryptionError/invalidKey(reason:)`` when
    ///   the current epoch has no key; ``EncryptionError/notEnrolled(reason:)`` once removed;
    ///   ``EncryptionError/writeTokenRejected(reason:)`` when a blind store wants another
    ///   write token; what the transport throws.
    public func send(versionChanges: [VersionChanges]) async throws {
        try await send(versionChanges, sealed: nil, catchingUp: true)
    }

    /// Seals the batch (on every core), so that a send seals each batch while the transport
    /// writes the one before and the next is read from the store; over a
    /// ``CarrierBlobTransport``, the carrier exchange then prepares the blobs' carriers (a
    /// folder encodes their batch file entries: ``SealedBlobTransport/prepare(forPutting:)``),
    /// so the write of joined parts only puts them together. Each version's name is remembered here, for listings.
    ///
    /// - Throws: ``EncryptionError/invalidKey(reason:)`` when the current epoch has no key;
    ///   ``EncryptionError/notEnrolled(reason:)`` once removed.
    public func prepare(forSending versionChanges: [VersionChanges]) throws -> PreparedBatch {
        if let removal = membership.withLock({ $0?.removal }) { throw removal }
        var sealed = try Self.seal(versionChanges, keys: currentKeys)
        rememberNames(of: sealed)
        sealed.preparedPut = try transport.prepare(forPutting: sealed.blobs)
        return PreparedBatch(versionChanges: versionChanges, work: sealed)
    }

    /// Puts the blobs ``prepare(forSending:)`` sealed (of every part, for joined parts), or
    /// seals the batch again when the current epoch has changed since (never blobs of an
    /// older epoch after a rotation).
    ///
    /// - Throws: What ``send(versionChanges:)`` throws.
    public func send(prepared batch: PreparedBatch) async throws {
        try await send(batch.versionChanges, sealed: Self.sealedBatch(of: batch), catchingUp: true)
    }

    /// The blobs sealed for `batch`: its work, or its parts' joined when every part was sealed
    /// under one epoch; nil otherwise.
    static func sealedBatch(of batch: PreparedBatch) -> SealedBatch? {
        guard let parts = batch.workOfEachPart(as: SealedBatch.self), let epoch = parts.first?.epoch,
              parts.allSatisfy({ $0.epoch == epoch }) else { return nil }
        guard parts.count > 1 else { return parts[0] }
        let preparedPuts = parts.compactMap(\.preparedPut)
        return SealedBatch(epoch: epoch, versionIds: parts.flatMap(\.versionIds), blobs: parts.flatMap(\.blobs),
                           preparedPut: preparedPuts.count == parts.count ? PreparedBatch(joining: preparedPuts) : nil)
    }

    /// A batch's blobs, sealed under one epoch.
    struct SealedBatch: Sendable {
        /// The epoch the blobs were sealed under.
        var epoch: UInt32
        /// The versions sealed, in the batch's order.
        var versionIds: [Version.ID]
        /// Each version's blob, in the batch's order, named.
        var blobs: [(name: String, data: Data)]
        /// What the transport made of the blobs to put them
        /// (``SealedBlobTransport/prepare(forPutting:)``: a ``CarrierBlobTransport``'s carriers,
        /// prepared by its exchange); nil when it had nothing to prepare.
        var preparedPut: PreparedBatch? = nil
    }

    /// The blobs of `versionChanges` under the current epoch of `keys`. Each version seals
    /// alone, so the batch is sealed on every core.
    ///
    /// - Throws: ``EncryptionError/invalidKey(reason:)`` when the current epoch has no key.
    static func seal(_ versionChanges: [VersionChanges], keys: EncryptionKeys) throws(EncryptionError) -> SealedBatch {
        let blobs = try ParallelParts.mapParts(versionChanges, parallelFrom: parallelBlobCount, partsPerCore: partsPerCore) {
            (part) throws(EncryptionError) -> [(name: String, data: Data)] in
            // One plaintext buffer per part, reused from version to version.
            var buffer: [UInt8] = []
            buffer.reserveCapacity(4_096)
            var blobs: [(name: String, data: Data)] = []
            blobs.reserveCapacity(part.count)
            for entry in part {
                let name = keys.name(of: entry.version.id)
                blobs.append((Hex.encode(name), try SealedVersion.seal(entry.version, changes: entry.valueChanges, name: name, keys: keys, reusing: &buffer)))
            }
            return blobs
        }
        return SealedBatch(epoch: keys.currentEpoch, versionIds: versionChanges.map(\.version.id), blobs: blobs)
    }

    /// Puts `sealed`, or the batch sealed now when `sealed` is of another epoch than the
    /// current one; when a blind store refuses the write token and the keyring on the other
    /// side has moved to a newer epoch, takes it and seals again under the new epoch (never
    /// the old blobs under the new token: a removed device holds the old key).
    private func send(_ versionChanges: [VersionChanges], sealed: SealedBatch?, catchingUp: Bool) async throws {
        if let removal = membership.withLock({ $0?.removal }) { throw removal }
        let keys = currentKeys
        let batch: SealedBatch
        if let sealed, sealed.epoch == keys.currentEpoch, sealed.versionIds.elementsEqual(versionChanges.lazy.map(\.version.id)) {
            batch = sealed
        } else {
            batch = try Self.seal(versionChanges, keys: keys)
            rememberNames(of: batch)
        }
        let differing: [String]
        do {
            differing = try await putBlobs(batch.blobs, versionIds: batch.versionIds, prepared: batch.preparedPut)
        } catch EncryptionError.writeTokenRejected(let reason) {
            guard catchingUp, try await catchUpWithKeyring() else { throw EncryptionError.writeTokenRejected(reason: reason) }
            return try await send(versionChanges, sealed: nil, catchingUp: false)
        }
        guard !differing.isEmpty else { return }
        var names: [String: Version.ID] = [:]
        for (blob, id) in zip(batch.blobs, batch.versionIds) { names[blob.name] = id }
        try await checkSentBefore(differing.filter { names[$0] != nil }, versionChanges: versionChanges, names: names)
    }

    /// Remembers the name of each version `batch` sealed. A name is a MAC of the version's
    /// identifier under a key that never rotates, so it holds whether or not the blob is ever
    /// put: a listing that shows it then names no local version again.
    private func rememberNames(of batch: SealedBatch) {
        cache.withLock { cache in
            cache.versionIdsByName.reserveCapacity(cache.versionIdsByName.count + batch.blobs.count)
            for (blob, id) in zip(batch.blobs, batch.versionIds) { cache.versionIdsByName[blob.name] = id }
        }
    }

    /// Opens the blobs the other side held already, with other bytes, under the names of
    /// versions just sent: each must be the same version with the same changes (sealed
    /// before, with another nonce); anything else is a conflict.
    private func checkSentBefore(_ differing: [String], versionChanges: [VersionChanges], names: [String: Version.ID]) async throws {
        guard !differing.isEmpty else { return }
        var sent: [Version.ID: VersionChanges] = [:]
        for entry in versionChanges { sent[entry.version.id] = entry }
        for blob in try await openBlobs(named: differing) {
            guard let id = names[blob.name], let (version, changes) = sent[id] else { continue }
            guard case .version(let held, let heldChanges) = blob.checked, held.id == version.id, held.predecessors == version.predecessors,
                  held.timestamp == version.timestamp, held.metadata == version.metadata, try heldChanges.decode() == changes else {
                throw ExchangeError.conflictingVersion(id, location: "the other side")
            }
        }
    }

    // MARK: Blobs

    /// Names the versions added to the store since the last call (versions are never
    /// removed, and the history lists them in the order added, so each is named once per
    /// exchange object).
    private func nameLocalVersions() {
        let start = cache.withLock { $0.namedVersionCount }
        let added = store.queryHistory { history in
            history.count > start ? history.versionIdentifiers(addedAt: start..<history.count) : []
        }
        guard !added.isEmpty else { return }
        let keys = currentKeys
        let names = ParallelParts.map(added, parallelFrom: Self.parallelBlobCount, partsPerCore: Self.partsPerCore) { Hex.encode(keys.name(of: $0)) }
        cache.withLock { cache in
            guard cache.namedVersionCount == start else { return }
            for (name, id) in zip(names, added) { cache.versionIdsByName[name] = id }
            cache.namedVersionCount = start + added.count
        }
    }

    /// A blob opened and checked, with its changes when they were made.
    private struct OpenedBlob {
        var name: String
        var checked: SealedVersion.Checked
        var madeChanges: [Value.Change]?
    }

    /// Fetches and opens the blobs of `names`, in order (``openGroups(_:sizes:makingChanges:_:)``).
    private func openBlobs(named names: [String]) async throws -> [OpenedBlob] {
        var opened: [OpenedBlob] = []
        opened.reserveCapacity(names.count)
        try await openGroups(Self.openingGroups(of: names), sizes: [:], makingChanges: false) { opened += $0 }
        return opened
    }

    /// Fetches and opens `groups` of names in order, handing each group's blobs, opened, to
    /// `body`: a pipeline of three, where while `body` works on one group, the next is opened
    /// on every core (and, with `makingChanges`, its changes made) and the one after it is
    /// fetched (each blob sized by the sizes listed, or asked of the transport), so the
    /// transport's reading and the opening hide behind each other and behind `body`.
    ///
    /// - Throws: ``EncryptionError`` for a blob refused, once `body` has had every group
    ///   before its own; what the transport and `body` throw.
    private func openGroups(_ groups: [ArraySlice<String>], sizes: [String: Int64], makingChanges: Bool,
                            _ body: ([OpenedBlob]) async throws -> Void) async throws {
        guard !groups.isEmpty else { return }
        var fetched = try await fetchBlobs(named: groups[0], listedSizes: sizes)
        var opened: [OpenedBlob]?
        for index in 0...groups.count {
            let toOpen = fetched
            async let following = index + 1 < groups.count ? fetchBlobs(named: groups[index + 1], listedSizes: sizes) : []
            // A retrieve adds the group before on one core meanwhile (all but the first group).
            let besideTheStore = makingChanges && index > 0
            async let nowOpened = index < groups.count ? open(toOpen, makingChanges: makingChanges, besideTheStore: besideTheStore) : nil
            if let opened { try await body(opened) }
            opened = try await nowOpened
            fetched = try await following
        }
    }

    /// Opens and checks `blobs` with the current keys, making their changes when asked: on
    /// every core, or `besideTheStore` (while the store adds versions on one) on one thread
    /// when the machine has two cores. Two cores are often one core's two hardware threads,
    /// where work beside the store's slows its adding: W6E's sealed memory retrieve ran at a
    /// median 0.94 of plaintext with later groups opened on one thread, 0.91 on both (seven
    /// and eleven runs).
    private func open(_ blobs: [(name: String, blob: Data)], makingChanges: Bool, besideTheStore: Bool) async throws(EncryptionError) -> [OpenedBlob] {
        let keys = currentKeys
        let parallelFrom = besideTheStore && Self.coreCount <= 2 ? Int.max : Self.parallelBlobCount
        return try ParallelParts.map(blobs, parallelFrom: parallelFrom, partsPerCore: Self.partsPerCore) {
            (entry) throws(EncryptionError) -> OpenedBlob in
            let checked = try Self.open(name: entry.name, blob: entry.blob, keys: keys)
            guard makingChanges, case .version(_, let changes) = checked else { return OpenedBlob(name: entry.name, checked: checked) }
            return OpenedBlob(name: entry.name, checked: checked, madeChanges: try changes.decode())
        }
    }

    /// `names` in the groups ``openGroups(_:sizes:makingChanges:_:)`` fetches and opens: 64
    /// names, then 256, then 1,000 a group. A retrieve adds each group while the next is
    /// opened, so the first is small (the adding starts after little opening) and each next
    /// one about as much opening as adding the one before leaves room for; few groups, as
    /// each costs the store a durable write.
    static func openingGroups(of names: [String]) -> [ArraySlice<String>] {
        var groups: [ArraySlice<String>] = []
        var start = names.startIndex, groupCount = 64
        while start < names.endIndex {
            let end = names.index(start, offsetBy: groupCount, limitedBy: names.endIndex) ?? names.endIndex
            groups.append(names[start..<end])
            start = end
            groupCount = min(1_000, groupCount * 4)
        }
        return groups
    }

    /// The blobs of `names`, in order, fetched in batches of at most ``maximumBatchByteCount``
    /// bytes by the sizes listed or asked of the transport.
    ///
    /// - Throws: `ExchangeError.missingValueChanges(_:)` for a name the transport has no blob
    ///   for; what the transport throws.
    private func fetchBlobs(named names: ArraySlice<String>, listedSizes: [String: Int64]) async throws -> [(name: String, blob: Data)] {
        let unsized = names.filter { listedSizes[$0] == nil }
        let askedSizes = unsized.isEmpty ? [:] : try await transport.blobSizes(named: unsized)
        var fetched: [(name: String, blob: Data)] = []
        fetched.reserveCapacity(names.count)
        var batch: [String] = []
        var batchBytes: Int64 = 0
        func flush() async throws {
            guard !batch.isEmpty else { return }
            let blobs = try await transport.blobs(named: batch)
            for name in batch {
                guard let blob = blobs[name] else { throw ExchangeError.missingValueChanges(Version.ID(name)) }
                fetched.append((name, blob))
            }
            batch = []
            batchBytes = 0
        }
        for name in names {
            let size = min(max(0, listedSizes[name] ?? askedSizes[name] ?? 65_536), Int64(Int32.max))
            if !batch.isEmpty, batchBytes > Int64(maximumBatchByteCount) - size { try await flush() }
            batch.append(name)
            batchBytes += size
        }
        try await flush()
        return fetched
    }

    /// Puts `blobs` under the current epoch's write token, mapping a conflict on a blob to
    /// the version it holds. A blind store that still wants the previous epoch's token (the
    /// device that started the epoch stopped before moving the store to it) is moved, and
    /// the write made again once. Returns the names held already with other bytes.
    func putBlobs(_ blobs: [(name: String, data: Data)], versionIds: [Version.ID] = [], prepared: PreparedBatch? = nil) async throws -> [String] {
        let keys = currentKeys
        let token = keys.writeToken(ofEpoch: keys.currentEpoch)
        do {
            do {
                if let prepared { return try await transport.put(blobs, prepared: prepared, writeToken: token) }
                return try await transport.put(blobs, writeToken: token)
            } catch EncryptionError.writeTokenRejected(let reason) {
                guard keys.currentEpoch > 0, let token, let previous = keys.writeToken(ofEpoch: keys.currentEpoch - 1) else {
                    throw EncryptionError.writeTokenRejected(reason: reason)
                }
                try await transport.replaceWriteToken(current: previous, with: token)
                return try await transport.put(blobs, writeToken: token)
            }
        } catch ExchangeError.conflictingVersion(let carrier, let location) {
            let index = blobs.firstIndex { $0.name == carrier.rawValue }.flatMap { $0 < versionIds.count ? $0 : nil }
            throw ExchangeError.conflictingVersion(index.map { versionIds[$0] } ?? carrier, location: location)
        }
    }

    /// Opens and checks a blob with `keys`, its changes not made yet.
    private static func open(name: String, blob: Data, keys: EncryptionKeys) throws(EncryptionError) -> SealedVersion.Checked {
        guard let nameBytes = SealedVersion.name(fromHex: name) else {
            throw EncryptionError.notSealed(name: name, reason: "its name is not 64 lower-case hex digits")
        }
        return try SealedVersion.check(blob, name: nameBytes, hexName: name, keys: keys)
    }

    /// From how many blobs (or names) a batch is sealed, opened or named on every core: a
    /// version seals in about 12 µs here, a parallel part costs a few µs to start.
    static let parallelBlobCount = 16

    /// The machine's active cores, asked once (Linux reads them from files each time).
    static let coreCount = ProcessInfo.processInfo.activeProcessorCount

    /// How many parts per core a batch is split into: a send seals one batch while the next
    /// is read from the store on another thread, so parts that a busy core delays stay small.
    static let partsPerCore = 4

    /// Fetches and opens the blobs of versions whose names are known but whose contents are
    /// no longer held; a version no listing named is `missing`.
    private func fetchAgain(_ ids: [Version.ID], missing: (Version.ID) -> ExchangeError) async throws -> [(Version, [Value.Change])] {
        guard !ids.isEmpty else { return [] }
        let keys = currentKeys
        let names = ids.map { Hex.encode(keys.name(of: $0)) }
        let unnamed = cache.withLock { cache in zip(ids, names).first { cache.versionIdsByName[$0.1] == nil } }
        if let (id, _) = unnamed { throw missing(id) }
        var result: [(Version, [Value.Change])] = []
        for (id, blob) in zip(ids, try await openBlobs(named: names)) {
            guard case .version(let version, let changes) = blob.checked else { throw missing(id) }
            result.append((version, try changes.decode()))
        }
        return result
    }
}
