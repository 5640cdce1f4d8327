import Foundation
import LLVSTesting
import LLVSZones
import Testing
@testable import LLVSStore

@Suite struct ValueDataCacheTests {
    static func reference(_ index: Int) -> Value.Reference {
        Value.Reference(valueId: Value.ID("v\(index)"), storedVersionId: "V")
    }

    @Test func returnsWhatWasInserted() {
        var cache = ValueDataCache(byteLimit: 1_000)
        cache.insert(Data("one".utf8), for: Self.reference(1))
        #expect(cache.data(for: Self.reference(1)) == Data("one".utf8))
        #expect(cache.data(for: Self.reference(2)) == nil)
    }

    @Test func staysWithinItsLimitAndKeepsWhatIsInUse() {
        var cache = ValueDataCache(byteLimit: 1_600)
        for index in 0..<1_000 {
            cache.insert(Data(repeating: 1, count: 100), for: Self.reference(index))
            // Reference 0 is read after every insert, so it is never the least recent.
            #expect(cache.data(for: Self.reference(0)) != nil)
        }
        let cached = (0..<1_000).filter { cache.data(for: Self.reference($0)) != nil }
        // Two generations of at most half the limit each: 16 values of 100 bytes.
        #expect(cached.count <= 16)
        #expect(cached.contains(999))
    }

    @Test func doesNotCacheDataTooLargeForIt() {
        var cache = ValueDataCache(byteLimit: 1_600)
        cache.insert(Data(repeating: 1, count: 1_600 / ValueDataCache.largestFraction + 1), for: Self.reference(1))
        #expect(cache.data(for: Self.reference(1)) == nil)
    }

    @Test(arguments: Backend.allCases)
    func aStoreReadsEachValueFromStorageOnceWhileItIsCached(_ backend: Backend) throws {
        let test = try TestStore(backend)
        let version = try test.store.makeVersion(basedOnPredecessor: nil, inserting: [value("a", "1"), value("b", "2")])
        let counting = CountingStorage(base: test.storage)
        let store = try Store(rootDirectoryURL: test.directory.url, storage: counting)
        for _ in 0..<5 {
            #expect(try store.text("a", at: version.id) == "1")
            #expect(try store.text("b", at: version.id) == "2")
        }
        #expect(counting.reads.withLock { $0[version.id] } == 2)
    }

    /// A store reports the cache budget it was opened with; a negative one counts as 0.
    @Test(arguments: [(nil, Store.defaultCacheByteLimit), (1 << 20, 1 << 20), (0, 0), (-1, 0), (Int.min, 0)] as [(Int?, Int)])
    func aStoreReportsItsCacheBudget(_ limit: Int?, expected: Int) throws {
        let directory = try TemporaryDirectory()
        let store = try limit.map { try Store(rootDirectoryURL: directory.url, storage: MemoryStorage(), cacheByteLimit: $0) }
            ?? Store(rootDirectoryURL: directory.url, storage: MemoryStorage())
        #expect(store.cacheByteLimit == expected)
    }
}
