import LLVSCore
import Testing
@testable import LLVSMerge

@Suite struct ArbiterTests {
    /// Versions A (t=10) and B (t=20), each with its own value for every id, and older
    /// stores S1 (t=1) and S2 (t=2).
    static func context() -> TestContext {
        var context = TestContext()
        context.addVersion("A", timestamp: 10)
        context.addVersion("B", timestamp: 20)
        context.addVersion("S1", timestamp: 1)
        context.addVersion("S2", timestamp: 2)
        for id in ["x", "y", "z"] as [Value.ID] {
            context.references["A", default: [:]][id] = ref(id, "A")
            context.references["B", default: [:]][id] = ref(id, "B")
        }
        return context
    }

    static func merge(_ forks: [Value.ID: Value.Fork], first: Version.ID = "A", second: Version.ID = "B", context: TestContext) throws -> Merge {
        Merge(versions: (try #require(context.versions[first]), try #require(context.versions[second])),
              commonAncestor: nil, forksByValueIdentifier: forks)
    }

    @Test func branchArbiterFavorsTheNewerBranch() throws {
        let context = Self.context()
        let merge = try Self.merge(["x": .twiceUpdated, "y": .removedAndUpdated(removedOn: .first),
                                    "z": .removedAndUpdated(removedOn: .second), "w": .inserted(.first)], context: context)
        let changes = try MostRecentBranchFavoringArbiter().changes(toResolve: merge, in: AnyMergeContext(context))
        // B (second) is newer: its value of x; y was updated on B so keep B's; z was removed on B.
        #expect(changes == [.preserve(ref("x", "B")), .preserve(ref("y", "B")), .preserveRemoval("z")])
    }

    @Test func fixedBranchArbiterFavorsItsSideWhateverTheTimestamps() throws {
        let context = Self.context()
        let merge = try Self.merge(["x": .twiceUpdated, "y": .removedAndUpdated(removedOn: .first),
                                    "z": .removedAndUpdated(removedOn: .second), "w": .inserted(.second)], context: context)
        let ours = try BranchFavoringArbiter(favoring: .first).changes(toResolve: merge, in: AnyMergeContext(context))
        // A (first) is older but favoured: its x, its removal of y, its update of z.
        #expect(ours == [.preserve(ref("x", "A")), .preserveRemoval("y"), .preserve(ref("z", "A"))])
        let theirs = try BranchFavoringArbiter(favoring: .second).changes(toResolve: merge, in: AnyMergeContext(context))
        #expect(theirs == [.preserve(ref("x", "B")), .preserve(ref("y", "B")), .preserveRemoval("z")])
    }

    @Test func branchArbiterBreaksTimestampTiesByIdentifier() throws {
        var context = Self.context()
        context.addVersion("A", timestamp: 20)
        for (first, second) in [("A", "B"), ("B", "A")] as [(Version.ID, Version.ID)] {
            let merge = try Self.merge(["x": .twiceInserted], first: first, second: second, context: context)
            let changes = try MostRecentBranchFavoringArbiter().changes(toResolve: merge, in: AnyMergeContext(context))
            #expect(changes == [.preserve(ref("x", "B"))], "the greater identifier wins, in either order")
        }
    }

    @Test func changeArbiterKeepsUpdatesOverRemovals() throws {
        let context = Self.context()
        let merge = try Self.merge(["y": .removedAndUpdated(removedOn: .second), "z": .removedAndUpdated(removedOn: .first)], context: context)
        let changes = try MostRecentChangeFavoringArbiter().changes(toResolve: merge, in: AnyMergeContext(context))
        #expect(changes == [.preserve(ref("y", "A")), .preserve(ref("z", "B"))])
    }

    @Test func changeArbiterFavorsTheValueStoredMostRecently() throws {
        var context = Self.context()
        // At A, x was stored by S2 (t=2); at B by S1 (t=1): A's is the newer change although
        // B is the newer branch.
        context.references["A"]?["x"] = ref("x", "S2")
        context.references["B"]?["x"] = ref("x", "S1")
        let merge = try Self.merge(["x": .twiceUpdated, "y": .twiceInserted], context: context)
        let changes = try MostRecentChangeFavoringArbiter().changes(toResolve: merge, in: AnyMergeContext(context))
        #expect(changes == [.preserve(ref("x", "S2")), .preserve(ref("y", "B"))])
    }

    @Test func missingValuesAndVersionsAreNamed() throws {
        var context = Self.context()
        context.references["B"]?["x"] = nil
        let merge = try Self.merge(["x": .twiceUpdated], context: context)
        #expect(throws: MergeArbiterError.missingValue("x", at: "B")) {
            _ = try MostRecentBranchFavoringArbiter().changes(toResolve: merge, in: AnyMergeContext(context))
        }
        context.references["B"]?["x"] = ref("x", "gone")
        #expect(throws: MergeArbiterError.missingVersion("gone")) {
            _ = try MostRecentChangeFavoringArbiter().changes(toResolve: merge, in: AnyMergeContext(context))
        }
    }

    @Test func nonConflictingForksNeedNoChanges() throws {
        let context = Self.context()
        let merge = try Self.merge(["x": .inserted(.second), "y": .updated(.first), "z": .twiceRemoved, "w": .removed(.second)], context: context)
        #expect(try MostRecentBranchFavoringArbiter().changes(toResolve: merge, in: AnyMergeContext(context)).isEmpty)
        #expect(try MostRecentChangeFavoringArbiter().changes(toResolve: merge, in: AnyMergeContext(context)).isEmpty)
    }
}
