import Foundation
import LLVSCore
import LLVSSyncProtocol
import LLVSSyncStorage
import LLVSTesting
import PropertyBased
import Testing

/// Random pushes against a model: whatever batches arrive, in whatever order, with repeats
/// and with batches whose predecessors are missing, the storage lists exactly the versions
/// of the accepted batches, once each, every one after its predecessors; a refused batch
/// leaves no trace.
@Suite("Server storage properties")
struct SyncStoragePropertyTests {
    /// `LLVS_PROPERTY_CASES` lowers the count (the thread-sanitizer run of `Scripts/test --extended`).
    static let cases = ProcessInfo.processInfo.environment["LLVS_PROPERTY_CASES"].flatMap(Int.init).map { min($0, 60) } ?? 60
    /// Graph seeds (one per version) and the batch size.
    static let input = zip(Gen.int(in: 0...1_000).array(of: 1...40), Gen.int(in: 1...5))

    /// A random DAG of `count` versions, as (id, predecessors), in a topological order.
    static func graph(count: Int, seeds: [Int]) -> [(String, [String])] {
        var nodes: [(String, [String])] = []
        for index in 0..<count {
            let seed = seeds[index % seeds.count]
            var predecessors: [String] = []
            if index > 0 && seed % 5 != 0 { predecessors.append("v\(seed % index)") }
            if index > 1 && seed % 3 == 0, let second = Optional("v\((seed / 7) % index)"), !predecessors.contains(second) {
                predecessors.append(second)
            }
            nodes.append(("v\(index)", predecessors))
        }
        return nodes
    }

    @Test("Accepted batches are listed once each, predecessors first; refused batches leave nothing", arguments: StorageKind.available)
    func modelCheck(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory(prefix: "llvs-storage-property")
        let storage = try await makeStorage(kind, in: directory)
        await propertyCheck(count: Self.cases, input: Self.input) { seeds, batchSize in
            try await Self.check(storage: storage, seeds: seeds, batchSize: batchSize)
        }
    }

    static func check(storage: any SyncStorage, seeds: [Int], batchSize: Int) async throws {
        let store = uniqueStoreName("prop")
        let nodes = graph(count: seeds.count, seeds: seeds)
        var accepted = Set<String>()
        var expectedOrder: [String] = []
        var index = 0
        var step = 0
        while index < nodes.count {
            step += 1
            let end = min(nodes.count, index + batchSize)
            var batch = Array(nodes[index..<end])
            // Every third batch repeats the previous one's first version; every fourth skips
            // ahead, pushing versions whose predecessors the server may lack.
            if step % 3 == 0, index > 0 { batch.insert(nodes[index - 1], at: 0) }
            let skipping = step % 4 == 0 && end < nodes.count
            if skipping { batch = Array(nodes[end..<min(nodes.count, end + batchSize)]) }
            let stored = try batch.map { try storedVersion($0.0, $0.1) }
            let placeable = batch.allSatisfy { node in
                node.1.allSatisfy { predecessor in accepted.contains(predecessor)
                    || batch.prefix(while: { $0.0 != node.0 }).contains { $0.0 == predecessor } }
            }
            do {
                let outcome = try await storage.push(stored, to: store)
                #expect(placeable, "a push with missing predecessors was accepted")
                var new: [String] = []
                for node in batch where accepted.insert(node.0).inserted { new.append(node.0) }
                expectedOrder += new
                #expect(outcome.added.map(\.rawValue) == new)
                #expect(outcome.alreadyPresentCount == batch.count - new.count)
            } catch SyncStorageError.unknownPredecessors {
                #expect(!placeable, "a valid push was refused")
            }
            if !skipping { index = end }
        }
        let listing = try await storage.listVersions(in: store, after: nil, limit: 10_000)
        #expect(listing.versionIds.map(\.rawValue) == expectedOrder)
        var position: [String: Int] = [:]
        for (offset, id) in listing.versionIds.enumerated() { position[id.rawValue] = offset }
        for node in nodes where position[node.0] != nil {
            for predecessor in node.1 {
                #expect((position[predecessor] ?? .max) < position[node.0]!, "\(node.0) listed before its predecessor \(predecessor)")
            }
        }
    }
}
