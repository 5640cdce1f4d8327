import Foundation
import LLVSCore
import LLVSExchange

/// Where an ``EncryptedExchange`` keeps its blobs: a list of named opaque blobs in the order
/// they arrived. ``CarrierBlobTransport`` keeps them in any exchange (a directory, a
/// transparent sync server, memory) as one-value versions; a blind sync server store keeps
/// them as they are (`LLVSHTTPExchange.HTTPBlobTransport`).
///
/// Names are 1 to 100 of `a-z 0-9 -`: 64 hex digits for a sealed version, `keyring-` and 8
/// hex digits for a keyring revision, `device-` and 32 hex digits for a request to join.
public protocol SealedBlobTransport: AnyObject, Sendable {
    /// The most bytes of blobs to fetch in one call.
    var maximumBatchByteCount: Int { get }
    /// Whether each put costs round trips enough (a WebDAV folder) that blobs should go in
    /// batches as large as ``maximumBatchByteCount``: a send then joins the small parts it
    /// seals, each while the next is read (``EncryptedExchange/sendBatchByteCount``), into
    /// such batches. False by default.
    var prefersFewBatches: Bool { get }
    /// Yields when the other side may hold new blobs.
    var newBlobsAvailable: AsyncStream<Void> { get }

    /// Prepares a retrieve (default: nothing).
    ///
    /// - Throws: What the transport throws.
    func prepareToRetrieve() async throws

    /// Prepares a send (default: nothing).
    ///
    /// - Throws: What the transport throws.
    func prepareToSend() async throws

    /// The names of the blobs added after `cursor` (every blob when nil), with their sizes
    /// when the listing gives them.
    ///
    /// - Throws: What the transport throws.
    func listBlobs(after cursor: ExchangeCursor?) async throws -> SealedBlobPage

    /// The sizes of the named blobs, where the transport can tell them cheaply (a missing
    /// name is left out).
    ///
    /// - Throws: What the transport throws.
    func blobSizes(named names: [String]) async throws -> [String: Int64]

    /// The named blobs the other side holds (a missing name is left out).
    ///
    /// - Throws: ``EncryptionError/notSealed(name:reason:)`` for something under a name that
    ///   is not a blob; what the transport throws.
    func blobs(named names: [String]) async throws -> [String: Data]

    /// Stores the blobs; a name stored already is left as it is.
    ///
    /// - Parameters:
    ///   - blobs: The blobs, each under its name.
    ///   - writeToken: The token of the current key epoch
    ///     (``EncryptionKeys/writeToken(ofEpoch:)``), for transports that guard writes; nil for a
    ///     device that holds no key yet (it may write only `device-` names).
    /// - Returns: The names stored already with other bytes.
    /// - Throws: ``EncryptionError/writeTokenRejected(reason:)`` when the other side wants
    ///   another token; `ExchangeError.conflictingVersion(_:location:)` naming the blob when
    ///   the transport refuses the whole write for one name stored with other bytes; what the
    ///   transport throws.
    func put(_ blobs: [(name: String, data: Data)], writeToken: Data?) async throws -> [String]

    /// Prepares `blobs` to be put (``put(_:prepared:writeToken:)``), as an
    /// ``EncryptedExchange`` seals each part of a send, while the next part is read. Nil, by
    /// default: nothing to prepare.
    ///
    /// - Throws: What the preparation throws.
    func prepare(forPutting blobs: [(name: String, data: Data)]) throws -> PreparedBatch?

    /// Stores the blobs as ``put(_:writeToken:)`` does, with what
    /// ``prepare(forPutting:)`` made of them (of each part, joined, for parts put together).
    /// By default, ``put(_:writeToken:)``.
    ///
    /// - Returns: The names stored already with other bytes.
    /// - Throws: What ``put(_:writeToken:)`` throws.
    func put(_ blobs: [(name: String, data: Data)], prepared: PreparedBatch, writeToken: Data?) async throws -> [String]

    /// Moves the other side to a new write token (a new key epoch), for transports that
    /// guard writes; others do nothing.
    ///
    /// - Throws: ``EncryptionError/writeTokenRejected(reason:)`` when `current` is not the
    ///   token the other side holds; what the transport throws.
    func replaceWriteToken(current: Data, with new: Data) async throws
}

