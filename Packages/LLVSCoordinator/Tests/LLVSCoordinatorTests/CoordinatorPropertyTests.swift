import Foundation
import LLVSCoordinator
import LLVSCore
import LLVSExchange
import LLVSStore
import LLVSTesting
import LLVSZones
import PropertyBased
import Testing

/// Random sequences of saves, removals, exchanges and merges on two coordinators.
@Suite struct CoordinatorPropertyTests {
    /// One step: (replica 0–1, kind 0–3: update / remove / exchange / merge, key 0–3, datum).
    static let steps = zip(Gen.int(in: 0...1), Gen.int(in: 0...3), Gen.int(in: 0...3), Gen.int(in: 0...99)).array(of: 1...16)

    struct Pair {
        let directories: [CoordinatorDirectories]
        let coordinators: [StoreCoordinator]
    }

    func makePair(storage: () -> any Storage) throws -> Pair {
        let space = MemoryExchangeSpace()
        let directories = try (0..<2).map { try CoordinatorDirectories("p\($0)") }
        let coordinators = try directories.map { try $0.makeCoordinator(storage: storage()) }
        for coordinator in coordinators {
            coordinator.exchange = MemoryExchange(space: space, store: coordinator.store)
        }
        return Pair(directories: directories, coordinators: coordinators)
    }

    func play(_ steps: [(Int, Int, Int, Int)], on coordinators: [StoreCoordinator]) async throws {
        for (replica, kind, key, datum) in steps {
            let coordinator = coordinators[replica]
            switch kind {
            case 0:
                try coordinator.save(updating: [textValue("K\(key)", "r\(replica)-\(datum)")])
            case 1:
                if try coordinator.value(idString: "K\(key)") != nil { try coordinator.save(removing: [Value.ID("K\(key)")]) }
            case 2:
                try await coordinator.exchange()
            default:
                try coordinator.performMerge()
            }
        }
        // Settle (convergence property 2, ARCHITECTURE.md): exchange until both hold every
        // version, merge on both (the same heads give the same merge version), then
        // exchange that merge.
        for coordinator in coordinators + coordinators.prefix(1) { try await coordinator.exchange() }
        for coordinator in coordinators { try coordinator.performMerge() }
        for coordinator in coordinators { try await coordinator.exchange() }
    }

    func texts(_ coordinator: StoreCoordinator) throws -> [String: String] {
        Dictionary(uniqueKeysWithValues: try coordinator.values().map { ($0.id.rawValue, text(of: $0) ?? "") })
    }

    /// 300 cases (each opens four temporary directories and writes the state file on every
    /// save): once both coordinators hold every version and merge, they read the same values
    /// at the same current version, and after exchanging that merge it is the single head of
    /// both stores.
    ///
    /// (Alternating "exchange, then merge" rounds alone do not settle: each replica's merge
    /// is sent only by its next exchange, after the other replica has merged a different
    /// set of heads, so each round makes new merge versions until one replica exchanges
    /// twice in a row.)
    /// `LLVS_PROPERTY_CASES` lowers the counts (the thread-sanitizer run of `Scripts/test --extended`).
    static func cases(_ count: Int) -> Int {
        ProcessInfo.processInfo.environment["LLVS_PROPERTY_CASES"].flatMap(Int.init).map { min($0, count) } ?? count
    }

    @Test func randomSyncSessionsConverge() async {
        await propertyCheck(count: Self.cases(300), input: Self.steps) { steps in
            do {
                let pair = try makePair { MemoryStorage() }
                let (a, b) = (pair.coordinators[0], pair.coordinators[1])
                try await play(steps, on: pair.coordinators)
                #expect(try texts(a) == texts(b))
                #expect(a.currentVersion == b.currentVersion)
                #expect(a.store.queryHistory { $0.headIdentifiers } == [a.currentVersion])
                #expect(b.store.queryHistory { $0.headIdentifiers } == [b.currentVersion])
                #expect(versionIds(of: a.store) == versionIds(of: b.store))
                // Every key holds a value one of the replicas saved.
                for (key, value) in try texts(a) { #expect(value.hasPrefix("r0-") || value.hasPrefix("r1-"), "\(key)") }
            } catch {
                Issue.record("unexpected error: \(error)")
            }
        }
    }

    /// 40 cases on file storage, where the current version must also survive a relaunch.
    @Test func randomSyncSessionsConvergeOnFileStorageAndReopen() async {
        await propertyCheck(count: Self.cases(40), input: Self.steps) { steps in
            do {
                let pair = try makePair { FileStorage() }
                try await play(steps, on: pair.coordinators)
                let expected = try texts(pair.coordinators[0])
                #expect(try texts(pair.coordinators[1]) == expected)
                let reopened = try pair.directories[1].makeCoordinator()
                #expect(reopened.currentVersion == pair.coordinators[1].currentVersion)
                #expect(try texts(reopened) == expected)
            } catch {
                Issue.record("unexpected error: \(error)")
            }
        }
    }
}
