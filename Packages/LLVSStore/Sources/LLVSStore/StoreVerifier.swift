import Foundation
import LLVSCore
import LLVSHistory
import LLVSMap
import LLVSZones

/// The checks of one ``Store/verify(progress:)`` run over a snapshot of the history and map
/// roots. Every error is caught where it happens and recorded as a problem naming the
/// version (and value), so one damaged item never hides the others.
///
/// Map nodes are read through a map of its own (a cold node cache: every node it needs is
/// read from the zone and checked against its hash again), and both zones through a
/// ``FailureRememberingZone``.
struct StoreVerifier {
    let state: StoreEngine.State
    var history: History { state.history }
    let map: Map
    let values: FailureRememberingZone
    private(set) var report = StoreVerificationReport()
    /// The references whose data this run has read (or failed to read).
    private var readReferences: Set<ReferenceFingerprint> = []

    init(state: StoreEngine.State, zones: StoreZones) {
        self.state = state
        self.map = Map(zone: FailureRememberingZone(zones.maps))
        self.values = FailureRememberingZone(zones.values)
    }

    /// Adds a problem to the report.
    mutating func record(_ reason: String, version: Version.ID? = nil, value: Value.ID? = nil) {
        report.problems.append(.init(versionId: version, valueId: value, reason: reason))
    }

    // MARK: Versions

    /// Checks what `version` changed relative to its first predecessor — the map nodes that
    /// differ, the data of every value it stored (whose sizes must add up to its recorded
    /// `valueDataSize`), and every reference it took from elsewhere (stored by an ancestor,
    /// data readable) — as `valueChanges(madeInVersionIdentifiedBy:)` sees them. A root
    /// version's whole map is new, so it is read completely.
    mutating func check(_ version: Version) {
        report.versionsChecked += 1
        let base = version.predecessors.flatMap { state.root(of: $0.idOfFirst) }
        let differences: [MapDifference]
        do {
            differences = try map.differences(from: base, to: state.root(of: version.id))
        } catch {
            record(StoreError.map(error).description, version: version.id)
            return
        }
        var storedByteCount: Int64 = 0
        var everyStoredValueRead = true
        for difference in differences {
            guard let new = difference.new else { continue }
            if new.storedVersionId == version.id {
                if let count = readStoredValue(new) { storedByteCount += Int64(count) } else { everyStoredValueRead = false }
            } else {
                checkCarried(new, in: version.id, secondPredecessor: version.predecessors?.idOfSecond)
            }
        }
        if everyStoredValueRead, let recorded = version.valueDataSize, recorded != storedByteCount {
            record(VerificationFinding.valueDataSizeMismatch(recorded: recorded, found: storedByteCount).description, version: version.id)
        }
    }

    /// Reads the data a version stored; its size, or nil after recording a problem.
    private mutating func readStoredValue(_ reference: Value.Reference) -> Int? {
        readReferences.insert(ReferenceFingerprint(reference))
        return read(reference, checkedFor: reference.storedVersionId)
    }

    /// Checks a reference `versionId` holds but did not store: it must be data stored by an
    /// ancestor — found at once when the second predecessor's map holds the same reference
    /// (checked when that predecessor was), else by walking the history — and readable.
    private mutating func checkCarried(_ reference: Value.Reference, in versionId: Version.ID, secondPredecessor: Version.ID?) {
        let heldBySecond = secondPredecessor.map { second in
            (try? map.reference(of: reference.valueId, in: state.root(of: second))) == reference
        } ?? false
        if !heldBySecond {
            if !history.contains(reference.storedVersionId) {
                record(VerificationFinding.unknownStoringVersion(reference).description, version: versionId, value: reference.valueId)
                return
            }
            if (try? history.isAncestor(reference.storedVersionId, of: versionId)) != true {
                record(VerificationFinding.referenceOutsideAncestry(reference).description, version: versionId, value: reference.valueId)
            }
        }
        readOnce(reference, checkedFor: versionId)
    }

    // MARK: Heads

    /// Reads a head's whole map: every reference must be stored by the head or one of its
    /// ancestors (the ancestors are listed once, when the first reference needs them), the
    /// data of each reference not read yet in this run must be readable, and the number of
    /// references must be the count its record gives.
    mutating func checkHead(_ head: Version.ID) {
        guard let root = state.root(of: head) else { return }
        var ancestors: Set<Version.ID>?
        var count = 0
        do {
            try map.enumerate(root) { reference in
                count += 1
                let storedBy = reference.storedVersionId
                if storedBy != head {
                    if ancestors == nil {
                        ancestors = Set((try? history.versions(reachableFrom: [head], excludingAncestorsOf: [])) ?? [])
                    }
                    if ancestors?.contains(storedBy) != true {
                        let finding: VerificationFinding = history.contains(storedBy) ? .referenceOutsideAncestry(reference) : .unknownStoringVersion(reference)
                        record(finding.description, version: head, value: reference.valueId)
                    }
                }
                readOnce(reference, checkedFor: head)
            }
        } catch {
            record(Self.describe(error), version: head)
            return
        }
        if count != root.count {
            record(VerificationFinding.valueCountMismatch(recorded: root.count, found: count).description, version: head)
        }
    }

    // MARK: Reading data

    /// Reads a reference's data unless this run has read (or failed to read) it already.
    private mutating func readOnce(_ reference: Value.Reference, checkedFor versionId: Version.ID) {
        guard readReferences.insert(ReferenceFingerprint(reference)).inserted else { return }
        _ = read(reference, checkedFor: versionId)
    }

    /// Reads a reference's data, counting it; its size, or nil after recording a problem
    /// for `versionId` and the value.
    private mutating func read(_ reference: Value.Reference, checkedFor versionId: Version.ID) -> Int? {
        do {
            let data = try StoreError.wrapping { try values.data(for: ZoneReference(reference)) }
            guard let data else {
                record(StoreError.missingValueData(reference).description, version: versionId, value: reference.valueId)
                return nil
            }
            report.valuesRead += 1
            return data.count
        } catch {
            record(error.description, version: versionId, value: reference.valueId)
            return nil
        }
    }

    /// The description of an error, as the store's ``StoreError`` describes it.
    static func describe(_ error: any Error) -> String {
        do {
            return try StoreError.wrapping { () throws -> String in throw error }
        } catch {
            return error.description
        }
    }
}
