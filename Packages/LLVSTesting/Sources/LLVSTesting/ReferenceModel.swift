import Foundation
import LLVSCore

/// The oracle for merges: a deliberately naive model of a store that keeps the complete
/// dictionary of values of every version and merges by brute force — ancestor sets for the
/// common ancestors, a textbook per-key three-way merge, and the built-in arbiters' rules
/// written again from their documentation. It shares no merge code with the store, so an
/// agreement between the two is evidence, not tautology.
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
    }

    /// The conflict rules of the built-in arbiters.
    public enum ArbiterRule: String, Codable, Hashable, Sendable, CaseIterable {
        /// `MostRecentChangeFavoringArbiter`: an update beats a removal; otherwise the value
        /// stored by the newer version wins.
        case mostRecentChange
        /// `MostRecentBranchFavoringArbiter`: the newer branch's choice wins every conflict.
        case mostRecentBranch
    }

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
    public func bestCommonAncestors(of first: [Version.ID], and second: [Version.ID]) -> [Version.ID] {
        let common = first.reduce(into: Set<Version.ID>()) { $0.formUnion(ancestors(of: $1)) }
            .intersection(second.reduce(into: Set<Version.ID>()) { $0.formUnion(ancestors(of: $1)) })
        let belowOthers = common.reduce(into: Set<Version.ID>()) { result, member in
            result.formUnion(ancestors(of: member).subtracting([member]))
        }
        return common.subtracting(belowOthers).sorted()
    }

    /// The values of the merge of `first` and `second` (neither an ancestor of the other)
    /// under `rule`: against their single best common ancestor, against a virtual ancestor
    /// when they have several (the bases merged pairwise in identifier order, recursively),
    /// or against nothing when they have none.
    public func mergedValues(first: Version.ID, second: Version.ID, rule: ArbiterRule) -> [Value.ID: StoredValue] {
        guard let firstVersion = versions[first], let secondVersion = versions[second] else { return [:] }
        var scratch = self
        let ancestor = scratch.ancestorValues(for: bestCommonAncestors(of: [first], and: [second]), rule: rule)
        return threeWay(firstVersion, secondVersion, ancestor: ancestor, rule: rule)
    }

    private mutating func ancestorValues(for bases: [Version.ID], rule: ArbiterRule) -> [Value.ID: StoredValue] {
        guard var accumulated = bases.first.flatMap({ versions[$0] }) else { return [:] }
        var members = [accumulated.id]
        for next in bases.dropFirst() {
            guard let nextVersion = versions[next] else { continue }
            let ancestor = ancestorValues(for: bestCommonAncestors(of: members, and: [next]), rule: rule)
            var virtual = ModelVersion(id: Version.ID("virtual-\(members.count)-\(next)"), predecessors: [], timestamp: max(accumulated.timestamp, nextVersion.timestamp),
                                       values: threeWay(accumulated, nextVersion, ancestor: ancestor, rule: rule))
            virtual.isVirtual = true
            accumulated = virtual
            members.append(next)
        }
        return accumulated.values
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
                }
            }
            result[valueId] = merged
        }
        return result
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
