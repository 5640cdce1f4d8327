import Foundation
import LLVSCore

/// A multi-value register: the state of one key of a `KeyValueDatabase`, a state-based CRDT.
///
/// Every write is an ``Entry`` named by a ``Dot`` (the writing replica's actor and a counter).
/// The register keeps the entries no other write has superseded, and a causal ``context``:
/// for each actor, the highest counter whose writes it has seen. A write replaces every
/// entry it has seen; ``merged(with:)`` keeps an entry unless the other side has seen it and
/// dropped it. Merging is therefore commutative, associative and idempotent, and does not
/// depend on any common ancestor: concurrent writes are all kept, and a later write by anyone
/// who has seen them supersedes them. A delete is a ``Payload/tombstone`` entry, which a
/// reader skips, so it loses to any concurrent write.
///
/// Codable form (canonical JSON, SPEC.md section 16): `{"context": {ACTOR: COUNTER},
/// "entries": [{"actor", "counter", "author", "timestamp", "kind", "text"?, "blob"?}]}`,
/// entries sorted by dot.
public struct MultiValueRegister: Hashable, Sendable, Codable {
    /// The name of one write: the replica that made it and its counter there.
    public struct Dot: Hashable, Comparable, Sendable {
        /// The writing replica (each open database is its own actor).
        public var actor: String
        /// The write's position among the actor's writes to this key, from 1.
        public var counter: UInt64

        /// Creates a dot.
        public init(actor: String, counter: UInt64) {
            self.actor = actor
            self.counter = counter
        }

        /// Orders dots by actor (UTF-8 bytes), then counter.
        public static func < (lhs: Dot, rhs: Dot) -> Bool {
            lhs.actor != rhs.actor ? lhs.actor.utf8.lexicographicallyPrecedes(rhs.actor.utf8) : lhs.counter < rhs.counter
        }
    }

    /// What a write stored.
    public enum Payload: Hashable, Sendable {
        /// A text value.
        case text(String)
        /// A JSON document, kept as its text.
        case json(String)
        /// Bytes.
        case blob(Data)
        /// A delete.
        case tombstone

        /// The name of the case in the Codable form.
        public var kind: String {
            switch self {
            case .text: return "text"
            case .json: return "json"
            case .blob: return "blob"
            case .tombstone: return "tombstone"
            }
        }
    }

    /// One write: its dot, author, time and payload.
    public struct Entry: Hashable, Sendable, Codable {
        /// The write's name.
        public var dot: Dot
        /// The author who wrote it.
        public var authorId: UUID
        /// When it was written, in seconds since 2001-01-01T00:00:00Z.
        public var timestamp: TimeInterval
        /// What was written.
        public var payload: Payload

        /// Creates an entry.
        public init(dot: Dot, authorId: UUID, timestamp: TimeInterval, payload: Payload) {
            self.dot = dot
            self.authorId = authorId
            self.timestamp = timestamp
            self.payload = payload
        }

        /// True unless the entry is a delete.
        public var isLive: Bool { payload != .tombstone }

        private enum CodingKeys: String, CodingKey {
            case actor, counter, author, timestamp, kind, text, blob
        }

        /// Decodes an entry.
        ///
        /// - Throws: `DecodingError` for a missing field, an unknown kind or a non-finite time.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            dot = Dot(actor: try container.decode(String.self, forKey: .actor), counter: try container.decode(UInt64.self, forKey: .counter))
            guard dot.counter <= MultiValueRegister.maximumCounter else {
                throw DecodingError.dataCorruptedError(forKey: .counter, in: container, debugDescription: "The counter \(dot.counter) is above 2^53.")
            }
            authorId = try container.decode(UUID.self, forKey: .author)
            timestamp = try container.decode(TimeInterval.self, forKey: .timestamp)
            guard timestamp.isFinite else {
                throw DecodingError.dataCorruptedError(forKey: .timestamp, in: container, debugDescription: "The timestamp is not finite.")
            }
            switch try container.decode(String.self, forKey: .kind) {
            case "text": payload = .text(try container.decode(String.self, forKey: .text))
            case "json": payload = .json(try container.decode(String.self, forKey: .text))
            case "blob": payload = .blob(try container.decode(Data.self, forKey: .blob))
            case "tombstone": payload = .tombstone
            case let other:
                throw DecodingError.dataCorruptedError(forKey: .kind, in: container, debugDescription: "Unknown entry kind '\(other)'.")
            }
        }

