import Foundation
import LLVSSupport
import Testing
import LLVSCore
import LLVSStoreTesting
import LLVSTesting
@testable import LLVSStore

/// A version larger than a part (``StoreEngine/partByteCount``; a bulk import) is stored in
/// parts ahead of its commit: every backend reads it back whole, before and after reopening,
/// and a failed part leaves no version behind. The stores use 64 KiB parts, so that 20,000
/// values make about 40 parts of values and 10 of map nodes.
@Suite struct StoreLargeVersionTests {
    static let count = 20_000
    static let partByteCount = 64 << 10

    static func open(_ directory: TemporaryDirectory, _ storage: any Storage) throws -> Store {
        try Store(rootDirectoryURL: directory.url, storage: storage, cacheByteLimit: Store.defaultCacheByteLimit, partByteCount: partByteCount)
    }

    static func values(count: Int = count, tag: UInt8 = 0) -> [Value] {
        (0..<count).map { index in
            var data = Data(repeating: tag, count: 100)
            withUnsafeBytes(of: UInt64(index).littleEndian) { data.replaceSubrange(0..<8, with: $0) }
            return Value(idString: "value \(index)", data: data)
        }
    }

    @Test(arguments: Backend.allCases)
    func aLargeVersionReadsBackWholeOnEveryBackend(backend: Backend) throws {
        let directory = try TemporaryDirectory()
        let storage = backend.makeStorage()
        let store = try Self.open(directory, storage)
        let values = Self.values()
        let version = try store.makeVersion(basedOnPredecessor: nil, inserting: values)
        #expect(version.valueDataSize == Int64(values.count * 100))
        try store.close()
        let reopened = try Self.open(directory, storage)
        #expect(try reopened.valueCount(at: version.id) == values.count)
        var seen = 0
        try reopened.enumerate(version: version.id) { reference in
            let index = Int(reference.valueId.rawValue.dropFirst("value ".count)) ?? -1
            let read = try reopened.value(storedAt: reference)
            if values.indices.contains(index), read?.id == values[index].id, read?.data == values[index].data { seen += 1 }
        }
        #expect(seen == values.count)
        #expect(reopened.verify().isIntact)
        // The map built in parts takes further changes.
        let next = try reopened.makeVersion(basedOnPredecessor: version.id, updating: [value("value 7", "changed")], removing: ["value 8"])
        #expect(try reopened.value(idString: "value 7", at: next.id)?.data == Data("changed".utf8))
        #expect(try reopened.value(idString: "value 8", at: next.id) == nil)
        #expect(try reopened.valueCount(at: next.id) == values.count - 1)
    }

    /// The zones receive the version in parts of about a part's bytes, values and map nodes
    /// alike, in ascending ranges of keys, and the commit stores no more of them.
    @Test func theZonesReceiveALargeVersionInBoundedParts() throws {
        let directory = try TemporaryDirectory()
        let storage = RecordingStorage(base: MemoryStorage())
        let store = try Self.open(directory, storage)
        let version = try store.makeVersion(basedOnPredecessor: nil, inserting: Self.values())
        let calls = storage.calls.withLock { $0 }
        for zone in ["values", "maps"] {
            let parts = calls.filter { $0.zone == zone }
            #expect(parts.count >= 5, "\(zone): \(parts.count) store calls")
            // A part ends with the item that reaches the part size: a value or a node over.
            #expect(parts.allSatisfy { $0.dataByteCount <= Self.partByteCount + 4096 }, "\(zone): \(parts.map(\.dataByteCount))")
            #expect(parts.allSatisfy { $0.versions == [version.id] })
            // In ascending, disjoint ranges of keys (UTF-8 order, as the zones keep them).
            #expect(zip(parts, parts.dropFirst()).allSatisfy { Array($0.lastKey.utf8).lexicographicallyPrecedes(Array($1.firstKey.utf8)) })
        }
        #expect(try store.valueCount(at: version.id) == Self.count)
    }

    /// A part that fails to store fails the version: nothing is logged, the store keeps
    /// its history and takes the next version.
    @Test func aFailedPartLeavesNoVersion() throws {
        let directory = try TemporaryDirectory()
        let base = MemoryStorage()
        let first = try Store(rootDirectoryURL: directory.url, storage: base)
        let root = try first.makeVersion(basedOnPredecessor: nil, inserting: [value("a", "1")])
        let storage = RecordingStorage(base: base, failingValuesCall: 3)
        let store = try Self.open(directory, storage)
        #expect(throws: (any Error).self) { try store.makeVersion(basedOnPredecessor: root.id, inserting: Self.values()) }
        #expect(store.queryHistory { $0.allVersionIdentifiers } == [root.id])
        let reopened = try Store(rootDirectoryURL: directory.url, storage: base)
        #expect(reopened.queryHistory { $0.allVersionIdentifiers } == [root.id])
        let next = try reopened.makeVersion(basedOnPredecessor: root.id, inserting: [value("b", "2")])
        #expect(try reopened.valueCount(at: next.id) == 2)
        #expect(reopened.verify().isIntact)
    }
}

/// A storage that opens another storage's zones with every `store` call of some items
/// recorded (zone, versions, bytes of data), optionally failing the values zone's n-th.
final class RecordingStorage: Storage, @unchecked Sendable {
    struct Call: Sendable {
        var zone: String
        var versions: Set<Version.ID>
        var dataByteCount: Int
        var firstKey: String
        var lastKey: String
    }

    let base: any Storage
    let failingValuesCall: Int?
    let calls = Locked<[Call]>([])

    init(base: any Storage, failingValuesCall: Int? = nil) {
        self.base = base
        self.failingValuesCall = failingValuesCall
    }

    func makeZones(rootDirectoryURL: URL) throws -> StoreZones {
        var zones = try base.makeZones(rootDirectoryURL: rootDirectoryURL)
        zones.values = RecordingZone(base: zones.values, name: "values", storage: self)
        zones.maps = RecordingZone(base: zones.maps, name: "maps", storage: self)
        return zones
    }
}

/// A zone whose `store` calls its storage records.
final class RecordingZone: Zone {
    struct InjectedFailure: Error {}

    let base: any Zone
    let name: String
    let storage: RecordingStorage

    init(base: any Zone, name: String, storage: RecordingStorage) {
        self.base = base
        self.name = name
        self.storage = storage
    }

    func store(_ items: [ZoneItem]) throws {
        guard !items.isEmpty else { return try base.store(items) }
        let keys = items.map(\.reference.key.rawValue)
        let call = RecordingStorage.Call(zone: name, versions: Set(items.map(\.reference.version)), dataByteCount: items.reduce(0) { $0 + $1.data.count },
                                         firstKey: keys.min() ?? "", lastKey: keys.max() ?? "")
        let number = storage.calls.withLock { calls in
            calls.append(call)
            return calls.filter { $0.zone == name }.count
        }
        if name == "values", number == storage.failingValuesCall { throw InjectedFailure() }
        try base.store(items)
    }

    func data(for references: [ZoneReference]) throws -> [Data?] {
        try base.data(for: references)
    }
}
