import Foundation
import LLVSCore
import LLVSExchange
import LLVSExchangeTesting
import LLVSMerge
import LLVSSQLite
import LLVSStore
import LLVSTesting
import LLVSZones
import PropertyBased
import Testing

/// Random histories on three stores, synced through an exchange whose transport fails at
/// random calls and lists versions in random orders: whatever happens, after a final clean
/// round every store holds every version, with identical values at each.
@Suite struct ExchangePropertyTests {
    /// Steps: (replica, action, key, fault): action 0–3 saves on the head, 4 saves on an
    /// older version (a branch), 5–6 syncs, 7 merges the heads; fault 0–2 fails that sync's
    /// n-th `send` or `retrieveValueChanges` call, 3–5 none; odd faults reverse the listing;
    /// a sync's key 1–3 hands the listing to the retrieve in parts of that many identifiers.
    static let steps = zip(Gen.int(in: 0...2), Gen.int(in: 0...7), Gen.int(in: 0...3), Gen.int(in: 0...5)).array(of: 1...25)

    /// `LLVS_PROPERTY_CASES` lowers the counts (the thread-sanitizer run of `Scripts/test --extended`).
    static func cases(_ count: Int) -> Int {
        ProcessInfo.processInfo.environment["LLVS_PROPERTY_CASES"].flatMap(Int.init).map { min($0, count) } ?? count
    }

    @Test func storesConvergeWhateverTheInterruptionsAndOrders() async {
        await propertyCheck(count: Self.cases(500), input: Self.steps) { steps in
            try await Self.check(steps, setup: .memory)
        }
    }

    @Test func storesConvergeThroughASharedDirectory() async {
        await propertyCheck(count: Self.cases(60), input: Self.steps) { steps in
            try await Self.check(steps, setup: .fileSystem)
        }
    }

    /// The same through a directory of format 1 (two files per version; fewer cases).
    @Test func storesConvergeThroughADirectoryOfVersionFiles() async {
        await propertyCheck(count: Self.cases(20), input: Self.steps) { steps in
            try await Self.check(steps, setup: .versionFilesDirectory)
        }
    }

    @Test func sqliteStoresConvergeThroughASharedDirectory() async {
        await propertyCheck(count: Self.cases(30), input: Self.steps) { steps in
            try await Self.check(steps, setup: .sqliteThroughFileSystem)
        }
    }

    /// Memory stores over a `MemoryExchangeSpace`; file or SQLite stores over a shared
    /// directory (of format 1 for `versionFilesDirectory`).
    enum Setup { case memory, fileSystem, versionFilesDirectory, sqliteThroughFileSystem }

    static func check(_ steps: [(Int, Int, Int, Int)], setup: Setup) async throws {
        let directories = try (0..<3).map { _ in try TemporaryDirectory(prefix: "llvs-exchange-property") }
        let stores = try directories.map { directory -> Store in
            let storage: any Storage
            switch setup {
            case .memory: storage = MemoryStorage()
            case .fileSystem, .versionFilesDirectory: storage = FileStorage()
            case .sqliteThroughFileSystem: storage = SQLiteStorage()
            }
            return try Store(rootDirectoryURL: directory.url, storage: storage)
        }
        let shared = try TemporaryDirectory(prefix: "llvs-exchange-property-shared")
        let space = MemoryExchangeSpace()
        let exchanges: [any Exchange] = stores.map { store -> any Exchange in
            switch setup {
            case .memory: return MemoryExchange(space: space, store: store)
            case .fileSystem, .sqliteThroughFileSystem: return FileSystemExchange(rootDirectoryURL: shared.url, store: store)
            case .versionFilesDirectory: return FileSystemExchange(rootDirectoryURL: shared.url, store: store, newDirectoryFormat: .versionFiles)
            }
        }
        let arbiter = MostRecentChangeFavoringArbiter()
        for (counter, (replica, action, key, fault)) in steps.enumerated() {
            let store = stores[replica]
            switch action {
            case 0...4:
                var base = store.mostRecentHead?.id
                if action == 4 {
                    let all = store.queryHistory { Array($0) }
                    base = all.isEmpty ? nil : all[(counter * 7 + key) % all.count].id
                }
                try store.makeVersion(basedOnPredecessor: base, updating: [Value(idString: "k\(key)", data: Data("\(replica)-\(counter)".utf8))])
            case 5, 6:
                let failing: (String, Int)? = fault < 3 ? (action == 5 ? "send" : "retrieveValueChanges", fault + 1) : nil
                let transport = FaultyExchange(exchanges[replica], reverseListing: fault % 2 == 1, listingPartCount: key == 0 ? nil : key,
                                               failing: failing, maximumBatchByteCount: 1)
                do {
                    try await transport.retrieve()
                    try await transport.send()
                } catch is InjectedFault {
                    // An interrupted exchange: the next one completes it.
                }
            default:
                if let head = store.mostRecentHead?.id { try store.mergeHeads(into: head, resolvingWith: arbiter) }
            }
        }
        for _ in 0..<2 {
            for exchange in exchanges {
                try await exchange.retrieve()
                try await exchange.send()
            }
        }
        let expected = stores[0].queryHistory { Set($0.allVersionIdentifiers) }
        for store in stores.dropFirst() {
            #expect(store.queryHistory { Set($0.allVersionIdentifiers) } == expected)
        }
        for version in expected {
            let reference = try values(of: stores[0], at: version)
            for store in stores.dropFirst() {
                #expect(try values(of: store, at: version) == reference, "values at \(version)")
            }
        }
    }

    static func values(of store: Store, at version: Version.ID) throws -> [Value.ID: Data] {
        var result: [Value.ID: Data] = [:]
        for reference in try store.valueReferences(at: version) {
            result[reference.valueId] = try store.value(storedAt: reference)?.data
        }
        return result
    }
}