extension SealedBlobTransport {
    /// False: a put costs little.
    public var prefersFewBatches: Bool { false }
    /// Does nothing.
    public func prepareToRetrieve() async throws {}
    /// Does nothing.
    public func prepareToSend() async throws {}
    /// Does nothing: the transport does not guard writes.
    public func replaceWriteToken(current: Data, with new: Data) async throws {}

    /// Nil: nothing to prepare.
    public func prepare(forPutting blobs: [(name: String, data: Data)]) throws -> PreparedBatch? { nil }

    /// ``put(_:writeToken:)``.
    ///
    /// - Throws: What ``put(_:writeToken:)`` throws.
    public func put(_ blobs: [(name: String, data: Data)], prepared: PreparedBatch, writeToken: Data?) async throws -> [String] {
        try await put(blobs, writeToken: writeToken)
    }

    /// Every blob name on the other side, in the order listed, page after page.
    ///
    /// - Throws: What ``listBlobs(after:)`` throws.
    /// - Complexity: One listing of every blob; for the keyring and snapshots, not for syncs.
    public func allBlobNames() async throws -> [String] {
        var names: [String] = []
        var cursor: ExchangeCursor?
        while true {
            let page = try await listBlobs(after: cursor)
            names += page.names
            guard let next = page.cursor, next != cursor, !page.names.isEmpty else { return names }
            cursor = next
        }
    }
}

/// One listing of blobs.
public struct SealedBlobPage: Sendable {
    /// The names, in the order the blobs arrived.
    public var names: [String]
    /// Their sizes in bytes, when the listing gives them.
    public var sizes: [String: Int64]
    /// Where the next listing starts.
    public var cursor: ExchangeCursor?
    /// True when the listing started from the beginning.
    public var isCompleteListing: Bool

    /// Creates a page.
    public init(names: [String], sizes: [String: Int64] = [:], cursor: ExchangeCursor?, isCompleteListing: Bool) {
        self.names = names
        self.sizes = sizes
        self.cursor = cursor
        self.isCompleteListing = isCompleteListing
    }
}

/// Keeps blobs in any exchange, each as a *carrier*: a version named by the blob's name,
/// with no predecessors, timestamp 0, no metadata and one inserted value,
/// ``EncryptedExchange/sealedValueId``, whose data is the blob. Only the parts of the
/// exchange are used (its own sync algorithm never runs), so hand the exchange to nothing
/// else: its `retrieve()` would add the carriers to the store. Writes are not guarded: a
/// directory cannot check a token.
public final class CarrierBlobTransport: SealedBlobTransport {
    /// The exchange that holds the carriers.
    public let exchange: any Exchange

    /// Keeps blobs as carriers in `exchange`.
    public init(_ exchange: any Exchange) {
        self.exchange = exchange
    }

    /// The exchange's batch limit.
    public var maximumBatchByteCount: Int { exchange.maximumBatchByteCount }
    /// Whether the exchange prefers few batches (a WebDAV folder).
    public var prefersFewBatches: Bool { exchange.prefersFewBatches }
    /// The exchange's notifications.
    public var newBlobsAvailable: AsyncStream<Void> { exchange.newVersionsAvailable }

    /// Prepares the exchange.
    ///
    /// - Throws: What the exchange throws.
    public func prepareToRetrieve() async throws { try await exchange.prepareToRetrieve() }

    /// Prepares the exchange.
    ///
    /// - Throws: What the exchange throws.
    public func prepareToSend() async throws { try await exchange.prepareToSend() }

    /// The carriers listed after `cursor`.
    ///
    /// - Throws: What the exchange throws.
    public func listBlobs(after cursor: ExchangeCursor?) async throws -> SealedBlobPage {
        let page = try await exchange.retrieveVersionIdentifiers(after: cursor)
        return SealedBlobPage(names: page.versionIds.map(\.rawValue), cursor: page.cursor, isCompleteListing: page.isCompleteListing)
    }

    /// The carriers' records' value sizes, 1,000 records a request.
    ///
    /// - Throws: What the exchange throws.
    public func blobSizes(named names: [String]) async throws -> [String: Int64] {
        var sizes: [String: Int64] = [:]
        var start = 0
        while start < names.count {
            let slice = names[start..<min(start + 1_000, names.count)]
            for carrier in try await exchange.retrieveVersions(identifiedBy: slice.map { Version.ID($0) }) {
                if let size = carrier.valueDataSize { sizes[carrier.id.rawValue] = max(0, size) }
            }
            start = slice.endIndex
        }
        return sizes
    }