        /// Encodes the entry.
        ///
        /// - Throws: Whatever the encoder throws.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(dot.actor, forKey: .actor)
            try container.encode(dot.counter, forKey: .counter)
            try container.encode(authorId, forKey: .author)
            try container.encode(timestamp, forKey: .timestamp)
            try container.encode(payload.kind, forKey: .kind)
            switch payload {
            case .text(let text), .json(let text): try container.encode(text, forKey: .text)
            case .blob(let data): try container.encode(data, forKey: .blob)
            case .tombstone: break
            }
        }
    }

    /// The entries no seen write has superseded, sorted by dot. Tombstones included.
    public private(set) var entries: [Entry]

    /// For each actor, the highest counter of its writes this state has seen.
    public private(set) var context: [String: UInt64]

    /// An empty register: no entries, nothing seen.
    public init() {
        entries = []
        context = [:]
    }

    /// The entries that are not deletes.
    public var liveEntries: [Entry] {
        entries.filter(\.isLive)
    }

    /// True when this state has seen the write named `dot`.
    public func hasSeen(_ dot: Dot) -> Bool {
        (context[dot.actor] ?? 0) >= dot.counter
    }

    /// Records a write by `actor` that supersedes every entry: the register then holds only
    /// the new entry.
    ///
    /// - Returns: The new entry.
    @discardableResult
    public mutating func assign(_ payload: Payload, actor: String, authorId: UUID, timestamp: TimeInterval) -> Entry {
        let counter = (context[actor] ?? 0) + 1
        let entry = Entry(dot: Dot(actor: actor, counter: counter), authorId: authorId, timestamp: timestamp, payload: payload)
        context[actor] = counter
        entries = [entry]
        return entry
    }

    /// This state without its delete entries, keeping everything it has seen: a join with
    /// a state that still holds one of those deletes drops it again.
    public func withoutTombstones() -> MultiValueRegister {
        var result = self
        result.entries = entries.filter(\.isLive)
        return result
    }

    /// The join of two states: an entry of either side is kept when the other side holds it
    /// too or has not seen it; the contexts combine by taking the highest counter per actor.
    public func merged(with other: MultiValueRegister) -> MultiValueRegister {
        let otherDots = Set(other.entries.map(\.dot)), ownDots = Set(entries.map(\.dot))
        var kept = Set(entries.filter { otherDots.contains($0.dot) || !other.hasSeen($0.dot) })
        kept.formUnion(other.entries.filter { ownDots.contains($0.dot) || !hasSeen($0.dot) })
        var result = MultiValueRegister()
        result.entries = Self.canonicalOrder(kept)
        result.context = context.merging(other.context, uniquingKeysWith: max)
        return result
    }

    /// Entries in canonical order: by dot, then (for the corrupt case of one dot naming two
    /// different writes) by their canonical JSON, so merges stay deterministic.
    static func canonicalOrder<S: Sequence>(_ entries: S) -> [Entry] where S.Element == Entry {
        entries.sorted { a, b in
            if a.dot != b.dot { return a.dot < b.dot }
            let first = (try? CanonicalJSON.encode(a)) ?? Data(), second = (try? CanonicalJSON.encode(b)) ?? Data()
            return first.lexicographicallyPrecedes(second)
        }
    }

    private enum CodingKeys: String, CodingKey {
        case context, entries
    }

    /// The largest counter a register may hold: 2⁵³, the largest integer every JSON reader
    /// holds exactly (SPEC.md sections 2 and 16). It also keeps a write's next counter
    /// from overflowing, whatever context a peer sent.
    public static let maximumCounter: UInt64 = 1 << 53

    /// Decodes a register and puts its entries in canonical order.
    ///
    /// - Throws: `DecodingError` for a malformed register, a counter above
    ///   ``maximumCounter``, or an entry whose dot its own context has not seen.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        context = try container.decode([String: UInt64].self, forKey: .context)
        if let (actor, counter) = context.first(where: { $0.value > Self.maximumCounter }) {
            throw DecodingError.dataCorruptedError(forKey: .context, in: container,
                                                   debugDescription: "The context counter \(counter) of \(actor) is above 2^53.")
        }
        entries = Self.canonicalOrder(try container.decode([Entry].self, forKey: .entries))
        if let unseen = entries.first(where: { !hasSeen($0.dot) }) {
            throw DecodingError.dataCorruptedError(
                forKey: .entries, in: container,
                debugDescription: "Entry \(unseen.dot.actor)#\(unseen.dot.counter) is missing from the register's context.")
        }
    }

    /// Encodes the register.
    ///
    /// - Throws: Whatever the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(context, forKey: .context)
        try container.encode(entries, forKey: .entries)
    }

    /// The register's canonical JSON: equal registers give equal bytes.
    ///
    /// - Throws: `EncodingError` (not expected for a register).
    public func encoded() throws -> Data {
        try CanonicalJSON.encode(self)
    }

    /// Decodes the register stored as value data.
    ///
    /// - Throws: ``MultiValueRegisterError/undecodable(valueId:reason:)``.
    public init(decoding data: Data, valueId: Value.ID) throws(MultiValueRegisterError) {
        do {
            self = try CanonicalJSON.decode(MultiValueRegister.self, from: data)
        } catch {
            throw .undecodable(valueId: valueId, reason: "\(error)")
        }
    }
}

/// Why a stored value could not be read as a ``MultiValueRegister``.
public enum MultiValueRegisterError: Error, Hashable, CustomStringConvertible {
    /// The data of `valueId` is not a register; `reason` says what is wrong.
    case undecodable(valueId: Value.ID, reason: String)

    /// A sentence naming the value.
    public var description: String {
        switch self {
        case let .undecodable(valueId, reason):
            return "Value \(valueId) is not a multi-value register: \(reason)"
        }
    }
}
