import Foundation
import LLVSStoreTesting
import LLVSTesting
import Testing
@testable import LLVSStore

/// `Store.verify`: intact stores verify clean; damaged storage and inconsistent records are
/// reported as problems naming the version and value, without throwing.
@Suite struct StoreVerificationTests {
    /// A small history: `v1` (a, b, c), `v2` (updates a, inserts d), `v3` (updates b), `side`
    /// off v1 (inserts s), and `merged`, v3 merged with side.
    struct SmallHistory {
        let test: TestStore
        let v1, v2, v3, side, merged: Version

        init(_ backend: Backend) throws {
            test = try TestStore(backend)
            let store = test.store
            v1 = try store.makeVersion(basedOnPredecessor: nil, inserting: [value("a", "1"), value("b", "1"), value("c", "1")])
            v2 = try store.makeVersion(basedOnPredecessor: v1.id, inserting: [value("d", "2")], updating: [value("a", "22")])
            v3 = try store.makeVersion(basedOnPredecessor: v2.id, updating: [value("b", "333")])
            side = try store.makeVersion(basedOnPredecessor: v1.id, inserting: [value("s", "side")])
            merged = try store.merge(version: v3.id, with: side.id, resolvingWith: MostRecentBranchFavoringArbiter())
        }
    }

    /// `(version, value)` of each problem, `-` for no value, sorted.
    static func places(_ report: StoreVerificationReport) -> [String] {
        report.problems.map { "\($0.versionId?.rawValue ?? "-"):\($0.valueId?.rawValue ?? "-")" }.sorted()
    }

    @Test(arguments: Backend.allCases)
    func anIntactStoreWithBranchesAndMergesVerifiesClean(_ backend: Backend) throws {
        let storeHome = try TestStore(backend)
        defer { withExtendedLifetime(storeHome) {} }
        let store = storeHome.store
        let v1 = try store.makeVersion(basedOnPredecessor: nil, inserting: (0..<40).map { value("k\($0)", "1") })
        let left = try store.makeVersion(basedOnPredecessor: v1.id, inserting: [value("l", "L")], updating: [value("k1", "L")], removing: ["k2"])
        let right = try store.makeVersion(basedOnPredecessor: v1.id, updating: [value("k1", "R"), value("k3", "R")])
        let merge = try store.merge(version: left.id, with: right.id, resolvingWith: MostRecentBranchFavoringArbiter())
        let otherMerge = try store.merge(version: right.id, with: left.id, resolvingWith: MostRecentBranchFavoringArbiter())
        _ = try store.merge(version: merge.id, with: otherMerge.id, resolvingWith: MostRecentBranchFavoringArbiter()) // criss-cross
        // Back to the root's k1: data stored by an ancestor, taken over by reference.
        _ = try store.makeVersion(basedOnPredecessor: left.id, storing: [.preserve(.init(valueId: "k1", storedVersionId: v1.id))])
        let unrelated = try store.makeVersion(basedOnPredecessor: nil, inserting: [value("u", "U")])
        _ = try store.merge(version: right.id, with: unrelated.id, resolvingWith: MostRecentBranchFavoringArbiter())

        var calls: [(Int, Int)] = []
        let report = store.verify { calls.append(($0, $1)) }
        let versions = store.queryHistory { Array($0) }
        #expect(report.isIntact, "\(report.problems)")
        #expect(report.problems.isEmpty)
        #expect(report.versionsChecked == versions.count)
        // Every value data record the versions stored is read exactly once.
        let stored = try versions.reduce(0) { count, version in
            try count + store.valueChanges(madeInVersionIdentifiedBy: version.id).filter { change in
                switch change {
                case .insert, .update: return true
                case .remove, .preserve, .preserveRemoval: return false
                }
            }.count
        }
        #expect(report.valuesRead == stored)
        #expect(calls.count == versions.count)
        #expect(calls.allSatisfy { $0.1 == versions.count })
        #expect(calls.map(\.0) == Array(1...versions.count))
    }

