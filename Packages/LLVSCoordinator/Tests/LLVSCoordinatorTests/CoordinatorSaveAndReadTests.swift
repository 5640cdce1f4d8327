import Foundation
import LLVSCoordinator
import LLVSCore
import LLVSStore
import LLVSTesting
import LLVSZones
import Testing

/// Saving and reading through the coordinator, on the main line and on branches.
@Suite struct CoordinatorSaveAndReadTests {
    @Test(arguments: ["file", "memory"])
    func savesMoveTheCurrentVersionAndValuesReadAtIt(backend: String) throws {
        let directories = try CoordinatorDirectories()
        let coordinator = try directories.makeCoordinator(storage: backend == "file" ? FileStorage() : MemoryStorage())
        let first = try #require(try coordinator.save(inserting: [textValue("A", "a1"), textValue("B", "b1")]))
        #expect(coordinator.currentVersion == first.id)
        #expect(first.predecessorIds == [StoreCoordinator.emptyRootVersionID])
        let second = try #require(try coordinator.save(inserting: [textValue("C", "c1")], updating: [textValue("A", "a2")], removing: ["B"]))
        #expect(coordinator.currentVersion == second.id)
        #expect(second.predecessorIds == [first.id])

        #expect(text(of: try coordinator.value(id: "A")) == "a2")
        #expect(text(of: try coordinator.value(idString: "C")) == "c1")
        #expect(try coordinator.value(idString: "B") == nil)
        #expect(Set(try coordinator.values().map(\.id)) == ["A", "C"])
        #expect(Set(try coordinator.valueReferences().map(\.valueId)) == ["A", "C"])
        // Older versions stay readable.
        #expect(Set(try coordinator.values(at: first.id).map(\.id)) == ["A", "B"])
        #expect(try coordinator.valueReferences(at: first.id).allSatisfy { $0.storedVersionId == first.id })
        #expect(try coordinator.values(at: StoreCoordinator.emptyRootVersionID).isEmpty)
    }

    @Test func savingChangesUsesTheDefaultMetadataAndSkipsEmptySaves() throws {
        let directories = try CoordinatorDirectories()
        let coordinator = try directories.makeCoordinator()
        let author = try Version.MetadataValue("ada")
        coordinator.defaultMetadataForNewVersions = ["author": author]
        let version = try #require(try coordinator.save([.insert(textValue("A", "1")), .update(textValue("B", "2"))]))
        #expect(version.metadata["author"] == author)
        let explicit = try #require(try coordinator.save([.remove("A")], metadata: ["author": try Version.MetadataValue("bob")]))
        #expect(explicit.metadata["author"] == (try Version.MetadataValue("bob")))
        #expect(try coordinator.save([]) == nil)
        #expect(try coordinator.save() == nil)
        #expect(coordinator.currentVersion == explicit.id)
    }

