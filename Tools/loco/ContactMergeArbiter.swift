import Foundation
import LLVS

/// Merges concurrent edits of one contact field by field: a field changed on one side only
/// keeps that change; a field changed on both sides takes the more recent side's (later
/// version timestamp, then greater version identifier, so every replica decides alike). An
/// edit beats a concurrent deletion. Values that are not contacts fall back to
/// `MostRecentChangeFavoringArbiter`'s choice.
struct ContactMergeArbiter: MergeArbiter, Sendable {
    func changes(toResolve merge: Merge, in store: AnyMergeContext) throws -> [Value.Change] {
        var changes: [Value.Change] = []
        var unresolved: [Value.ID: Value.Fork] = [:]
        for (valueId, fork) in merge.conflictingForks {
            switch fork {
            case .removedAndUpdated(let removedOn):
                let updated = merge.version(on: removedOn.opposite)
                guard let reference = try store.valueReference(valueId, at: updated.id) else { unresolved[valueId] = fork; continue }
                changes.append(.preserve(reference))
            case .twiceUpdated, .twiceInserted:
                guard let merged = try fieldWiseMerge(valueId, merge, store) else { unresolved[valueId] = fork; continue }
                changes.append(.update(try merged.encodeValue()))
            case .inserted, .removed, .updated, .twiceRemoved:
                break
            }
        }
        guard !unresolved.isEmpty else { return changes }
        var rest = merge
        rest.forksByValueIdentifier = unresolved
        return changes + (try MostRecentChangeFavoringArbiter().changes(toResolve: rest, in: store))
    }

    /// The two sides' contact merged against the common ancestor's, or nil when a side is
    /// not a contact.
    private func fieldWiseMerge(_ valueId: Value.ID, _ merge: Merge, _ store: AnyMergeContext) throws -> Contact? {
        guard let firstValue = try store.value(valueId, at: merge.versions.first.id),
              let secondValue = try store.value(valueId, at: merge.versions.second.id),
              let first = try? Contact(value: firstValue), let second = try? Contact(value: secondValue) else { return nil }
        let ancestor = try merge.commonAncestor.flatMap { try store.value(valueId, at: $0.id) }.flatMap { try? Contact(value: $0) }
        let secondIsNewer = (merge.versions.second.timestamp, merge.versions.second.id) > (merge.versions.first.timestamp, merge.versions.first.id)
        var merged = first
        for field in Contact.fields {
            let base = ancestor?[keyPath: field.path]
            let mine = first[keyPath: field.path], theirs = second[keyPath: field.path]
            if mine == theirs || theirs == base { continue }
            if mine == base || secondIsNewer { merged[keyPath: field.path] = theirs }
        }
        return merged
    }
}
