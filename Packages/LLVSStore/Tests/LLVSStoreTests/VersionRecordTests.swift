import Foundation
import LLVSMap
import LLVSSupport
import LLVSTesting
import PropertyBased
import Testing
@testable import LLVSStore

@Suite struct VersionRecordTests {
    static let records = zip(Gen.letterOrNumber.string(of: 0...12), Gen.int(in: 0...2), Gen.double(in: -1e9...1e10),
                             Gen.int(in: -1...1_000), Gen.letterOrNumber.string(of: 0...4), Gen.bool, Gen.int(in: 1...10_000))
        .map { id, predecessorCount, timestamp, size, metadataKey, hasRoot, count in
            let predecessors: Version.Predecessors? = predecessorCount == 0 ? nil
                : .init(idOfFirst: Version.ID("p" + id), idOfSecond: predecessorCount == 2 ? Version.ID("q" + id) : nil)
            let version = Version(id: Version.ID("v" + id), predecessors: predecessors, timestamp: timestamp,
                                  valueDataSize: size < 0 ? nil : Int64(size),
                                  metadata: metadataKey.isEmpty ? [:] : [Version.MetadataKey(rawValue: metadataKey): .init(data: Data(id.utf8))])
            let root = hasRoot ? NodeReference(hash: Digest.of(Value.ID(id)), location: Version.ID("l" + id), count: count) : nil
            return VersionRecord(version: version, root: root)
        }

    @Test func recordsRoundTrip() async {
        await propertyCheck(count: 1_000, input: Self.records) { record in
            let decoded = try VersionRecord.decode(record.encoded())
            #expect(decoded.version.id == record.version.id)
            #expect(decoded.version.predecessors == record.version.predecessors)
            #expect(decoded.version.timestamp == record.version.timestamp)
            #expect(decoded.version.valueDataSize == record.version.valueDataSize)
            #expect(decoded.version.metadata == record.version.metadata)
            #expect(decoded.root == record.root)
        }
    }

    /// A log long enough to be decoded in parallel parts gives the versions and roots in log
    /// order, as one by one; a damaged record fails the whole decoding with the first damaged
    /// record's error, whichever part it is in.
    @Test func longLogsDecodeInPartsInLogOrder() throws {
        let count = DecodedRecords.parallelRecordCount + 1_001
        let records = (0..<count).map { index in
            VersionRecord(version: Version(id: index % 3 == 0 ? Version.ID() : Version.ID("v\(index)"),
                                           predecessors: index == 0 ? nil : .init(idOfFirst: Version.ID("v\(index - 1)")),
                                           timestamp: Double(index)),
                          root: index % 2 == 0 ? nil : NodeReference(hash: Digest.of(Value.ID("k\(index)")), location: Version.ID("v\(index)"), count: index))
        }
        let encoded = records.map { $0.encoded() }
        let decoded = try DecodedRecords(decoding: encoded)
        #expect(decoded.versions.map(\.id) == records.map(\.version.id))
        #expect(decoded.versions.map(\.predecessors) == records.map(\.version.predecessors))
        #expect(decoded.versions.map(\.timestamp) == records.map(\.version.timestamp))
        #expect(decoded.roots == records.map(\.root))

        for damaged in [[count - 1], [7, count - 1], [count / 2 + 3, count - 5]] {
            var bad = encoded
            for index in damaged { bad[index] = Data([VersionRecord.formatVersion &+ UInt8(1 + index % 200)]) }
            let expected = VersionRecord.formatVersion &+ UInt8(1 + damaged[0] % 200)
            #expect(throws: StoreError.corruptVersionRecord(reason: "unknown record format \(expected)")) {
                _ = try DecodedRecords(decoding: bad)
            }
        }
    }

    /// Empty logs decoded on several threads at once share nothing. (Decoding one into
    /// `unsafeUninitializedCapacity: 0` wrote the standard library's shared empty-array
    /// storage, which the thread sanitizer reported as a race in CI.)
    @Test func emptyLogsDecodeOnManyThreadsAtOnce() throws {
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<2_000 {
                guard let decoded = try? DecodedRecords(decoding: []), decoded.versions.isEmpty, decoded.roots.isEmpty else {
                    failures.withLock { $0 += 1 }
                    continue
                }
            }
        }
        #expect(failures.withLock { $0 } == 0)
    }

    @Test func truncatedOrPaddedRecordsAreCorrupt() async {
        await propertyCheck(count: 500, input: zip(Self.records, Gen.int(in: 0...200))) { record, cut in
            let bytes = record.encoded()
            let truncated = bytes.prefix(cut % bytes.count)
            #expect(throws: StoreError.self) { _ = try VersionRecord.decode(Data(truncated)) }
            #expect(throws: StoreError.self) { _ = try VersionRecord.decode(bytes + Data([0])) }
        }
    }

    @Test func aCorruptRecordInTheLogIsReported() throws {
        let test = try TestStore(.memory)
        let zones = try test.storage.makeZones(rootDirectoryURL: test.directory.url)
        try zones.versions.append([Data([1, 0xFF])])
        #expect(throws: StoreError.self) { _ = try test.reopened() }
    }

    @Test func recordsWhosePredecessorsNeverArriveStayInvisible() throws {
        let test = try TestStore(.memory)
        let root = try test.store.makeVersion(basedOnPredecessor: nil, inserting: [value("a", "1")])
        let zones = try test.storage.makeZones(rootDirectoryURL: test.directory.url)
        let orphan = Version(id: "orphan", predecessors: .init(idOfFirst: "never-written"))
        try zones.versions.append([VersionRecord(version: orphan, root: nil).encoded()])
        let reopened = try test.reopened()
        #expect(reopened.version(identifiedBy: "orphan") == nil)
        #expect(reopened.version(identifiedBy: root.id) != nil)
        // If the missing predecessor arrives later, the waiting version appears with it.
        try zones.versions.append([VersionRecord(version: Version(id: "never-written", timestamp: 1), root: nil).encoded()])
        try reopened.reloadHistory()
        #expect(reopened.version(identifiedBy: "orphan")?.predecessors?.idOfFirst == "never-written")
    }

    @Test(arguments: Backend.allCases)
    func aRecordRepeatedInTheLogLoadsOnce(_ backend: Backend) throws {
        // Two writers can append the same version (say, both received it from a peer); the
        // first opening reads both copies in one batch.
        let test = try TestStore(backend)
        let first = try test.store.makeVersion(basedOnPredecessor: nil, inserting: [value("a", "1")])
        let zones = try test.storage.makeZones(rootDirectoryURL: test.directory.url)
        let second = Version(id: "second", predecessors: .init(idOfFirst: first.id), timestamp: 2)
        let record = VersionRecord(version: second, root: try test.store.root(of: first.id)).encoded()
        try zones.versions.append([record, record])
        let reopened = try test.reopened()
        #expect(reopened.queryHistory { $0.count } == 2)
        #expect(try reopened.value(id: "a", at: "second")?.data == Data("1".utf8))
    }
}