    /// `save(in:metadata:makingChanges:)` hands its closure the version it will save on
    /// (the current version, or a branch's head); a throwing closure saves nothing, and one
    /// returning no changes saves nothing either.
    @Test func changesMadeFromTheBaseVersionAreSavedOnIt() throws {
        let directories = try CoordinatorDirectories()
        let coordinator = try directories.makeCoordinator()
        let first = try #require(try coordinator.save(inserting: [textValue("A", "1")]))
        let second = try #require(try coordinator.save { base in
            #expect(base == first.id)
            let current = text(of: try coordinator.store.value(id: "A", at: base)) ?? ""
            return [.update(textValue("A", current + "+1"))]
        })
        #expect(second.predecessorIds == [first.id] && coordinator.currentVersion == second.id)
        #expect(text(of: try coordinator.value(id: "A")) == "1+1")
        struct Refused: Error {}
        #expect(throws: Refused.self) { try coordinator.save { _ in throw Refused() } }
        #expect(try coordinator.save { _ in [] } == nil)
        #expect(coordinator.currentVersion == second.id)
        let branch = Branch("draft")
        let onBranch = try #require(try coordinator.save(in: branch) { base in
            #expect(base == second.id)
            return [.insert(textValue("B", "b"))]
        })
        #expect(coordinator.currentVersion == second.id && coordinator.heads(withBranch: branch) == [onBranch.id])
    }

    @Test func aRejectedSaveLeavesTheCurrentVersion() throws {
        let directories = try CoordinatorDirectories()
        let coordinator = try directories.makeCoordinator()
        let before = coordinator.currentVersion
        #expect(throws: StoreError.conflictingChanges(valueId: "A")) {
            try coordinator.save(inserting: [textValue("A", "1")], removing: ["A"])
        }
        #expect(coordinator.currentVersion == before)
    }

    @Test func branchSavesStayOffTheMainLineUntilMerged() throws {
        let directories = try CoordinatorDirectories()
        let coordinator = try directories.makeCoordinator()
        let main = try #require(try coordinator.save(updating: [textValue("A", "main")]))
        let draft = Branch("draft")
        #expect(coordinator.heads(withBranch: draft).isEmpty)
        #expect(coordinator.versionForBranchOrCurrentHead(for: draft) == main.id)

        let onBranch = try #require(try coordinator.save(updating: [textValue("A", "draft 1")], in: draft))
        #expect(onBranch.branch == draft)
        #expect(onBranch.predecessorIds == [main.id])
        #expect(coordinator.currentVersion == main.id, "a branch save does not move the current version")
        #expect(coordinator.heads(withBranch: draft) == [onBranch.id])
        #expect(coordinator.versionForBranchOrCurrentHead(for: draft) == onBranch.id)
        #expect(coordinator.versionForBranchOrCurrentHead() == main.id)

        // The next branch save builds on the branch head.
        let onBranch2 = try #require(try coordinator.save(updating: [textValue("B", "draft only")], in: draft))
        #expect(onBranch2.predecessorIds == [onBranch.id])
        #expect(text(of: try coordinator.value(id: "A", on: draft)) == "draft 1")
        #expect(text(of: try coordinator.value(idString: "B", on: draft)) == "draft only")
        #expect(text(of: try coordinator.value(idString: "A", on: nil)) == "main")
        #expect(text(of: try coordinator.value(idString: "A")) == "main")
        #expect(try coordinator.value(idString: "B") == nil)

        // The default merge leaves branches out; naming the branch brings it in (a fast-forward).
        #expect(!coordinator.merge())
        #expect(coordinator.currentVersion == main.id)
        #expect(coordinator.merge(headSelection: .allUnbranchedAndSpecificBranches([draft])))
        #expect(coordinator.currentVersion == onBranch2.id)
        #expect(text(of: try coordinator.value(idString: "B")) == "draft only")
    }

    @Test func mergeCombinesHeadsAndFastForwards() throws {
        let directories = try CoordinatorDirectories()
        let coordinator = try directories.makeCoordinator()
        let base = try #require(try coordinator.save(updating: [textValue("A", "base")]))
        // A version made on the store directly, ahead of the current version: a fast-forward.
        let ahead = try coordinator.store.makeVersion(basedOnPredecessor: base.id, updating: [textValue("B", "ahead")])
        #expect(coordinator.merge())
        #expect(coordinator.currentVersion == ahead.id)
        #expect(!coordinator.merge(), "nothing left to merge")
        // Two concurrent heads: a merge version with both changes.
        let other = try coordinator.store.makeVersion(basedOnPredecessor: base.id, updating: [textValue("C", "other")])
        try coordinator.save(updating: [textValue("A", "mine")])
        #expect(try coordinator.performMerge())
        let merged = try #require(coordinator.store.version(identifiedBy: coordinator.currentVersion))
        #expect(merged.predecessorIds.count == 2)
        #expect(merged.predecessorIds.contains(other.id))
        #expect(Dictionary(uniqueKeysWithValues: try coordinator.values().map { ($0.id.rawValue, text(of: $0) ?? "") })
                == ["A": "mine", "B": "ahead", "C": "other"])
        #expect(coordinator.lastMergeError == nil)
    }
}