    @Test func anEmptyStoreVerifiesClean() throws {
        var calls: [(Int, Int)] = []
        let report = try TestStore().store.verify { calls.append(($0, $1)) }
        #expect(report == StoreVerificationReport(versionsChecked: 0, valuesRead: 0, problems: []))
        #expect(calls.count == 1 && calls.first.map { $0 == (0, 0) } == true)
    }

    @Test(arguments: Backend.allCases)
    func lostValueDataIsReportedForEachValue(_ backend: Backend) throws {
        let history = try SmallHistory(backend)
        let root = history.test.directory.url
        let lost = ["a", "d"].map { ZoneReference(key: .init($0), version: history.v2.id) }
        let storage: any Storage
        switch backend {
        case .sqlite:
            try StoreDamage.execute("DELETE FROM zone_item WHERE zone = 0 AND version = ?", arguments: [Data(history.v2.id.rawValue.utf8)], inStoreAt: root)
            storage = history.test.storage
        case .file, .memory:
            // A file store's packs share segments with other versions' packs, so no file of
            // one version can go missing: hide them, as for the memory backend.
            storage = HidingStorage(base: history.test.storage, hidden: Set(lost))
        }
        let report = try Store(rootDirectoryURL: root, storage: storage).verify()
        #expect(Self.places(report) == ["\(history.v2.id):a", "\(history.v2.id):d"])
        #expect(report.problems.allSatisfy { $0.reason.contains("is missing") }, "\(report.problems)")
        #expect(report.versionsChecked == 5)
        #expect(!report.isIntact)
    }

    @Test func aFlippedByteInAValuePackIsReportedForEachValueOfThatVersion() throws {
        let history = try SmallHistory(.file)
        let root = history.test.directory.url
        try StoreDamage.flipDataByte(of: StoreDamage.pack(of: history.v2.id, zone: "values", inStoreAt: root))
        let report = try history.test.reopened().verify()
        #expect(Self.places(report) == ["\(history.v2.id):a", "\(history.v2.id):d"], "\(report.problems)")
        #expect(report.problems.allSatisfy { $0.reason.contains("checksum") }, "\(report.problems)")
        #expect(report.problems.first?.description.hasPrefix("version \(history.v2.id), value ") == true)
    }

