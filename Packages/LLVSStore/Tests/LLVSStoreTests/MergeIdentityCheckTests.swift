import Foundation
import LLVSStoreTesting
import LLVSTesting
import LLVSTestingGenerators
import PropertyBased
import Testing
@testable import LLVSStore

/// A merge's identifier recomputed from its record (`Store.mergeIdentifier(predecessors:changes:metadata:)`),
/// and `addVersions(_:checkingMergeIdentifiers:)`, which refuses a record that is not the
/// merge its identifier stands for: on every backend, for merges in either order, with
/// metadata, over criss-crosses, and over random multi-replica histories.
@Suite struct MergeIdentityCheckTests {
    /// A base, two branches that change, insert and remove, and their merge made on
    /// `store` (merged into `left` or into `right`).
    static func makeMerge(on store: Store, intoRight: Bool = false, metadata: Version.Metadata = [:]) throws -> (predecessors: [Version], merge: Version) {
        let base = try store.makeVersion(basedOnPredecessor: nil, inserting: ["a", "b", "c", "d", "e"].map { value($0, "0") })
        let left = try store.makeVersion(basedOnPredecessor: base.id, inserting: [value("f", "L")], updating: [value("a", "L"), value("e", "L")],
                                         removing: ["b"])
        let right = try store.makeVersion(basedOnPredecessor: base.id, inserting: [value("g", "R")], updating: [value("c", "R"), value("e", "R")],
                                          removing: ["d"])
        let (into, other) = intoRight ? (right, left) : (left, right)
        let merge = try store.merge(version: into.id, with: other.id, resolvingWith: MostRecentChangeFavoringArbiter(), metadata: metadata)
        return ([base, left, right], merge)
    }

    /// A store holding `versions` copied from `source` in order (no merge is made there).
    static func copy(_ versions: [Version], from source: Store, backend: Backend) throws -> TestStore {
        let target = try TestStore(backend)
        for version in versions { try target.store.addVersion(version, storing: try source.valueChanges(madeInVersionIdentifiedBy: version.id)) }
        return target
    }

    @Test(arguments: Backend.allCases, [false, true])
    func aMergesRecordDerivesItsIdentifierInEitherOrder(_ backend: Backend, intoRight: Bool) throws {
        let made = try TestStore(backend)
        let (_, merge) = try Self.makeMerge(on: made.store, intoRight: intoRight, metadata: ["note": .init(data: Data("x".utf8))])
        let predecessors = try #require(merge.predecessors)
        let changes = try made.store.valueChanges(madeInVersionIdentifiedBy: merge.id)
        #expect(try made.store.mergeIdentifier(predecessors: predecessors, changes: changes, metadata: merge.metadata) == merge.id)
        // Without its metadata the same content derives another identifier.
        #expect(try made.store.mergeIdentifier(predecessors: predecessors, changes: changes, metadata: [:]) != merge.id)
    }

