import Foundation
import Testing

/// `llvs` commands killed between writing a version and saving `state.json`, and stores
/// whose data was deleted under them (issue 21, point 5).
@Suite struct InterruptedCommandTests {
    /// Every file under `url`, relative, to check that a command created nothing.
    static func listing(_ url: URL) -> Set<String> {
        Set(FileManager.default.enumerator(atPath: url.path)?.compactMap { $0 as? String } ?? [])
    }

    /// Runs `arguments` with the test hook that kills the process right after its versions
    /// are written, before `state.json` is saved, and checks that it died of SIGKILL.
    static func killedAfterCommit(_ llvs: ToolRunner, _ arguments: [String]) throws {
        var killing = llvs
        killing.environment["LLVS_TEST_KILL_AFTER_COMMIT"] = "1"
        let result = try killing.run(arguments)
        #expect(result.status == SIGKILL, "\(arguments): status \(result.status) \(result.stderr)")
    }

    /// A `put` killed after its commit leaves an unacknowledged version, the one head of the
    /// store, descending from HEAD. Like a commit no ref points to, it is never merged,
    /// fast-forwarded to or pushed; the next commands work from HEAD.
    @Test(arguments: ["file", "sqlite"])
    func aPutKilledAfterItsCommitIsNeverBroughtBack(_ storage: String) throws {
        let scratch = try ScratchDirectory()
        let llvs = try ToolRunner("llvs")
        let store = ["--store", scratch.path("a")]
        try llvs.succeed(["init", "--storage", storage] + store)
        try llvs.succeed(["put", "k", "acknowledged"] + store)
        try Self.killedAfterCommit(llvs, ["put", "k", "lost"] + store)
        #expect(try llvs.succeed(["get", "k"] + store).text == "acknowledged")

        // merge and pull (through sync) leave it out, and so does push.
        let merge = try llvs.succeed(["merge", "--json"] + store).object()
        #expect(merge["result"] as? String == "upToDate", "\(merge)")
        #expect(try llvs.succeed(["get", "k"] + store).text == "acknowledged")
        let shared = scratch.path("shared")
        try llvs.succeed(["push", shared] + store)
        try llvs.succeed(["put", "other", "x"] + store)
        try llvs.succeed(["sync", shared] + store)
        #expect(try llvs.succeed(["get", "k"] + store).text == "acknowledged")

        let clone = ["--store", scratch.path("b")]
        try llvs.succeed(["init", "--storage", storage] + clone)
        try llvs.succeed(["pull", shared] + clone)
        #expect(try llvs.succeed(["get", "k"] + clone).text == "acknowledged")
        #expect(try llvs.succeed(["get", "other"] + clone).text == "x")
        let versions = { (arguments: [String]) in try llvs.succeed(["stats", "--json"] + arguments).object()["versions"] as? Int }
        #expect(try versions(clone) == 2, "the abandoned version was not pushed")
        #expect(try versions(store) == 3)
        try llvs.succeed(["verify"] + store)
        try llvs.succeed(["verify"] + clone)
    }

    /// A merge killed after its commit must not hide the heads it merged: the next merge
    /// merges them again (and, since a merge's identifier follows from what it merges,
    /// acknowledges the same version).
    @Test func aMergeKilledAfterItsCommitIsMadeAgainByTheNextMerge() throws {
        let scratch = try ScratchDirectory()
        let llvs = try ToolRunner("llvs")
        let a = ["--store", scratch.path("a")], b = ["--store", scratch.path("b")]
        let shared = scratch.path("shared")
        try llvs.succeed(["init"] + a)
        try llvs.succeed(["put", "base", "0"] + a)
        try llvs.succeed(["push", shared] + a)
        try llvs.succeed(["init"] + b)
        try llvs.succeed(["pull", shared] + b)
        try llvs.succeed(["put", "from-b", "b"] + b)
        try llvs.succeed(["push", shared] + b)
        try llvs.succeed(["put", "from-a", "a"] + a)
        try llvs.succeed(["pull", shared] + a)
        try Self.killedAfterCommit(llvs, ["merge"] + a)
        #expect(try llvs.run(["get", "from-b"] + a).status == 4, "HEAD did not move to the killed merge")

        let merge = try llvs.succeed(["merge", "--json"] + a).object()
        #expect(merge["result"] as? String == "merged", "\(merge)")
        #expect(try llvs.succeed(["get", "from-b"] + a).text == "b")
        #expect(try llvs.succeed(["get", "from-a"] + a).text == "a")
        try llvs.succeed(["verify"] + a)
    }

    /// A store whose data was deleted: verify reports it (status 6) and, like every other
    /// command, creates nothing in its place (it used to create an empty database that
    /// verified intact).
    @Test(arguments: ["file", "sqlite"])
    func commandsOnAStoreWhoseDataWasDeletedCreateNothing(_ storage: String) throws {
        let scratch = try ScratchDirectory()
        let llvs = try ToolRunner("llvs")
        let store = ["--store", scratch.path("s")]
        try llvs.succeed(["init", "--storage", storage] + store)
        try llvs.succeed(["put", "k", "v"] + store)
        let data = scratch.url.appendingPathComponent("s/store")
        try FileManager.default.removeItem(at: data)
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let before = Self.listing(scratch.url)

        let verify = try llvs.run(["verify"] + store)
        #expect(verify.status == 6, "\(verify.status) \(verify.text) \(verify.stderr)")
        #expect(verify.text.contains("the store's data is missing"), "\(verify.text)")
        #expect(verify.text.contains("HEAD names this version"), "\(verify.text)")
        let json = try llvs.run(["verify", "--json"] + store)
        #expect(json.status == 6)
        #expect((try json.object()["problems"] as? [Any])?.count == 2)
        for arguments in [["get", "k"], ["log"], ["stats"], ["put", "k", "w"], ["merge"]] {
            let result = try llvs.run(arguments + store)
            #expect(result.status == 6, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("data is missing"), "\(arguments): \(result.stderr)")
        }
        #expect(Self.listing(scratch.url) == before, "nothing was created")
    }
}
