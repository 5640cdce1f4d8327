import Foundation
import LLVSCore
import LLVSExchange
import LLVSStore
import LLVSSupport

/// An exchange that seals every version before it leaves the store and opens it on the way
/// in, through any other exchange (a shared directory, the sync server, memory): the other
/// side holds one blob per version and learns only how many there are, their padded sizes
/// and when they arrived (SPEC.md, "Encrypted exchanges").
///
/// ```swift
/// let keys = EncryptionKeys(storeKey: storeKey)
/// let exchange = EncryptedExchange(
///     sealing: FileSystemExchange(rootDirectoryURL: sharedURL, store: store), keys: keys)
/// try await exchange.send()
/// try await exchange.retrieve()
/// ```
///
/// On the other side, version `v` is a version named by the lower-case hex of
/// HMAC-SHA256(name key, `v`'s identifier), with no predecessors, timestamp 0, no metadata,
/// and one inserted value, ``sealedValueId``, whose data is the blob. Only the parts of the
/// wrapped exchange are used (its own sync algorithm never runs), so hand the wrapped
/// exchange to nothing else: its `retrieve()` would add the sealed carriers to the store.
///
/// What is checked on the way in: the blob opens under the key of the epoch its header names,
/// with the store and the name bound in (so a flipped bit, a cut, a blob moved to another
/// name or replayed from another store are refused with ``EncryptionError/tampered(name:reason:)``
/// and nothing from the retrieve is added); it holds one version, and that version's name is
/// the blob's. A blob sealed under an epoch whose key has not arrived is **pending**: left
/// out of the retrieve, listed again by the next one, and added once
/// ``updateKeys(_:)`` brings its key; it never fails a sync (``pendingVersionCount``).
public final class EncryptedExchange: RestorationStateKeeping {
    /// The value identifier of a carrier's one value, the blob.
    public static let sealedValueId = Value.ID("sealed")

    /// The exchange that carries the blobs.
    public let inner: any Exchange
    /// The store versions are retrieved into and sent from (the wrapped exchange's).
    public var store: Store { inner.store }
    /// The cursor into the other side's list of blobs and the heads known to be there.
    public let restoration = ExchangeRestorationState()
    /// The wrapped exchange's batch limit: a blob is a version's data and a few bytes more.
    public var maximumBatchByteCount: Int { inner.maximumBatchByteCount }
    /// The wrapped exchange's notifications.
    public var newVersionsAvailable: AsyncStream<Void> { inner.newVersionsAvailable }

