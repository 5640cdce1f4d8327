import Foundation
import LLVSCore
import LLVSMap

extension Store {
    /// The identifier SPEC.md "Merge identity" derives for a merge of `predecessors` whose
    /// record lists `changes` (made to the values of `predecessors.idOfFirst`, as a merge
    /// record's changes are) and `metadata`: what ``merge(version:with:resolvingWith:metadata:)``
    /// names such a merge, whichever predecessor it merged into which. A receiver recomputes
    /// it to check that a merge's record is the one its identifier stands for.
    ///
    /// - Throws: ``StoreError/notAPredecessor(_:of:)`` unless there are two predecessors
    ///   (naming the missing second as the version's own first); ``StoreError/unknownVersion(_:)``
    ///   for a predecessor the store lacks; a storage error.
    /// - Complexity: A walk of the two predecessors' maps where they differ, O(d × log n),
    ///   plus a lookup per changed value.
    public func mergeIdentifier(predecessors: Version.Predecessors, changes: [Value.Change], metadata: Version.Metadata) throws -> Version.ID {
        try derivedMergeIdentifier(predecessors: predecessors, changes: changes, metadata: metadata)
    }

    /// ``mergeIdentifier(predecessors:changes:metadata:)`` with typed errors.
    func derivedMergeIdentifier(predecessors: Version.Predecessors, changes: some Collection<Value.Change>,
                                metadata: Version.Metadata) throws(StoreError) -> Version.ID {
        let first = predecessors.idOfFirst
        guard let second = predecessors.idOfSecond else { throw .notAPredecessor(first, of: first) }
        let firstRoot = try root(of: first), secondRoot = try root(of: second)
        let differences = try withMap { (map, overlay) throws(MapError) in
            try map.differences(from: firstRoot, to: secondRoot, overlay: overlay)
        }
        func outcome(_ reference: Value.Reference?) -> MergeIdentity.Outcome {
            reference.map { .reference($0.storedVersionId) } ?? .absent
        }
        var sides: [Value.ID: (first: MergeIdentity.Outcome, second: MergeIdentity.Outcome)] = [:]
        sides.reserveCapacity(differences.count)
        for difference in differences { sides[difference.valueId] = (outcome(difference.old), outcome(difference.new)) }
        var merged: [Value.ID: MergeIdentity.Outcome] = [:]
        merged.reserveCapacity(changes.count)
        for change in changes { merged[change.valueId] = MergeIdentity.Outcome(change: change) }
        var outcomes: [Value.ID: MergeIdentity.Outcome] = [:]
        for valueId in Set(sides.keys).union(merged.keys) {
            let onFirst: MergeIdentity.Outcome, onSecond: MergeIdentity.Outcome
            if let both = sides[valueId] {
                (onFirst, onSecond) = both
            } else {
                // The predecessors agree on it.
                onFirst = outcome(try reference(of: valueId, at: first))
                onSecond = onFirst
            }
            let outcome = merged[valueId] ?? onFirst
            if MergeIdentity.lists(outcome, first: onFirst, second: onSecond) { outcomes[valueId] = outcome }
        }
        return MergeIdentity.identifier(domain: "llvs-merge-1", predecessors: (first, second), outcomes: outcomes, metadata: metadata)
    }

    /// Whether `version` presents itself as a merge the store made: two predecessors, the
    /// later predecessor's timestamp, and an identifier in the form merge identity gives
    /// (`8-4-4-4-12` upper-case hex digits). A merge made by hand
    /// (``makeVersion(basedOn:storing:metadata:)``) carries its own time; one added with an
    /// identifier of another form (say `s12r0`) is not mistaken for one. Both predecessors
    /// must be in the store.
    func claimsMergeIdentity(_ version: Version) -> Bool {
        guard let predecessors = version.predecessors, let secondId = predecessors.idOfSecond,
              Self.hasMergeIdentifierForm(version.id),
              let first = self.version(identifiedBy: predecessors.idOfFirst), let second = self.version(identifiedBy: secondId) else {
            return false
        }
        return version.timestamp == max(first.timestamp, second.timestamp)
    }

    /// Whether `id` is 36 characters: upper-case hex digits in groups of 8, 4, 4, 4 and 12.
    static func hasMergeIdentifierForm(_ id: Version.ID) -> Bool {
        let utf8 = Array(id.rawValue.utf8)
        guard utf8.count == 36 else { return false }
        for (index, byte) in utf8.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte) else {
                    return false
                }
            }
        }
        return true
    }

    /// Throws unless `version`, when it presents itself as a merge the store made
    /// (``claimsMergeIdentity(_:)``), carries the identifier its record and `changes` derive.
    func checkMergeIdentity(of version: Version, changes: some Collection<Value.Change>) throws(StoreError) {
        guard let predecessors = version.predecessors, claimsMergeIdentity(version) else { return }
        let derived = try derivedMergeIdentifier(predecessors: predecessors, changes: changes, metadata: version.metadata)
        guard derived == version.id else { throw .mergeIdentifierMismatch(version.id, derived: derived) }
    }
}
