import LLVSCore

/// The version graph of a store: every version, its predecessors and successors, the
/// heads, and the ancestry queries merging needs.
///
/// `History` is a value type (copy-on-write, `Sendable`). A store keeps one and hands it to
/// `queryHistory` callers; tests and tools can build one directly.
///
/// Every version gets a *generation number*: 1 for a version without predecessors, else one
/// more than the largest generation of its predecessors. An ancestor always has a smaller
/// generation than its descendants, so ancestry walks (``isAncestor(_:of:)``,
/// ``mergeBases(_:_:)``) visit versions in decreasing generation with a priority queue and
/// stop once nothing left can matter — the cost is the region between the versions and
/// their bases, independent of how deep the history is (the technique of Git's
/// commit-graph generation numbers).
public struct History: Sendable {
    /// A version with its graph links, stored densely and addressed by index.
    struct Node: Sendable {
        /// The version as added, without its predecessors and successors: the links below
        /// hold them, and ``History/version(at:)`` names them again.
        var version: StoredVersion
        /// Index of the first predecessor, or -1.
        var first: Int32
        /// Index of the second predecessor, or -1.
        var second: Int32
        /// Longest path from a root, counting the root as 1.
        var generation: Int32
        /// Indices of the successors, in the order they were added (the first inline: most
        /// versions have one successor or none, and then no array is allocated).
        var successors: SuccessorIndices

        /// The predecessor indices, first then second (a sequence that does not allocate).
        var predecessors: PredecessorIndices {
            PredecessorIndices(first: first, second: second)
        }
    }

    /// What a node keeps of its version: all but the links (88 bytes a node, not 150).
    struct StoredVersion: Sendable {
        var id: Version.ID
        var timestamp: Double
        var valueDataSize: Int64?
        var metadata: Version.Metadata

        init(_ version: Version) {
            id = version.id
            timestamp = version.timestamp
            valueDataSize = version.valueDataSize
            metadata = version.metadata
        }
    }

    /// A node's successor indices: the first stored inline, any others in an array.
    struct SuccessorIndices: Sequence, Sendable {
        private var first: Int32 = -1
        private var others: [Int32] = []

        /// The number of successors.
        var count: Int { first < 0 ? 0 : 1 + others.count }

        mutating func append(_ index: Int32) {
            if first < 0 { first = index } else { others.append(index) }
        }

        func makeIterator() -> Iterator {
            Iterator(first: first, others: others.makeIterator())
        }

        struct Iterator: IteratorProtocol {
            var first: Int32
            var others: IndexingIterator<[Int32]>

            mutating func next() -> Int32? {
                if first >= 0 {
                    defer { first = -1 }
                    return first
                }
                return others.next()
            }
        }
    }

    var nodes: [Node] = []
    var indexById: [Version.ID: Int32] = [:]

    /// The identifiers of the versions without successors: the tips of all branches.
    public internal(set) var headIdentifiers: Set<Version.ID> = []

    /// The identifiers of the versions without predecessors.
    public internal(set) var rootIdentifiers: Set<Version.ID> = []

    /// Creates an empty history.
    public init() {}

    /// Creates a history holding `versions`, which may come in any order (as when a store
    /// reloads them from disk). Runs in time linear in the number of versions.
    ///
    /// - Throws: ``Error`` for a duplicate version, a predecessor missing from `versions`,
    ///   identical predecessors, a non-finite timestamp, or a cycle.
    public init<S: Sequence>(versions: S) throws where S.Element == Version {
        try add(contentsOf: versions)
    }

    /// The number of versions.
    public var count: Int { nodes.count }

    /// True when the history holds no versions.
    public var isEmpty: Bool { nodes.isEmpty }

    /// The identifiers of all versions, in the order they were added.
    public var allVersionIdentifiers: [Version.ID] {
        nodes.map(\.version.id)
    }

    /// The identifiers of the versions at `positions` in the order they were added, clamped
    /// to the versions there are (an empty array past the end). Versions are only ever
    /// appended, so position `n` keeps naming the same version: a caller that remembers how
    /// many it has seen lists only what came after.
    public func versionIdentifiers(addedAt positions: Range<Int>) -> [Version.ID] {
        let clamped = positions.clamped(to: 0..<nodes.count)
        return nodes[clamped].map(\.version.id)
    }

    /// The position at which the version was added (0 for the first), or nil when it is
    /// not in the history. Positions never change: a caller can keep data of its own for
    /// each version in an array in this order.
    public func position(of id: Version.ID) -> Int? {
        indexById[id].map(Int.init)
    }

    /// True when the history holds a version with this identifier.
    public func contains(_ id: Version.ID) -> Bool {
        indexById[id] != nil
    }

    /// The version with this identifier, with its `Version.successors` filled in, or nil.
    public func version(identifiedBy id: Version.ID) -> Version? {
        indexById[id].map { version(at: $0) }
    }

    /// The identifiers of the versions based directly on `id`.
    ///
    /// - Throws: ``Error/unknownVersion(_:)`` when `id` is not in the history.
    public func successorIdentifiers(of id: Version.ID) throws -> Set<Version.ID> {
        Set(nodes[Int(try index(of: id))].successors.map { nodes[Int($0)].version.id })
    }

    /// The generation number of a version: 1 for a root, else one more than the largest
    /// generation among its predecessors.
    ///
    /// - Throws: ``Error/unknownVersion(_:)`` when `id` is not in the history.
    public func generation(of id: Version.ID) throws -> Int {
        Int(nodes[Int(try index(of: id))].generation)
    }

    /// The head with the latest timestamp; equal timestamps are broken by the greater
    /// identifier (byte order), so every replica picks the same head. Nil when empty.
    public var mostRecentHead: Version? {
        let newest = headIdentifiers.lazy.compactMap { self.indexById[$0] }.max { a, b in
            RecencyKey(self.nodes[Int(a)].version) < RecencyKey(self.nodes[Int(b)].version)
        }
        return newest.map { version(at: $0) }
    }

    // MARK: Internal access

    func index(of id: Version.ID) throws(Error) -> Int32 {
        guard let index = indexById[id] else { throw Error.unknownVersion(id) }
        return index
    }

    func version(at index: Int32) -> Version {
        let node = nodes[Int(index)]
        let predecessors = node.first < 0 ? nil
            : Version.Predecessors(idOfFirst: nodes[Int(node.first)].version.id,
                                   idOfSecond: node.second >= 0 ? nodes[Int(node.second)].version.id : nil)
        var version = Version(id: node.version.id, predecessors: predecessors, timestamp: node.version.timestamp,
                              valueDataSize: node.version.valueDataSize, metadata: node.version.metadata)
        version.successors = Version.Successors(ids: Set(node.successors.map { nodes[Int($0)].version.id }))
        return version
    }
}

/// The zero, one or two predecessor indices of a node.
struct PredecessorIndices: Sequence, IteratorProtocol {
    var first: Int32
    var second: Int32

    mutating func next() -> Int32? {
        guard first >= 0 else { return nil }
        defer { (first, second) = (second, -1) }
        return first
    }
}

/// Orders versions by timestamp, then by identifier: "newest" means greatest.
struct RecencyKey: Comparable {
    var timestamp: Double
    var id: Version.ID

    init(_ version: History.StoredVersion) {
        self.timestamp = version.timestamp
        self.id = version.id
    }

    init(_ version: Version) {
        self.timestamp = version.timestamp
        self.id = version.id
    }

    static func < (lhs: RecencyKey, rhs: RecencyKey) -> Bool {
        lhs.timestamp != rhs.timestamp ? lhs.timestamp < rhs.timestamp : lhs.id < rhs.id
    }
}
