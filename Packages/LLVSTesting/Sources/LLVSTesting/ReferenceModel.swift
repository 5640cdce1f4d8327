import Crypto
import Foundation
import LLVSCore

/// The oracle for merges: a deliberately naive model of a store that keeps the complete
/// dictionary of values of every version and merges by brute force — ancestor sets for the
/// common ancestors, a textbook per-key three-way merge, and the built-in arbiters' rules
/// written again from their documentation, and merge identifiers computed from the words of
/// SPEC.md section 9. It shares no merge code with the store, so an agreement between the
/// two is evidence, not tautology.
public struct ReferenceModel: Sendable {
    /// A value as the model knows it: its data and the version that stored it.
    public struct StoredValue: Hashable, Sendable {
        /// The value's data.
        public var data: Data
        /// The version whose changes stored this data.
        public var storedBy: Version.ID

        /// Creates a stored value.
        public init(data: Data, storedBy: Version.ID) {
            self.data = data
            self.storedBy = storedBy
        }
    }

    /// A version of the model: its place in the graph and its full dictionary.
    public struct ModelVersion: Sendable {
        /// The version's identifier.
        public var id: Version.ID
        /// Its predecessors, first then second.
        public var predecessors: [Version.ID]
        /// Its timestamp.
        public var timestamp: Double
        /// Every value at the version.
        public var values: [Value.ID: StoredValue]
        /// True for a virtual ancestor (never in a store); such versions order after every
        /// real version of equal timestamp, as the store's `virtual-…` identifiers do.
        public var isVirtual = false

        /// The same version under another identifier: data it stored is stored by `id`.
        public func renamed(to id: Version.ID) -> ModelVersion {
            var copy = self
            copy.id = id
            copy.values = values.mapValues { $0.storedBy == self.id ? StoredValue(data: $0.data, storedBy: id) : $0 }
            return copy
        }
    }

    /// The conflict rules of the built-in arbiters.
    public enum ArbiterRule: String, Codable, Hashable, Sendable, CaseIterable {
        /// `MostRecentChangeFavoringArbiter`: an update beats a removal; otherwise the value
        /// stored by the newer version wins.
        case mostRecentChange
        /// `MostRecentBranchFavoringArbiter`: the newer branch's choice wins every conflict.
        case mostRecentBranch
        /// `BranchFavoringArbiter(favoring: .first)`: the version merged into wins every
        /// conflict, so the result depends on the argument order (Git's "ours").
        case favorFirst
        /// `BranchFavoringArbiter(favoring: .second)`: the version merged in wins.
        case favorSecond
        /// An arbiter that writes new data: each conflict gets the
        /// ``ReferenceModel/concatenation(_:_:)`` of both sides' data, stored by the merge.
        case concatenate
    }

    /// The data the ``ArbiterRule/concatenate`` rule writes for a conflict: both sides'
    /// data (`-` for an absent side) in byte order, joined by `|`, so it does not depend on
    /// which side is which.
    public static func concatenation(_ first: Data?, _ second: Data?) -> Data {
        let sides = [first ?? Data("-".utf8), second ?? Data("-".utf8)].sorted { $0.lexicographicallyPrecedes($1) }
        return sides[0] + Data("|".utf8) + sides[1]
    }

    /// The stand-in storing version of data a merge writes, until its identifier is known.
    static let writtenByThisMerge = Version.ID("<written by this merge>")

    /// Every version, by identifier.
    public private(set) var versions: [Version.ID: ModelVersion] = [:]

    /// Creates an empty model.
    public init() {}

    /// Adds a version that applies `changes` (new data, or nil to remove) to the values of
    /// its first predecessor (or to nothing).
    public mutating func addVersion(id: Version.ID, predecessors: [Version.ID], timestamp: Double, changes: [Value.ID: Data?]) {
        var values = predecessors.first.flatMap { versions[$0]?.values } ?? [:]
        for (valueId, data) in changes {
            values[valueId] = data.map { StoredValue(data: $0, storedBy: id) }
        }
        versions[id] = ModelVersion(id: id, predecessors: predecessors, timestamp: timestamp, values: values)
    }