    /// Records that differ from the merge in one thing each — new data for a value, a value
    /// more, a change left out, metadata — are refused with the check, nothing of them written, and taken
    /// without it (so the check is what refuses them).
    @Test(arguments: Backend.allCases)
    func aRecordThatIsNotItsMergeIsRefused(_ backend: Backend) throws {
        let made = try TestStore(backend)
        let (predecessors, merge) = try Self.makeMerge(on: made.store)
        let changes = try made.store.valueChanges(madeInVersionIdentifiedBy: merge.id)
        var noted = merge
        noted.metadata = ["note": .init(data: Data("forged".utf8))]
        let first = try #require(changes.first)
        let forgeries: [(String, Version, [Value.Change])] = [
            ("other data", merge, [.update(Value(id: first.valueId, data: Data("forged".utf8)))] + changes.dropFirst()),
            ("a value more", merge, changes + [.insert(value("smuggled", "1"))]),
            ("a change left out", merge, Array(changes.dropLast())),
            ("other metadata", noted, changes),
        ]
        for (label, version, forgedChanges) in forgeries {
            let target = try Self.copy(predecessors, from: made.store, backend: backend)
            #expect(throws: StoreError.self, "\(label)") {
                try target.store.addVersions([(version, forgedChanges)], checkingMergeIdentifiers: true)
            }
            #expect(target.store.version(identifiedBy: merge.id) == nil, "\(label): the refused record was written")
            #expect(try target.store.addVersions([(version, forgedChanges)]) == [true], "\(label): taken without the check")
        }
        let honest = try Self.copy(predecessors, from: made.store, backend: backend)
        #expect(try honest.store.addVersions([(merge, changes)], checkingMergeIdentifiers: true) == [true])
    }

    /// Merges made by hand are taken as they are: they carry their own time, or an
    /// identifier of another form. Only a version that looks exactly like a store's merge is
    /// held to merge identity (the limit the check documents).
    @Test(arguments: Backend.allCases)
    func mergesMadeByHandAreTakenAsTheyAre(_ backend: Backend) throws {
        let made = try TestStore(backend)
        let (predecessors, _) = try Self.makeMerge(on: made.store)
        let (left, right) = (predecessors[1], predecessors[2])
        let twoPredecessors = Version.Predecessors(idOfFirst: left.id, idOfSecond: right.id)
        let byHand = try made.store.makeVersion(basedOn: twoPredecessors, storing: [.insert(value("hand", "1"))])
        let stamped = Version(id: "s12r0", predecessors: twoPredecessors, timestamp: max(left.timestamp, right.timestamp))
        let lookalike = Version(id: Version.ID(UUID().uuidString), predecessors: twoPredecessors, timestamp: max(left.timestamp, right.timestamp))
        let target = try Self.copy(predecessors, from: made.store, backend: backend)
        let handChanges = try made.store.valueChanges(madeInVersionIdentifiedBy: byHand.id)
        #expect(try target.store.addVersions([(byHand, handChanges), (stamped, [.insert(value("stamped", "1"))])],
                                             checkingMergeIdentifiers: true) == [true, true])
        #expect(throws: StoreError.self) {
            try target.store.addVersions([(lookalike, [.insert(value("lookalike", "1"))])], checkingMergeIdentifiers: true)
        }
    }

    /// A criss-cross: the final merge is resolved against a virtual ancestor, and its record
    /// still derives its identifier.
    @Test(arguments: Backend.allCases)
    func aCrissCrossMergeDerivesItsIdentifier(_ backend: Backend) throws {
        let storeHome = try TestStore(backend)
        defer { withExtendedLifetime(storeHome) {} }
        let store = storeHome.store
        let arbiter = MostRecentChangeFavoringArbiter()
        let base = try store.makeVersion(basedOnPredecessor: nil, inserting: [value("k", "0"), value("j", "0")])
        let a = try store.makeVersion(basedOnPredecessor: base.id, updating: [value("k", "a")])
        let b = try store.makeVersion(basedOnPredecessor: base.id, updating: [value("j", "b")])
        let ab = try store.merge(version: a.id, with: b.id, resolvingWith: arbiter)
        let ba = try store.merge(version: b.id, with: a.id, resolvingWith: arbiter, metadata: ["side": .init(data: Data("b".utf8))])
        let left = try store.makeVersion(basedOnPredecessor: ab.id, updating: [value("k", "left")])
        let right = try store.makeVersion(basedOnPredecessor: ba.id, inserting: [value("r", "1")])
        let final = try store.merge(version: left.id, with: right.id, resolvingWith: arbiter)
        for merge in [ab, ba, final] {
            let predecessors = try #require(merge.predecessors)
            let changes = try store.valueChanges(madeInVersionIdentifiedBy: merge.id)
            #expect(try store.mergeIdentifier(predecessors: predecessors, changes: changes, metadata: merge.metadata) == merge.id)
        }
    }

    /// Random multi-replica histories (merges of merges, criss-crosses, ladders, braids,
    /// hand merges, exchanges): every merge a replica made derives its identifier from its
    /// record, and each replica's whole history, added in order with the check to an empty
    /// store, is taken. 40 histories on memory, 10 on file and SQLite; `LLVS_PROPERTY_CASES`
    /// lowers the counts.
    @Test(arguments: Backend.allCases)
    func everyMergeOfRandomHistoriesPassesTheCheck(_ backend: Backend) async {
        let limit = backend == .memory ? 40 : 10
        let count = ProcessInfo.processInfo.environment["LLVS_PROPERTY_CASES"].flatMap(Int.init).map { min($0, limit) } ?? limit
        await propertyCheck(count: count, input: FuzzGen.histories()) { history in
            var simulation = try ConvergenceSimulation(history: history, properties: []) { try StoreReplica(backend: backend) }
            try await simulation.playOperations()
            for replica in simulation.replicas {
                let versions = try replica.versionsInTopologicalOrder()
                var additions: [(version: Version, changes: [Value.Change])] = []
                for version in versions {
                    additions.append((version, try replica.valueChanges(madeIn: version.id)))
                    guard let predecessors = version.predecessors, predecessors.idOfSecond != nil, replica.store.claimsMergeIdentity(version) else { continue }
                    let derived = try replica.store.mergeIdentifier(predecessors: predecessors, changes: additions[additions.count - 1].changes,
                                                                    metadata: version.metadata)
                    #expect(derived == version.id, "merge \(version.id) derives \(derived)\n\(history.jsonString)")
                }
                let fresh = try TestStore(backend)
                #expect(try fresh.store.addVersions(additions, checkingMergeIdentifiers: true).allSatisfy { $0 }, "\(history.jsonString)")
            }
        }
    }
}
