import Foundation
import LLVSCore
import LLVSSupport

/// Where a trie node is: its identity (the hash of its logical content), the version whose
/// map pack stores it, and how many value references lie below it.
public struct NodeReference: Hashable, Sendable {
    /// SHA-256 of the node's logical content; equal subtrees have equal hashes.
    public var hash: Digest
    /// The version whose map pack holds the node's bytes.
    public var location: Version.ID
    /// The number of value references in the subtree.
    public var count: Int

    /// Creates a node reference.
    public init(hash: Digest, location: Version.ID, count: Int) {
        self.hash = hash
        self.location = location
        self.count = count
    }
}

/// One value reference in a leaf, with its placement hash.
struct LeafEntry: Sendable, Equatable {
    var keyHash: Digest
    var reference: Value.Reference

    init(_ reference: Value.Reference) {
        self.init(keyHash: Digest.of(reference.valueId), reference: reference)
    }

    init(keyHash: Digest, reference: Value.Reference) {
        self.keyHash = keyHash
        self.reference = reference
    }

    /// Leaf order: placement hash, then identifier bytes (only a SHA-256 collision reaches it).
    static func precedes(_ a: LeafEntry, _ b: LeafEntry) -> Bool {
        a.keyHash != b.keyHash ? a.keyHash < b.keyHash : a.reference.valueId < b.reference.valueId
    }
}

/// A node of the map trie (SPEC.md, "Map index").
///
/// The trie is canonical: the node for a set of entries at depth `d` is a leaf when there
/// are at most ``MapNode/leafCapacity`` entries (or `d` is 64, the end of the hash), and
/// otherwise an interior node whose child `i` holds the entries whose placement hash has
/// nibble `i` at position `d`. So the shape, and every node hash, depend only on the
/// entries — never on the order of the changes that produced them.
enum MapNode: Sendable {
    case leaf([LeafEntry])
    case interior(bitmap: UInt16, children: [NodeReference])

    /// The most entries a leaf holds before it splits.
    static let leafCapacity = 16
    /// The deepest level: a placement hash has 64 nibbles.
    static let maximumDepth = 64

    static let leafTag = UInt8(ascii: "L")
    static let interiorTag = UInt8(ascii: "I")

    /// The number of value references below this node.
    var count: Int {
        switch self {
        case .leaf(let entries): return entries.count
        case .interior(_, let children): return children.reduce(0) { $0 + $1.count }
        }
    }

    /// The child reference at `nibble`, if present.
    static func child(at nibble: Int, bitmap: UInt16, children: [NodeReference]) -> NodeReference? {
        let bit = UInt16(1) << UInt16(nibble)
        guard bitmap & bit != 0 else { return nil }
        return children[(bitmap & (bit &- 1)).nonzeroBitCount]
    }

    /// The stored bytes and the node hash. The hash covers the *logical* content — entries,
    /// or child hashes and counts — and not the child locations appended after it, so a
    /// subtree has one hash wherever its nodes are stored.
    func encoded() -> (bytes: Data, hash: Digest) {
        let (bytes, hash) = encodedBytes()
        return (Data(bytes), hash)
    }

    /// ``encoded()``, the bytes as an array.
    func encodedBytes() -> (bytes: [UInt8], hash: Digest) {
        // Room for UUID identifiers (37 bytes with their length) and short varints, so that
        // the usual node is written without the buffer growing.
        var writer: ByteWriter
        switch self {
        case .leaf(let entries): writer = ByteWriter(capacity: 4 + entries.count * 76)
        case .interior(_, let children): writer = ByteWriter(capacity: 3 + children.count * 75)
        }
        switch self {
        case .leaf(let entries):
            writer.append(Self.leafTag)
            writer.appendVarint(UInt64(entries.count))
            for entry in entries {
                writer.appendIdentifier(entry.reference.valueId)
                writer.appendIdentifier(entry.reference.storedVersionId)
            }
            let hash = Digest(hashing: writer.bytes)
            return (writer.bytes, hash)
        case let .interior(bitmap, children):
            writer.append(Self.interiorTag)
            writer.append(UInt8(bitmap >> 8))
            writer.append(UInt8(bitmap & 0xFF))
            for child in children {
                child.hash.append(to: &writer)
                writer.appendVarint(UInt64(child.count))
            }
            let hash = Digest(hashing: writer.bytes)
            for child in children {
                writer.appendIdentifier(child.location)
            }
            return (writer.bytes, hash)
        }
    }

    /// Decodes stored bytes and returns the node with its hash.
    ///
    /// - Throws: ``MapError/malformedNode(reason:)`` when the bytes are not a valid node.
    static func decode(_ bytes: Data) throws(MapError) -> (node: MapNode, hash: Digest) {
        var reader = ByteReader(bytes)
        do {
            switch try reader.readByte() {
            case leafTag:
                let count = try reader.readCount(limit: reader.remainingCount / 2)
                var entries: [LeafEntry] = []
                entries.reserveCapacity(count)
                for _ in 0..<count {
                    let valueId = try reader.readIdentifier(Value.ID.self)
                    let stored = try reader.readIdentifier(Version.ID.self)
                    entries.append(LeafEntry(Value.Reference(valueId: valueId, storedVersionId: stored)))
                }
                guard reader.isAtEnd else { throw MapError.malformedNode(reason: "\(reader.remainingCount) bytes after the leaf entries") }
                guard zip(entries, entries.dropFirst()).allSatisfy({ LeafEntry.precedes($0, $1) }) else {
                    throw MapError.malformedNode(reason: "leaf entries are not in placement-hash order")
                }
                return (.leaf(entries), Digest(hashing: bytes))
            case interiorTag:
                let bitmap = UInt16(try reader.readByte()) << 8 | UInt16(try reader.readByte())
                guard bitmap.nonzeroBitCount >= 1 else { throw MapError.malformedNode(reason: "interior node without children") }
                var children: [NodeReference] = []
                var total = 0
                for _ in 0..<bitmap.nonzeroBitCount {
                    let hash = try Digest(reading: &reader)
                    let count = try reader.readCount(limit: Int.max)
                    // Counts come from disk or an archive: their sum must be a count too, so
                    // that ``count`` and every total built on it cannot overflow.
                    let (sum, overflow) = total.addingReportingOverflow(count)
                    guard !overflow else { throw MapError.malformedNode(reason: "the child counts add up to more than \(Int.max)") }
                    total = sum
                    children.append(NodeReference(hash: hash, location: "", count: count))
                }
                let hash = Digest(hashing: bytes.prefix(reader.offset))
                for index in children.indices {
                    children[index].location = try reader.readIdentifier(Version.ID.self)
                }
                guard reader.isAtEnd else { throw MapError.malformedNode(reason: "\(reader.remainingCount) bytes after the child locations") }
                return (.interior(bitmap: bitmap, children: children), hash)
            case let tag:
                throw MapError.malformedNode(reason: "unknown node tag \(tag)")
            }
        } catch let error as ByteReader.Error {
            throw MapError.malformedNode(reason: error.description)
        } catch let error as MapError {
            throw error
        } catch {
            throw MapError.malformedNode(reason: "\(error)")
        }
    }
}
