import LLVSCore

/// Resolves merges of stores whose values are ``MultiValueRegister``s (the stores of
/// `KeyValueDatabase`): a key written on both sides gets the join of the two registers, so
/// every concurrent value is kept with its author and timestamp, and every value one side
/// superseded after seeing it is dropped. The join needs no common ancestor, so the result
/// is the same whichever version is first, and for any merge order or criss-cross history.
///
/// A value removed from the store on one side (which `KeyValueDatabase` never does: deletes
/// are tombstone entries) loses to the update on the other.
public final class MultiValueRegisterArbiter: MergeArbiter, Sendable {
    /// Creates the arbiter.
    public init() {}

    /// The changes that resolve every conflicting fork of `merge` by joining registers.
    ///
    /// - Throws: ``MergeArbiterError`` when a value or version is missing, and
    ///   ``MultiValueRegisterError`` when a value is not a register.
    public func changes(toResolve merge: Merge, in store: AnyMergeContext) throws -> [Value.Change] {
        var changes: [Value.Change] = []
        for (valueId, fork) in merge.conflictingForks {
            switch fork {
            case .removedAndUpdated(let removedOn):
                changes.append(.preserve(try store.requiredReference(valueId, at: merge.version(on: removedOn.opposite).id)))
            case .twiceInserted, .twiceUpdated:
                let first = try store.requiredValue(valueId, at: merge.versions.first.id)
                let second = try store.requiredValue(valueId, at: merge.versions.second.id)
                changes.append(try Self.join(first, second))
            case .inserted, .removed, .updated, .twiceRemoved:
                break
            }
        }
        return changes
    }

    /// The change storing the join of two stored registers; it keeps a side's stored data
    /// when the join equals that side.
    static func join(_ first: Value, _ second: Value) throws -> Value.Change {
        let firstRegister = try MultiValueRegister(decoding: first.data, valueId: first.id)
        let secondRegister = try MultiValueRegister(decoding: second.data, valueId: second.id)
        let joined = firstRegister.merged(with: secondRegister)
        if joined == firstRegister, let reference = first.reference { return .preserve(reference) }
        if joined == secondRegister, let reference = second.reference { return .preserve(reference) }
        return .update(Value(id: first.id, data: try joined.encoded()))
    }
}
