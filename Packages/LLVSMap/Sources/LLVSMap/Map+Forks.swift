import LLVSCore

/// How one value identifier differs between the two versions of a merge, with the
/// references on each side (nil where the value is absent).
public struct MapFork: Sendable, Hashable {
    /// The value identifier.
    public var valueId: Value.ID
    /// The classification (SPEC.md section 3, "Value.Fork", and section 9, "Forks").
    public var fork: Value.Fork
    /// The reference in the common ancestor (nil in a two-way merge or if absent there).
    public var ancestor: Value.Reference?
    /// The reference in the first version.
    public var first: Value.Reference?
    /// The reference in the second version.
    public var second: Value.Reference?
}

extension Map {
    /// Classifies every value identifier that differs between `first` and `second`
    /// relative to `ancestor` (nil for a two-way merge, where everything present counts as
    /// inserted), comparing value references:
    ///
    /// - changed on one side only: `.inserted`, `.updated` or `.removed` of that branch;
    /// - removed on both: `.twiceRemoved`;
    /// - changed on both to the same reference: no fork (the sides agree);
    /// - otherwise: `.twiceInserted` (absent from the ancestor), `.removedAndUpdated`
    ///   (absent from one side), or `.twiceUpdated`.
    ///
    /// Costs two diffs against the ancestor: O(changes × log n).
    ///
    /// - Throws: ``MapError`` when a node is missing or corrupt.
    public func forks(first: NodeReference?, second: NodeReference?, ancestor: NodeReference?,
                      overlay: MapOverlay? = nil) throws(MapError) -> [Value.ID: MapFork] {
        var changedOnFirst: [Value.ID: MapDifference] = [:]
        for difference in try differences(from: ancestor, to: first, overlay: overlay) {
            changedOnFirst[difference.valueId] = difference
        }
        var forks: [Value.ID: MapFork] = [:]
        for onSecond in try differences(from: ancestor, to: second, overlay: overlay) {
            let onFirst = changedOnFirst.removeValue(forKey: onSecond.valueId)
            let firstReference = onFirst.map(\.new) ?? onSecond.old
            guard let fork = Self.classify(ancestor: onSecond.old, first: firstReference, second: onSecond.new,
                                           changedOnFirst: onFirst != nil, changedOnSecond: true) else { continue }
            forks[onSecond.valueId] = MapFork(valueId: onSecond.valueId, fork: fork, ancestor: onSecond.old,
                                              first: firstReference, second: onSecond.new)
        }
        for (valueId, onFirst) in changedOnFirst {
            guard let fork = Self.classify(ancestor: onFirst.old, first: onFirst.new, second: onFirst.old,
                                           changedOnFirst: true, changedOnSecond: false) else { continue }
            forks[valueId] = MapFork(valueId: valueId, fork: fork, ancestor: onFirst.old, first: onFirst.new, second: onFirst.old)
        }
        return forks
    }

    /// The fork for one identifier, or nil when the two sides agree.
    static func classify(ancestor: Value.Reference?, first: Value.Reference?, second: Value.Reference?,
                         changedOnFirst: Bool, changedOnSecond: Bool) -> Value.Fork? {
        switch (changedOnFirst, changedOnSecond) {
        case (true, false):
            return ancestor == nil ? .inserted(.first) : first == nil ? .removed(.first) : .updated(.first)
        case (false, true):
            return ancestor == nil ? .inserted(.second) : second == nil ? .removed(.second) : .updated(.second)
        case (true, true):
            if first == nil, second == nil { return .twiceRemoved }
            if first == second { return nil }
            if ancestor == nil { return .twiceInserted }
            if first == nil { return .removedAndUpdated(removedOn: .first) }
            if second == nil { return .removedAndUpdated(removedOn: .second) }
            return .twiceUpdated
        case (false, false):
            return nil
        }
    }
}
