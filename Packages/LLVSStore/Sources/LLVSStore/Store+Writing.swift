import Foundation
import LLVSCore

extension Store {
    /// Makes a version based on `predecessor` (nil for the first version of a store) that
    /// inserts, updates and removes values. Values not mentioned keep their state from the
    /// predecessor. Updating an absent value inserts it.
    ///
    /// - Returns: The new version.
    /// - Throws: ``StoreError/unknownPredecessor(_:of:)``,
    ///   ``StoreError/conflictingChanges(valueId:)`` when one identifier appears twice (say,
    ///   inserted and removed), or a storage error. Nothing is written for a rejected version.
    @discardableResult
    public func makeVersion(basedOnPredecessor predecessor: Version.ID?, inserting insertedValues: [Value] = [],
                            updating updatedValues: [Value] = [], removing removedIds: [Value.ID] = [],
                            metadata: Version.Metadata = [:]) throws -> Version {
        // The caller's lists are read in place, not copied into a list of changes (a bulk
        // import's million values would otherwise be held twice).
        let changes = ValueChangeList(inserted: insertedValues, updated: updatedValues, removed: removedIds)
        let version = Version(predecessors: predecessor.map { Version.Predecessors(idOfFirst: $0) }, metadata: metadata)
        return try VersionWriter(store: self).write(version, changes: changes).version
    }

    /// Makes a version based on `predecessor` that applies `changes`.
    ///
    /// - Throws: See ``makeVersion(basedOnPredecessor:inserting:updating:removing:metadata:)``;
    ///   also ``StoreError/invalidPreservedReference(_:)`` for a `.preserve` of data outside
    ///   the new version's ancestry.
    @discardableResult
    public func makeVersion(basedOnPredecessor predecessor: Version.ID?, storing changes: [Value.Change],
                            metadata: Version.Metadata = [:]) throws -> Version {
        try makeVersion(basedOn: predecessor.map { Version.Predecessors(idOfFirst: $0) }, storing: changes, metadata: metadata)
    }

    /// Makes a version with the given predecessors (two for a hand-made merge) that applies
    /// `changes` to the map of the first predecessor. For a merge, the changes must bring in
    /// whatever the second predecessor contributes (use ``merge(version:with:resolvingWith:metadata:)``
    /// to have the store work that out).
    ///
    /// - Throws: See ``makeVersion(basedOnPredecessor:storing:metadata:)``.
    @discardableResult
    public func makeVersion(basedOn predecessors: Version.Predecessors?, storing changes: [Value.Change],
                            metadata: Version.Metadata = [:]) throws -> Version {
        try VersionWriter(store: self).write(Version(predecessors: predecessors, metadata: metadata), changes: changes).version
    }

    /// Adds a version made elsewhere — by another store, received through an exchange — with
    /// the changes it made (``valueChanges(madeInVersionIdentifiedBy:)`` of the sender).
    /// Its identifier, timestamp and metadata are kept. Adding a version the store already
    /// has with the same record changes nothing; a stored version is never replaced.
    ///
    /// - Returns: Whether the version was added (false if it was already present).
    /// - Throws: ``StoreError/conflictingVersion(_:)`` when the store holds the identifier
    ///   with other predecessors, timestamp or metadata;
    ///   ``StoreError/unknownPredecessor(_:of:)`` when a predecessor has not been added yet,
    ///   or the errors of ``makeVersion(basedOn:storing:metadata:)``.
    @discardableResult
    public func addVersion(_ version: Version, storing changes: [Value.Change]) throws -> Bool {
        try VersionWriter(store: self).write(version, changes: changes).added
    }

    /// Adds many versions made elsewhere, each as ``addVersion(_:storing:)`` does, in the
    /// order given (a version after its predecessors), with one durable write for all of
    /// them where the backend allows it: the file backend stores every version's items
    /// without waiting for the disk, syncs each zone once, then logs every record with one
    /// append, instead of three syncs per version. Other writes of this store wait
    /// meanwhile. Either every version added is logged when this returns, or, when it
    /// throws, the versions added before the failure are kept on backends that write one
    /// version at a time, and none of the batch's is kept on the file backend.
    ///
    /// With `checkingMergeIdentifiers`, a version that presents itself as a merge the store
    /// made (two predecessors, the later one's timestamp, an identifier in the form of
    /// SPEC.md's "Merge identity") must carry the identifier its predecessors, changes and
    /// metadata derive (``mergeIdentifier(predecessors:changes:metadata:)``), so a record
    /// that is not the merge its identifier stands for is refused before anything of it is
    /// written. A merge made by hand carries its own time and is taken as it is.
    ///
    /// - Returns: For each version, whether it was added (false if it was already present).
    /// - Throws: The errors of ``addVersion(_:storing:)``, for the first version that fails;
    ///   ``StoreError/mergeIdentifierMismatch(_:derived:)`` when checking.
    /// - Complexity: The work of adding each version, plus two syncs and one log append for
    ///   the whole batch on the file backend; when checking, a walk of each merge's
    ///   predecessors' maps where they differ.
    @discardableResult
    public func addVersions(_ versions: [(version: Version, changes: [Value.Change])], checkingMergeIdentifiers: Bool = false) throws -> [Bool] {
        try engine.addInBatch { (batch) throws(StoreError) -> [Bool] in
            var added: [Bool] = []
            added.reserveCapacity(versions.count)
            for (version, changes) in versions {
                added.append(try VersionWriter(store: self).write(version, changes: changes, batch: batch,
                                                                  checkingMergeIdentity: checkingMergeIdentifiers).added)
            }
            return added
        }
    }
}

/// The changes of ``Store/makeVersion(basedOnPredecessor:inserting:updating:removing:metadata:)``
/// as one collection over the caller's three lists: the inserts, then the updates, then the
/// removals.
struct ValueChangeList: RandomAccessCollection {
    let inserted: [Value]
    let updated: [Value]
    let removed: [Value.ID]

    var startIndex: Int { 0 }
    var endIndex: Int { inserted.count + updated.count + removed.count }

    subscript(position: Int) -> Value.Change {
        if position < inserted.count { return .insert(inserted[position]) }
        let updatePosition = position - inserted.count
        if updatePosition < updated.count { return .update(updated[updatePosition]) }
        return .remove(removed[updatePosition - updated.count])
    }
}
