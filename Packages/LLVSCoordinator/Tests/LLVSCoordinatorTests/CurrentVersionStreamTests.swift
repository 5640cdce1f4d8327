import Foundation
import LLVSCoordinator
import LLVSCore
import LLVSExchange
import LLVSStore
import LLVSTesting
import Testing

/// `currentVersions`: the current version as an AsyncSequence.
@Suite struct CurrentVersionStreamTests {
    @Test func theStreamYieldsTheCurrentVersionThenEverySaveAndMerge() async throws {
        let directories = try CoordinatorDirectories()
        let coordinator = try directories.makeCoordinator()
        var iterator = coordinator.currentVersions.makeAsyncIterator()
        #expect(await iterator.next() == StoreCoordinator.emptyRootVersionID)

        let first = try #require(try coordinator.save(updating: [textValue("A", "1")]))
        let second = try #require(try coordinator.save(updating: [textValue("A", "2")]))
        #expect(await iterator.next() == first.id)
        #expect(await iterator.next() == second.id)

        let other = try coordinator.store.makeVersion(basedOnPredecessor: first.id, updating: [textValue("B", "b")])
        #expect(coordinator.merge())
        let merged = coordinator.currentVersion
        #expect(merged != second.id && merged != other.id)
        #expect(await iterator.next() == merged)

        // A merge with nothing to do and a branch save yield nothing; the next save does.
        #expect(!coordinator.merge())
        try coordinator.save(updating: [textValue("C", "c")], in: Branch("side"))
        let third = try #require(try coordinator.save(updating: [textValue("A", "3")]))
        #expect(await iterator.next() == third.id)

        // A new stream starts with the present current version.
        var late = coordinator.currentVersions.makeAsyncIterator()
        #expect(await late.next() == third.id)
    }

    @Test func streamsEndWhenTheCoordinatorIsReleased() async throws {
        let directories = try CoordinatorDirectories()
        var coordinator: StoreCoordinator? = try directories.makeCoordinator()
        let stream = try #require(coordinator?.currentVersions)
        try coordinator?.save(updating: [textValue("A", "1")])
        coordinator = nil
        var received: [Version.ID] = []
        for await version in stream { received.append(version) }
        #expect(received.count == 2)
    }

    @Test func concurrentSavesReachEveryStreamInOrder() async throws {
        let directories = try CoordinatorDirectories()
        let coordinator = try directories.makeCoordinator()
        let streams = (0..<3).map { _ in coordinator.currentVersions }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask { try coordinator.save(updating: [textValue("K\(index % 3)", "\(index)")]) }
            }
            try await group.waitForAll()
        }
        let final = coordinator.currentVersion
        var sequences: [[Version.ID]] = []
        for stream in streams {
            var sequence: [Version.ID] = []
            for await version in stream {
                sequence.append(version)
                if version == final { break }
            }
            sequences.append(sequence)
        }
        #expect(sequences.allSatisfy { $0 == sequences[0] })
        #expect(sequences[0].count == 9, "the root and eight saves")
        // Saves are serialized: each is based on the previous one.
        let versions = sequences[0].dropFirst().compactMap { coordinator.store.version(identifiedBy: $0) }
        for (previous, next) in zip(sequences[0], versions) {
            #expect(next.predecessorIds == [previous])
        }
    }
}