    /// Opened versions kept between the listing that opened them and the call that takes
    /// their changes, up to this many bytes of value data; past it, changes are opened
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
        /// Versions opened by a listing and not yet taken, with their changes while within
        /// the byte limit.
        var opened: [Version.ID: (version: Version, changes: [Value.Change]?)] = [:]
        var openedChangesBytes = 0
        /// Blobs whose epoch key has not arrived, by name.
        var pending: [String: UInt32] = [:]
    }

    /// Seals through `inner` with `keys`.
    public init(sealing inner: any Exchange, keys: EncryptionKeys) {
        self.inner = inner
        self.keys = Locked(keys)
        membership = Locked(nil)
    }

    /// Seals through `inner` with the keys `keyring` holds for `member`, and follows the
    /// keyring: revisions found on the other side are checked and taken, so a new epoch's
    /// key arrives with the retrieve that lists it (``keyring``, ``publish(_:)``).
    ///
    /// - Throws: ``EncryptionError/notEnrolled(reason:)`` when the keyring holds no keys for
    ///   `member`; ``EncryptionError/keyringRejected(revision:reason:)``.
    public init(sealing inner: any Exchange, keyring: Keyring, member: KeyringMember) throws(EncryptionError) {
        self.inner = inner
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

    /// Prepares the wrapped exchange.
    ///
    /// - Throws: What the wrapped exchange throws.
    public func prepareToRetrieve() async throws { try await inner.prepareToRetrieve() }

    /// Prepares the wrapped exchange.
    ///
    /// - Throws: What the wrapped exchange throws.
    public func prepareToSend() async throws { try await inner.prepareToSend() }

    /// The identifiers of every version on the other side that opens (pending ones left out).
    ///
    /// - Throws: What ``retrieveVersionIdentifiers(after:)`` throws.
    public func retrieveAllVersionIdentifiers() async throws -> [Version.ID] {
        try await retrieveVersionIdentifiers(after: nil).versionIds
    }

    /// Lists the blobs added after `cursor` and names the versions they hold: a name of a
    /// version the store holds, sent or opened before costs nothing; the blobs of other
    /// names are fetched in batches and opened. With pending blobs the cursor stays where it
    /// was, so the next listing sees them again.
    ///
    /// - Throws: ``EncryptionError`` for a blob that is tampered with, malformed or not
    ///   sealed; what the wrapped exchange throws.
    public func retrieveVersionIdentifiers(after cursor: ExchangeCursor?) async throws -> VersionIdentifierPage {
        var page = try await inner.retrieveVersionIdentifiers(after: cursor)
        page.versionIds = try await takeKeyringCarriers(from: page.versionIds)
        var listed: [Version.ID] = []
        var unknown: [String] = []
        var seen: Set<String> = []
        nameLocalVersions()
        cache.withLock { cache in
            for carrier in page.versionIds where seen.insert(carrier.rawValue).inserted {
                if let id = cache.versionIdsByName[carrier.rawValue] {
                    listed.append(id)
                } else {
                    unknown.append(carrier.rawValue)
                }
            }
        }
        var pending: [String: UInt32] = [:]
        for (name, opened) in try await openBlobs(named: unknown) {
            switch opened {
            case .version(let version, let changes):
                listed.append(version.id)
                cache.withLock { cache in
                    cache.versionIdsByName[name] = version.id
                    let bytes = Self.valueBytes(changes)
                    let keep = cache.openedChangesBytes + bytes <= Self.openedChangesByteLimit
                    if keep { cache.openedChangesBytes += bytes }
                    cache.opened[version.id] = (version, keep ? changes : nil)
                }
            case .pending(let epoch):
                pending[name] = epoch
            }
        }
        cache.withLock { cache in
            for name in seen where cache.versionIdsByName[name] != nil { cache.pending[name] = nil }
            cache.pending.merge(pending) { _, new in new }
        }
        return VersionIdentifierPage(versionIds: listed, cursor: pending.isEmpty ? page.cursor : cursor,
                                     isCompleteListing: page.isCompleteListing)
    }

    /// The versions with these identifiers, opened by a listing or fetched and opened now.
    ///
    /// - Throws: ``ExchangeError/missingVersion(_:)`` for a version no listing named;
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

    /// The changes of these versions, opened by a listing or fetched and opened now. Changes
    /// handed out are dropped from the exchange's memory.
    ///
    /// - Throws: ``ExchangeError/missingValueChanges(_:)`` for a version no listing named;
    ///   ``EncryptionError`` for a blob refused; what the wrapped exchange throws.
    public func retrieveValueChanges(forVersionsIdentifiedBy versionIds: [Version.ID]) async throws -> [Version.ID: [Value.Change]] {
        var result: [Version.ID: [Value.Change]] = [:]
        var missing: [Version.ID] = []
        cache.withLock { cache in
            for id in versionIds {
                if let changes = cache.opened[id]?.changes {
                    result[id] = changes
                    cache.opened[id] = nil
                    cache.openedChangesBytes -= Self.valueBytes(changes)
                } else {
                    missing.append(id)
                }
            }
        }
        for (version, changes) in try await fetchAgain(missing, missing: ExchangeError.missingValueChanges) {
            result[version.id] = changes
            cache.withLock { _ = $0.opened.removeValue(forKey: version.id) }
        }
        return result
    }

    /// Seals each version and sends the blobs through the wrapped exchange in one call.
    ///
    /// - Throws: ``ExchangeError/conflictingVersion(_:location:)`` naming the version (not
    ///   its blob) when the other side holds another blob under its name: other content
    ///   under the same identifier, or the same version sealed under another epoch;
    ///   ``EncryptionError/invalidKey(reason:)`` when the current epoch has no key; what the
    ///   wrapped exchange throws.
    public func send(versionChanges: [VersionChanges]) async throws {
        if let removal = membership.withLock({ $0?.removal }) { throw removal }
        let keys = currentKeys
        var carriers: [VersionChanges] = []
        var names: [String: Version.ID] = [:]
        carriers.reserveCapacity(versionChanges.count)
        for (version, changes) in versionChanges {
            let name = keys.name(of: version.id)
            let blob = try SealedVersion.seal(version, changes: changes, name: name, keys: keys)
            let hexName = Hex.encode(name)
            names[hexName] = version.id
            carriers.append(Self.carrier(named: hexName, holding: blob))
        }
        try await sendCarriers(carriers, names: names)
        cache.withLock { $0.versionIdsByName.merge(names) { _, new in new } }
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
        let names = added.map { Hex.encode(keys.name(of: $0)) }
        cache.withLock { cache in
            guard cache.namedVersionCount == start else { return }
            for (name, id) in zip(names, added) { cache.versionIdsByName[name] = id }
            cache.namedVersionCount = start + added.count
        }
    }

    /// Fetches and opens the blobs of `names`: records first (for their sizes, 1,000 a
    /// request), then the blobs in batches of at most ``maximumBatchByteCount`` bytes.
    private func openBlobs(named names: [String]) async throws -> [(String, SealedVersion.Opened)] {
        guard !names.isEmpty else { return [] }
        var sizes: [String: Int64] = [:]
        var start = 0
        while start < names.count {
            let slice = names[start..<min(start + 1_000, names.count)]
            for carrier in try await inner.retrieveVersions(identifiedBy: slice.map { Version.ID($0) }) {
                sizes[carrier.id.rawValue] = max(0, carrier.valueDataSize ?? 65_536)
            }
            start = slice.endIndex
        }
        var opened: [(String, SealedVersion.Opened)] = []
        opened.reserveCapacity(names.count)
        var batch: [String] = []
        var batchBytes: Int64 = 0
        func flush() async throws {
            guard !batch.isEmpty else { return }
            let changes = try await inner.retrieveValueChanges(forVersionsIdentifiedBy: batch.map { Version.ID($0) })
            for name in batch {
                opened.append((name, try open(name: name, carrierChanges: changes[Version.ID(name)])))
            }
            batch = []
            batchBytes = 0
        }
        for name in names {
            let size = sizes[name] ?? 65_536
            if !batch.isEmpty, batchBytes > Int64(maximumBatchByteCount) - size { try await flush() }
            batch.append(name)
            batchBytes += min(size, Int64(Int32.max))
        }
        try await flush()
        return opened
    }

    /// Sends `carriers`, mapping a conflict on a carrier to the version it carries.
    func sendCarriers(_ carriers: [VersionChanges], names: [String: Version.ID]) async throws {
        do {
            try await inner.send(versionChanges: carriers)
        } catch ExchangeError.conflictingVersion(let carrier, let location) {
            throw ExchangeError.conflictingVersion(names[carrier.rawValue] ?? carrier, location: location)
        }
    }

    /// Opens the blob a carrier holds.
    private func open(name: String, carrierChanges: [Value.Change]?) throws -> SealedVersion.Opened {
        guard let nameBytes = SealedVersion.name(fromHex: name) else {
            throw EncryptionError.notSealed(name: name, reason: "its name is not 64 lower-case hex digits")
        }
        return try SealedVersion.open(try Self.carriedBytes(name: name, carrierChanges), name: nameBytes, keys: currentKeys)
    }

    /// The bytes a carrier holds: its one inserted value, ``sealedValueId``.
    static func carriedBytes(name: String, _ carrierChanges: [Value.Change]?) throws -> Data {
        guard let carrierChanges else { throw ExchangeError.missingValueChanges(Version.ID(name)) }
        guard carrierChanges.count == 1, case .insert(let value) = carrierChanges[0], value.id == sealedValueId else {
            throw EncryptionError.notSealed(name: name, reason: "it holds \(carrierChanges.count) changes, not the one insert of \"sealed\"")
        }
        return value.data
    }

    /// A carrier named `name` holding `bytes`.
    static func carrier(named name: String, holding bytes: Data) -> VersionChanges {
        (Version(id: Version.ID(name), predecessors: nil, timestamp: 0, valueDataSize: Int64(bytes.count), metadata: [:]),
         [.insert(Value(id: sealedValueId, data: bytes))])
    }

    /// Fetches and opens the blobs of versions whose names are known but whose contents are
    /// no longer held; a version no listing named is `missing`.
    private func fetchAgain(_ ids: [Version.ID], missing: (Version.ID) -> ExchangeError) async throws -> [(Version, [Value.Change])] {
        guard !ids.isEmpty else { return [] }
        let keys = currentKeys
        let names = ids.map { Hex.encode(keys.name(of: $0)) }
        let unnamed = cache.withLock { cache in zip(ids, names).first { cache.versionIdsByName[$0.1] == nil } }
        if let (id, _) = unnamed { throw missing(id) }
        var result: [(Version, [Value.Change])] = []
        for (id, (_, opened)) in zip(ids, try await openBlobs(named: names)) {
            guard case .version(let version, let changes) = opened else { throw missing(id) }
            result.append((version, changes))
        }
        return result
    }

    /// The bytes of value data `changes` carry.
    private static func valueBytes(_ changes: [Value.Change]) -> Int {
        changes.reduce(0) { total, change in
            switch change {
            case .insert(let value), .update(let value): return total + value.data.count
            default: return total
            }
        }
    }
}