    /// The blobs the carriers hold.
    ///
    /// - Throws: ``EncryptionError/notSealed(name:reason:)`` for a carrier that holds
    ///   anything but one insert of ``EncryptedExchange/sealedValueId``; what the exchange throws.
    public func blobs(named names: [String]) async throws -> [String: Data] {
        guard !names.isEmpty else { return [:] }
        let changes = try await exchange.retrieveValueChanges(forVersionsIdentifiedBy: names.map { Version.ID($0) })
        var blobs: [String: Data] = [:]
        for name in names {
            guard let carried = changes[Version.ID(name)] else { continue }
            blobs[name] = try Self.carriedBytes(name: name, carried)
        }
        return blobs
    }

    /// Sends the blobs as carriers in one call (the token is not used). The exchange refuses
    /// a whole send for one carrier it holds with other bytes (the same version sealed in
    /// another format or epoch, or a blob that is not what its name says): that carrier is
    /// left out and reported, as a blind store reports it, and the rest is sent again (what
    /// the refused call wrote, if anything, are the same bytes, which a send takes again).
    ///
    /// - Returns: The names held already with other bytes.
    /// - Throws: `ExchangeError.conflictingVersion(_:location:)` naming a carrier that is not
    ///   one of `blobs`; what the exchange throws.
    /// - Complexity: One send, and one more for each name held with other bytes.
    public func put(_ blobs: [(name: String, data: Data)], writeToken: Data?) async throws -> [String] {
        var remaining = blobs
        var held: [String] = []
        while true {
            do {
                try await exchange.send(versionChanges: remaining.map { Self.carrier(named: $0.name, holding: $0.data) })
                return held
            } catch ExchangeError.conflictingVersion(let carrier, let location) {
                guard let index = remaining.firstIndex(where: { $0.name == carrier.rawValue }) else {
                    throw ExchangeError.conflictingVersion(carrier, location: location)
                }
                held.append(remaining.remove(at: index).name)
            }
        }
    }

    /// The carriers of `blobs`, as the exchange prepares them to send (a folder encodes their
    /// batch entries): an ``EncryptedExchange`` has this done for each part it seals, while
    /// the next part is read.
    ///
    /// - Throws: What the exchange's `prepare(forSending:)` throws.
    public func prepare(forPutting blobs: [(name: String, data: Data)]) throws -> PreparedBatch? {
        try exchange.prepare(forSending: blobs.map { Self.carrier(named: $0.name, holding: $0.data) })
    }

    /// Sends `blobs` as `prepared` (``prepare(forPutting:)`` of them, or of their parts
    /// joined) holds them, in one call; when `prepared` carries anything but `blobs`, or the
    /// exchange refuses the send for a carrier it holds with other bytes, puts them as
    /// ``put(_:writeToken:)`` does (the token is not used).
    ///
    /// - Returns: The names held already with other bytes.
    /// - Throws: What ``put(_:writeToken:)`` throws.
    public func put(_ blobs: [(name: String, data: Data)], prepared: PreparedBatch, writeToken: Data?) async throws -> [String] {
        let carriesBlobs = prepared.versionChanges.count == blobs.count && zip(prepared.versionChanges, blobs).allSatisfy { carrier, blob in
            carrier.version.id.rawValue == blob.name && (try? Self.carriedBytes(name: blob.name, carrier.valueChanges)) == blob.data
        }
        guard carriesBlobs else { return try await put(blobs, writeToken: writeToken) }
        do {
            try await exchange.send(prepared: prepared)
            return []
        } catch ExchangeError.conflictingVersion {
            return try await put(blobs, writeToken: writeToken)
        }
    }

    /// The bytes a carrier holds: its one inserted value, ``EncryptedExchange/sealedValueId``.
    static func carriedBytes(name: String, _ carrierChanges: [Value.Change]) throws(EncryptionError) -> Data {
        guard carrierChanges.count == 1, case .insert(let value) = carrierChanges[0], value.id == EncryptedExchange.sealedValueId else {
            throw EncryptionError.notSealed(name: name, reason: "it holds \(carrierChanges.count) changes, not the one insert of \"sealed\"")
        }
        return value.data
    }

    /// A carrier named `name` holding `bytes`.
    static func carrier(named name: String, holding bytes: Data) -> VersionChanges {
        (Version(id: Version.ID(name), predecessors: nil, timestamp: 0, valueDataSize: Int64(bytes.count), metadata: [:]),
         [.insert(Value(id: EncryptedExchange.sealedValueId, data: bytes))])
    }
}