    /// Records a merge version whose values the model computed.
    public mutating func addMerge(id: Version.ID, first: Version.ID, second: Version.ID, timestamp: Double,
                                  values: [Value.ID: StoredValue]) {
        versions[id] = ModelVersion(id: id, predecessors: [first, second], timestamp: timestamp, values: values)
    }

    /// Records a version the model made, such as a result of ``merge(first:second:rule:metadata:)``.
    public mutating func add(_ version: ModelVersion) {
        versions[version.id] = version
    }

    /// Every ancestor of `id`, including `id` itself.
    public func ancestors(of id: Version.ID) -> Set<Version.ID> {
        var result: Set<Version.ID> = []
        var stack = [id]
        while let next = stack.popLast() {
            guard result.insert(next).inserted else { continue }
            stack.append(contentsOf: versions[next]?.predecessors ?? [])
        }
        return result
    }

    /// True when `ancestor` is `descendant` or one of its ancestors.
    public func isAncestorOrSelf(_ ancestor: Version.ID, of descendant: Version.ID) -> Bool {
        ancestors(of: descendant).contains(ancestor)
    }

    /// The common ancestors of two sets of versions that are not ancestors of another
    /// common ancestor, sorted by identifier.
    ///
    /// The common ancestors are the intersection of the two ancestor sets. Since that set
    /// holds every ancestor of each of its members, a member is an ancestor of another
    /// exactly when it is a predecessor of one: the best are those no member lists as a
    /// predecessor.
    ///
    /// - Complexity: O(*n*) in the versions below `first` and `second`.
    public func bestCommonAncestors(of first: [Version.ID], and second: [Version.ID]) -> [Version.ID] {
        let common = first.reduce(into: Set<Version.ID>()) { $0.formUnion(ancestors(of: $1)) }
            .intersection(second.reduce(into: Set<Version.ID>()) { $0.formUnion(ancestors(of: $1)) })
        let belowOthers = common.reduce(into: Set<Version.ID>()) { result, member in
            result.formUnion(versions[member]?.predecessors ?? [])
        }
        return common.subtracting(belowOthers).sorted()
    }

    /// The values of the merge of `first` and `second` (neither an ancestor of the other)
    /// under `rule`: against their single best common ancestor, against a virtual ancestor
    /// when they have several (the bases merged pairwise in identifier order, each step
    /// against the virtual ancestor of its own bases, recursively), or against nothing when
    /// they have none. Data the arbiter writes is stored by the merge, whose identifier
    /// ``merge(first:second:rule:metadata:)`` gives.
    public func mergedValues(first: Version.ID, second: Version.ID, rule: ArbiterRule) -> [Value.ID: StoredValue] {
        merge(first: first, second: second, rule: rule)?.values ?? [:]
    }

    /// The merge version of `first` and `second` under `rule`, as SPEC.md section 9 says a
    /// store makes it: its identifier from the merge-identity formula, its predecessors in
    /// byte order of their identifiers, the later timestamp and its values. Nil when either
    /// version is unknown.
    public func merge(first: Version.ID, second: Version.ID, rule: ArbiterRule,
                      metadata: [String: Data] = [:]) -> ModelVersion? {
        guard let firstVersion = versions[first], let secondVersion = versions[second] else { return nil }
        var memo: [[Version.ID]: ModelVersion] = [:]
        let ancestor = ancestorValues(for: bestCommonAncestors(of: [first], and: [second]), rule: rule, memo: &memo)
        var merged = resolved(firstVersion, secondVersion, ancestor: ancestor, rule: rule, metadata: metadata, virtual: false)
        merged.predecessors.sort { Self.bytePrecedes($0, $1) }
        return merged
    }

    /// The most times a merge of `first` and `second` may call its arbiter when each
    /// virtual ancestor is made once per set of bases (SPEC.md section 9, "Several merge
    /// bases"): once for the merge, and once per pairwise step of every distinct set of two
    /// or more bases met below it — the bases of `first` and `second`, then those of each
    /// step of merging a set in identifier order (of its first members and the next one).
    ///
    /// - Complexity: one brute-force merge-base computation per step.
    public func arbiterCallBound(first: Version.ID, second: Version.ID) -> Int {
        var seen: Set<[Version.ID]> = []
        var pending = [bestCommonAncestors(of: [first], and: [second])]
        var calls = 1
        while let bases = pending.popLast() {
            guard bases.count > 1, seen.insert(bases).inserted else { continue }
            calls += bases.count - 1
            for index in 1..<bases.count {
                pending.append(bestCommonAncestors(of: Array(bases[..<index]), and: [bases[index]]))
            }
        }
        return calls
    }

