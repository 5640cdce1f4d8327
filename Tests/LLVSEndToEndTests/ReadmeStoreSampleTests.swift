import Foundation
import LLVS
import LLVSTesting
import Testing

/// The `Store` code samples of the two LLVS READMEs (`reference/llvs-readme-current.txt`
/// and `reference/llvs-readme-2019.md`), written as printed, run on Linux, and checked
/// against what the READMEs say they do. Differences: the app-group container becomes a
/// temporary directory (Apple-only API); `Store(rootDirectoryURL:)` is called with `try`
/// (it throws, as the current README shows); force-unwraps of sample data stay as printed.
@Suite struct ReadmeStoreSampleTests {
    /// README (current), "Advanced: the Store class", and README (2019), "Advanced: The
    /// `Store` Class": creating, inserting, updating, removing, fetching.
    @Test func storeClassWalkthrough() throws {
        let directory = try TemporaryDirectory()
        let rootDir = directory.url.appendingPathComponent("MyStore")
        let store = try Store(rootDirectoryURL: rootDir)

        // Every write creates a new version.
        let value = Value(idString: "ABCDEF", data: "Hello".data(using: .utf8)!)
        let firstVersion = try store.makeVersion(basedOnPredecessor: nil, inserting: [value])

        let updated = Value(idString: "ABCDEF", data: "World".data(using: .utf8)!)
        let secondVersion = try store.makeVersion(
            basedOnPredecessor: firstVersion.id,
            updating: [updated]
        )

        // Inserts, updates, and removes can be combined in a single call.
        let newValue = Value(idString: "NEW", data: "New".data(using: .utf8)!)
        let changedValue = Value(idString: "ABCDEF", data: "Changed".data(using: .utf8)!)
        let obsoleteValueId = Value.ID("ABCDEF-OLD")
        let thirdVersion = try store.makeVersion(
            basedOnPredecessor: secondVersion.id,
            inserting: [newValue],
            updating: [changedValue],
            removing: [obsoleteValueId]
        )

        // Versions are store-wide: any value at any version.
        let fetched = try store.value(idString: "ABCDEF", at: secondVersion.id)!
        #expect(String(data: fetched.data, encoding: .utf8) == "World")
        #expect(try store.value(idString: "ABCDEF", at: firstVersion.id)?.data == "Hello".data(using: .utf8))
        #expect(try store.value(idString: "ABCDEF", at: thirdVersion.id)?.data == "Changed".data(using: .utf8))
        #expect(try store.value(idString: "NEW", at: thirdVersion.id) != nil)
        #expect(try store.value(idString: "NEW", at: secondVersion.id) == nil)
    }

    @Test func insertingUpdatingAndRemovingAsIn2019() throws {
        let directory = try TemporaryDirectory()
        let rootStoreDirectory = directory.url.appendingPathComponent("MyStore")
        let store = try Store(rootDirectoryURL: rootStoreDirectory)

        let v1 = Value(idString: "ABCDEF", data: "First Value".data(using: .utf8)!)
        let firstVersion = try store.makeVersion(basedOnPredecessor: nil, inserting: [v1])

        let v2 = Value(idString: "CDEFGH", data: "My second data".data(using: .utf8)!)
        let secondVersion = try store.makeVersion(basedOnPredecessor: firstVersion.id, inserting: [v2])

        do {
            let value = try store.value(idString: "CDEFGH", at: secondVersion.id)!
            let fetchedString = String(data: value.data, encoding: .utf8)
            #expect(fetchedString == "My second data")
            // "if we had passed in the first version, nil would have been returned"
            #expect(try store.value(idString: "CDEFGH", at: firstVersion.id) == nil)
        }
        do {
            let valueId = Value.ID("ABCDEF")
            let value = try store.value(id: valueId, at: secondVersion.id)!
            let fetchedString = String(data: value.data, encoding: .utf8)
            #expect(fetchedString == "First Value")
        }

        let updateData = "An update of my first data".data(using: .utf8)!
        let updateValue = Value(idString: "ABCDEF", data: updateData)
        let removeId = Value.ID("CDEFGH")
        let thirdVersion = try store.makeVersion(basedOnPredecessor: secondVersion.id,
            updating: [updateValue], removing: [removeId])

        // This will be nil
        let value = try store.value(id: Value.ID("CDEFGH"), at: thirdVersion.id)
        #expect(value == nil)
        #expect(try store.value(id: "ABCDEF", at: thirdVersion.id)?.data == updateData)
    }

    /// "Navigating History", "Merging": heads, the most recent head, and merging with a
    /// built-in arbiter (a fast-forward when one version descends from the other).
    @Test func headsAndMerging() throws {
        let directory = try TemporaryDirectory()
        let store = try Store(rootDirectoryURL: directory.url)
        let base = try store.makeVersion(basedOnPredecessor: nil, inserting: [Value(idString: "note", data: Data("base".utf8))])
        let headA = try store.makeVersion(basedOnPredecessor: base.id, updating: [Value(idString: "note", data: Data("phone".utf8))]).id
        let headB = try store.makeVersion(basedOnPredecessor: base.id, updating: [Value(idString: "note", data: Data("tablet".utf8))]).id

        var heads: Set<Version.Identifier>?
        store.queryHistory { history in
            heads = history.headIdentifiers
        }
        #expect(heads == [headA, headB])
        store.queryHistory { history in
            let heads = history.headIdentifiers
            #expect(heads.count == 2)
        }
        let latest: Version? = store.mostRecentHead
        #expect(latest?.id == headB)
        let version: Version? = store.mostRecentHead
        #expect(version?.id == headB)

        let arbiter = MostRecentChangeFavoringArbiter()
        let merged = try store.merge(version: headA, with: headB, resolvingWith: arbiter)
        #expect(try store.value(idString: "note", at: merged.id)?.data == Data("tablet".utf8), "the newer change wins")

        // 2019 spelling; fast-forward: no new version, the descendant is returned.
        let currentVersionId = headA, otherHeadId = merged.id
        let newVersion = try store.merge(currentVersionId, with: otherHeadId, resolvingWith: arbiter)
        #expect(newVersion.id == merged.id)
        #expect(store.queryHistory { $0.count } == 4)
    }

    /// "Inside a MergeArbiter": the README's `MostRecentBranchFavoringArbiter`, written
    /// against `Store` exactly as printed, resolves real merges.
    @Test func customArbiterAsPrinted() throws {
        let directory = try TemporaryDirectory()
        let store = try Store(rootDirectoryURL: directory.url)
        let base = try store.makeVersion(basedOnPredecessor: nil, inserting: [
            Value(idString: "both", data: Data("0".utf8)), Value(idString: "gone", data: Data("0".utf8)),
        ])
        let older = try store.makeVersion(basedOnPredecessor: base.id, updating: [
            Value(idString: "both", data: Data("older".utf8)), Value(idString: "gone", data: Data("kept?".utf8)),
        ])
        let newer = try store.makeVersion(basedOnPredecessor: base.id, updating: [Value(idString: "both", data: Data("newer".utf8))],
                                          removing: ["gone"])
        let merged = try store.merge(version: older.id, with: newer.id, resolvingWith: MostRecentBranchFavoringArbiter())
        #expect(try store.value(idString: "both", at: merged.id)?.data == Data("newer".utf8))
        #expect(try store.value(idString: "gone", at: merged.id) == nil, "the newer branch removed it")
    }
}