    /// A flipped byte in the store's last commit record: verify reports it (a killed writer
    /// leaves zeros where its write was cut short, not a record with the wrong bytes).
    /// Readers take the version from the commit index; without the index they take the
    /// record for a torn write and leave its version out.
    @Test func aDamagedLastCommitRecordIsReported() throws {
        let history = try SmallHistory(.file)
        let root = history.test.directory.url
        let segments = try FileManager.default.contentsOfDirectory(at: root.appendingPathComponent("packs"), includingPropertiesForKeys: nil)
        let segment = try #require(segments.first { $0.pathExtension == "seg" })
        var bytes = try Data(contentsOf: segment)
        // The last byte of the final commit record's checksum (zeros the segment
        // preallocated follow it).
        let end = try #require(bytes.lastIndex { $0 != 0 })
        bytes[end] ^= 0xFF
        try bytes.write(to: segment)
        let reopened = try history.test.reopened()
        #expect(reopened.queryHistory { $0.contains(history.merged.id) })
        let report = reopened.verify()
        #expect(report.problems.contains { $0.reason.contains("checksum") && $0.reason.contains(segment.lastPathComponent) },
                "\(report.problems)")
        try FileManager.default.removeItem(atPath: segment.path + ".idx")
        #expect(try !history.test.reopened().queryHistory { $0.contains(history.merged.id) })
    }

    /// A writer killed during its write leaves an unfinished final pack of a version it
    /// never logged: verify does not count it as damage (no acknowledged version can be in
    /// it), while the same damage to the final pack of a version in the store is reported.
    @Test func anUnfinishedFinalPackIsDamageOnlyWhenItsVersionIsInTheStore() throws {
        let history = try SmallHistory(.file)
        let root = history.test.directory.url
        // The last pack the history wrote is the merge's map pack: damage to it is reported.
        try StoreDamage.flipDataByte(of: StoreDamage.pack(of: history.merged.id, zone: "maps", inStoreAt: root))
        let damaged = try history.test.reopened().verify()
        #expect(damaged.problems.contains { $0.versionId == history.merged.id }, "\(damaged.problems)")

        let killed = try SmallHistory(.file)
        let killedRoot = killed.test.directory.url
        // A pack whose version never got its log record, cut as a killed write leaves it.
        let zones = try FileStorage().makeZones(rootDirectoryURL: killedRoot)
        try zones.values.store([ZoneItem(reference: ZoneReference(key: "x", version: "never-logged"), data: Data(repeating: 7, count: 300))])
        try StoreDamage.zeroSecondHalf(of: StoreDamage.pack(of: "never-logged", zone: "values", inStoreAt: killedRoot))
        #expect(zones.checkStoredBytes?().contains { $0.isUnfinishedFinalPack && $0.version == "never-logged" } == true)
        let report = try killed.test.reopened().verify()
        #expect(report.isIntact, "\(report.problems)")
    }

    @Test func aMapPackWithALostHalfIsReportedForItsVersion() throws {
        let history = try SmallHistory(.file)
        let root = history.test.directory.url
        try StoreDamage.zeroSecondHalf(of: StoreDamage.pack(of: history.v2.id, zone: "maps", inStoreAt: root))
        let report = try history.test.reopened().verify()
        #expect(report.problems.contains { $0.versionId == history.v2.id && $0.valueId == nil && $0.reason.contains("Corrupt") },
                "\(report.problems)")
        #expect(report.problems.allSatisfy { $0.valueId == nil }, "only maps are damaged: \(report.problems)")
        #expect(report.versionsChecked == 5)
    }

    @Test func damagedSQLiteRowsAreReported() throws {
        let history = try SmallHistory(.sqlite)
        let root = history.test.directory.url
        try StoreDamage.execute("DELETE FROM zone_item WHERE zone = 0 AND version = ? AND key = CAST('a' AS BLOB)",
                                arguments: [Data(history.v2.id.rawValue.utf8)], inStoreAt: root)
        try StoreDamage.execute("UPDATE zone_item SET data = ? WHERE zone = 0 AND version = ? AND key = CAST('b' AS BLOB)",
                                arguments: [Data("33".utf8), Data(history.v3.id.rawValue.utf8)], inStoreAt: root)
        let sideNodes = try StoreDamage.sqliteItems(zone: 1, version: history.side.id, inStoreAt: root)
        let node = try #require(sideNodes.first)
        var damaged = node.data
        damaged[damaged.count / 2] ^= 0xFF
        try StoreDamage.execute("UPDATE zone_item SET data = ? WHERE zone = 1 AND version = ? AND key = ?",
                                arguments: [damaged, Data(history.side.id.rawValue.utf8), Data(node.key.utf8)], inStoreAt: root)
        let reopened = try history.test.reopened()
        // Reads never return a damaged row: they throw, naming it.
        #expect(throws: StoreError.self) { _ = try reopened.value(id: "b", at: history.v3.id) }
        let report = reopened.verify()
        // The merge's map is built on its first predecessor's, which is `side` when side's
        // identifier sorts first (records list predecessors in canonical order); it may
        // then share the damaged node, and is reported with it.
        var expected: Set = ["\(history.side.id):-", "\(history.v2.id):a", "\(history.v3.id):b"]
        let mergeEntry = "\(history.merged.id):-"
        if history.merged.predecessors?.idOfFirst == history.side.id, Self.places(report).contains(mergeEntry) { expected.insert(mergeEntry) }
        #expect(Set(Self.places(report)) == expected)
        #expect(report.problems.contains { $0.versionId == history.v3.id && $0.valueId == "b" && $0.reason.contains("fails its checksum") },
                "\(report.problems)")
        #expect(report.problems.contains { $0.versionId == history.side.id && $0.reason.contains("map node item \(node.key)@") },
                "\(report.problems)")
    }

    @Test(arguments: Backend.allCases)
    func inconsistentRecordsAreReported(_ backend: Backend) throws {
        let test = try TestStore(backend)
        let store = test.store
        let v1 = try store.makeVersion(basedOnPredecessor: nil, inserting: [value("a", "1")])
        let left = try store.makeVersion(basedOnPredecessor: v1.id, inserting: [value("l", "L")])
        let right = try store.makeVersion(basedOnPredecessor: v1.id, inserting: [value("r", "R")])
        // Versions the store's own checks would refuse, written past them.
        let foreign = Value.Reference(valueId: "r", storedVersionId: right.id)
        let ghost = Value.Reference(valueId: "g", storedVersionId: "ghost")
        _ = try VersionWriter(store: store).write(Version(id: "forged", predecessors: .init(idOfFirst: left.id)),
                                                  changes: [.preserve(foreign), .preserve(ghost)], trusted: [foreign, ghost])
        let v1Root = store.engine.state.withLock { $0.root(of: v1.id) }
        _ = try store.engine.commit(VersionRecord(version: Version(id: "oversized", predecessors: .init(idOfFirst: v1.id), valueDataSize: 7), root: v1Root))
        var miscountedRoot = v1Root
        miscountedRoot?.count += 1
        _ = try store.engine.commit(VersionRecord(version: Version(id: "miscounted", predecessors: .init(idOfFirst: v1.id), valueDataSize: 0), root: miscountedRoot))

        let report = try test.reopened().verify()
        #expect(Self.places(report) == [
            "forged:g", "forged:g", "forged:g", // stored by an unknown version (checked for the version and as a head), data missing
            "forged:r", "forged:r",             // not in its ancestry (as a version and as a head)
            "miscounted:-", "oversized:-",
        ])
        let reasons = report.problems.map(\.description).joined(separator: "\n")
        #expect(reasons.contains("version forged, value r: Value r refers to data stored by version \(right.id), which is neither this version nor one of its ancestors."))
        #expect(reasons.contains("version forged, value g: Value g refers to data stored by version ghost, which is not in the store."))
        #expect(reasons.contains("version forged, value g: The data of value g stored by version ghost is missing."))
        #expect(reasons.contains("version oversized: The version's record says it stored 7 bytes of value data, but the values it stored hold 0 bytes."))
        #expect(reasons.contains("version miscounted: The version's record says its map holds 2 values, but the map holds 1."))
        #expect(report.versionsChecked == 6)
    }

    @Test func reportsEncodeAndDescribeTheirProblems() throws {
        let report = StoreVerificationReport(versionsChecked: 3, valuesRead: 5, problems: [
            .init(versionId: "V", valueId: "x", reason: "Gone."), .init(versionId: "W", reason: "Bad map."), .init(reason: "Log unreadable."),
        ])
        #expect(report.problems.map(\.description) == ["version V, value x: Gone.", "version W: Bad map.", "Log unreadable."])
        #expect(!report.isIntact)
        let decoded = try JSONDecoder().decode(StoreVerificationReport.self, from: JSONEncoder().encode(report))
        #expect(decoded == report)
    }
}

/// How much work a damaged store costs `verify`.
@Suite struct StoreVerificationWorkTests {
    @Test func aDamagedPackIsReadOnceNotOncePerValue() throws {
        let test = try TestStore(.file)
        let values = (0..<200).map { value("k\($0)", "\($0)") }
        let big = try test.store.makeVersion(basedOnPredecessor: nil, inserting: values)
        _ = try test.store.makeVersion(basedOnPredecessor: big.id, inserting: [value("z", "z")])
        try StoreDamage.flipDataByte(of: StoreDamage.pack(of: big.id, zone: "values", inStoreAt: test.directory.url))
        let counting = CountingStorage(base: FileStorage())
        let report = try Store(rootDirectoryURL: test.directory.url, storage: counting).verify()
        #expect(report.problems.count == values.count)
        #expect(Set(report.problems.compactMap(\.valueId)) == Set(values.map(\.id)))
        #expect(report.valuesRead == 1)
        #expect(counting.reads.withLock { $0[big.id] } == 1, "the damaged pack is read once; its other values get the remembered error")
    }
}