    /// The values of the virtual ancestor of `bases` (none: empty; one: its values),
    /// memoized per set of bases for the duration of one merge.
    private func ancestorValues(for bases: [Version.ID], rule: ArbiterRule,
                                memo: inout [[Version.ID]: ModelVersion]) -> [Value.ID: StoredValue] {
        virtualAncestor(of: bases, rule: rule, memo: &memo)?.values ?? [:]
    }

    /// The virtual ancestor of `bases`: the bases merged pairwise in identifier order, each
    /// step against the virtual ancestor of its own bases. Those are made first, from a
    /// work list rather than by recursion (a ladder is thousands of levels deep); every
    /// prefix of a set is memoized.
    private func virtualAncestor(of bases: [Version.ID], rule: ArbiterRule, memo: inout [[Version.ID]: ModelVersion]) -> ModelVersion? {
        let top = bases.sorted()
        guard top.count > 1 else { return top.first.flatMap { versions[$0] } }
        var pending = [top]
        while let set = pending.last {
            guard var accumulated = versions[set[0]] else { return nil }
            var members = [set[0]]
            var needed: [Version.ID]?
            for next in set.dropFirst() {
                members.append(next)
                if let known = memo[members] {
                    accumulated = known
                    continue
                }
                guard let nextVersion = versions[next] else { return nil }
                let inner = bestCommonAncestors(of: Array(members.dropLast()), and: [next])
                if inner.count > 1, memo[inner] == nil {
                    needed = inner
                    break
                }
                let ancestor = inner.count > 1 ? memo[inner]?.values ?? [:] : inner.first.flatMap { versions[$0]?.values } ?? [:]
                accumulated = resolved(accumulated, nextVersion, ancestor: ancestor, rule: rule, metadata: [:], virtual: true)
                memo[members] = accumulated
            }
            if let needed { pending.append(needed) } else { pending.removeLast() }
        }
        return memo[top]
    }

    /// The three-way merge of two versions against `ancestor`, with its identifier.
    private func resolved(_ first: ModelVersion, _ second: ModelVersion, ancestor: [Value.ID: StoredValue], rule: ArbiterRule,
                          metadata: [String: Data], virtual: Bool) -> ModelVersion {
        var values = threeWay(first, second, ancestor: ancestor, rule: rule)
        let id = Self.mergeIdentifier(predecessors: (first.id, second.id), first: first.values, second: second.values,
                                      merged: values, metadata: metadata, virtual: virtual)
        for (valueId, value) in values where value.storedBy == Self.writtenByThisMerge {
            values[valueId] = StoredValue(data: value.data, storedBy: id)
        }
        var version = ModelVersion(id: id, predecessors: [first.id, second.id], timestamp: max(first.timestamp, second.timestamp),
                                   values: values)
        version.isVirtual = virtual
        return version
    }

    /// The textbook per-key three-way merge: equal sides agree; a side equal to the
    /// ancestor takes the other side; anything else is a conflict for the arbiter rule.
    func threeWay(_ first: ModelVersion, _ second: ModelVersion, ancestor: [Value.ID: StoredValue],
                  rule: ArbiterRule) -> [Value.ID: StoredValue] {
        var result: [Value.ID: StoredValue] = [:]
        let firstIsNewer = Self.isNewer(first, than: second)
        for valueId in Set(first.values.keys).union(second.values.keys).union(ancestor.keys) {
            let o = ancestor[valueId], a = first.values[valueId], b = second.values[valueId]
            let merged: StoredValue?
            if a == b { merged = a }
            else if a == o { merged = b }
            else if b == o { merged = a }
            else {
                switch rule {
                case .mostRecentBranch:
                    merged = firstIsNewer ? a : b
                case .mostRecentChange:
                    if let a, let b {
                        merged = storedMoreRecently(a, than: b) ? a : b
                    } else {
                        merged = a ?? b
                    }
                case .favorFirst:
                    merged = a
                case .favorSecond:
                    merged = b
                case .concatenate:
                    merged = StoredValue(data: Self.concatenation(a?.data, b?.data), storedBy: Self.writtenByThisMerge)
                }
            }
            result[valueId] = merged
        }
        return result
    }

    /// A merge identifier from the words of SPEC.md section 9 ("Merge identity"): SHA-256
    /// over the domain, the two predecessors in byte order, every value whose outcome is
    /// not the same in the merge and both predecessors, and the metadata.
    public static func mergeIdentifier(predecessors: (Version.ID, Version.ID), first: [Value.ID: StoredValue],
                                       second: [Value.ID: StoredValue], merged: [Value.ID: StoredValue],
                                       metadata: [String: Data], virtual: Bool) -> Version.ID {
        enum Outcome: Equatable { case absent, stored(Version.ID), new(Data) }
        func outcome(_ value: StoredValue?, inMerge: Bool) -> Outcome {
            guard let value else { return .absent }
            return inMerge && value.storedBy == writtenByThisMerge ? .new(value.data) : .stored(value.storedBy)
        }
        var body = ModelBytes()
        body.string(virtual ? "llvs-virtual-merge-1" : "llvs-merge-1")
        body.varint(2)
        for id in [predecessors.0, predecessors.1].sorted(by: bytePrecedes) { body.string(id.rawValue) }
        let listed = Set(first.keys).union(second.keys).union(merged.keys).filter { valueId in
            let m = outcome(merged[valueId], inMerge: true)
            return !(m == outcome(first[valueId], inMerge: false) && m == outcome(second[valueId], inMerge: false))
        }
        body.varint(listed.count)
        for valueId in listed.sorted(by: { Array($0.rawValue.utf8).lexicographicallyPrecedes(Array($1.rawValue.utf8)) }) {
            body.string(valueId.rawValue)
            switch outcome(merged[valueId], inMerge: true) {
            case .absent: body.bytes.append(0)
            case .stored(let version):
                body.bytes.append(1)
                body.string(version.rawValue)
            case .new(let data):
                body.bytes.append(2)
                body.bytes.append(contentsOf: SHA256.hash(data: data))
            }
        }
        body.varint(metadata.count)
        for (key, value) in metadata.sorted(by: { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }) {
            body.string(key)
            body.varint(value.count)
            body.bytes.append(contentsOf: value)
        }
        let hex = SHA256.hash(data: body.bytes).prefix(16).map { String(format: "%02X", $0) }.joined()
        let characters = Array(hex)
        let groups = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }
        return Version.ID((virtual ? "virtual-" : "") + groups.joined(separator: "-"))
    }

    /// Byte order of identifiers (UTF-8), the order SPEC.md uses for predecessors.
    static func bytePrecedes(_ a: Version.ID, _ b: Version.ID) -> Bool {
        Array(a.rawValue.utf8).lexicographicallyPrecedes(Array(b.rawValue.utf8))
    }

    /// Branch recency: timestamp, then virtual after real, then identifier.
    static func isNewer(_ a: ModelVersion, than b: ModelVersion) -> Bool {
        if a.timestamp != b.timestamp { return a.timestamp > b.timestamp }
        if a.isVirtual != b.isVirtual { return a.isVirtual }
        return a.id > b.id
    }

    /// Change recency: the timestamp of the version that stored each value, then its
    /// identifier.
    private func storedMoreRecently(_ a: StoredValue, than b: StoredValue) -> Bool {
        let aTime = versions[a.storedBy]?.timestamp ?? -.infinity, bTime = versions[b.storedBy]?.timestamp ?? -.infinity
        return aTime != bTime ? aTime > bTime : a.storedBy > b.storedBy
    }
}

/// The byte strings of SPEC.md section 8, written again for the model: a varint is LEB128,
/// a string its UTF-8 byte count as a varint and the bytes.
struct ModelBytes {
    var bytes: [UInt8] = []

    mutating func varint(_ value: Int) {
        var rest = UInt64(value)
        while rest >= 0x80 {
            bytes.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    mutating func string(_ text: String) {
        varint(text.utf8.count)
        bytes.append(contentsOf: text.utf8)
    }
}
