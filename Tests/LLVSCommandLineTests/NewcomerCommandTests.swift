import Foundation
import Testing

/// The `llvs` tool as a new user meets it (issue 20, point 6): named remotes with stored
/// tokens, clone, the store found from a subdirectory, revert, conflicts looked at and
/// settled by hand, and the small things (log -n, progress, suggestions, one error style,
/// singular counts, retries announced).
@Suite struct NewcomerCommandTests {
    static let token = "newcomer-test-token-0123456789"

    @Test func namedRemotesCloneRevertAndTheStoreFoundFromASubdirectory() throws {
        let scratch = try ScratchDirectory()
        let project = scratch.url.appendingPathComponent("project"), deeper = project.appendingPathComponent("sub/deeper")
        try FileManager.default.createDirectory(at: deeper, withIntermediateDirectories: true)
        var here = try ToolRunner("llvs")
        here.currentDirectory = project
        var below = here
        below.currentDirectory = deeper

        // `init` makes ./.llvs; commands in a subdirectory find it, as Git finds its repository.
        #expect(try here.succeed(["init", "--json"]).object()["path"] as? String == project.appendingPathComponent(".llvs").path)
        try below.succeed(["put", "k", "one"])
        #expect(try here.succeed(["get", "k"]).text == "one")
        #expect(try below.succeed(["stats", "--json"]).object()["path"] as? String == project.appendingPathComponent(".llvs").path)

        // Named remotes: a directory, and a served store with its token kept 0600.
        let other = ["--store", scratch.path("other")]
        try here.succeed(["init"] + other)
        try here.succeed(["put", "served", "yes"] + other)
        let server = try BackgroundTool(here, ["serve", "--port", "0", "--token", Self.token, "--json"] + other)
        defer { _ = server.stop() }
        _ = try server.lines(atLeast: 4)
        let url = try #require((try JSONSerialization.jsonObject(with: Data(server.stdout.utf8)) as? [String: Any])?["url"] as? String)
        try below.succeed(["remote", "add", "origin", scratch.path("shared")])
        try below.succeed(["remote", "add", "hub", url, "--token", Self.token])
        #expect(try below.run(["remote", "add", "origin", scratch.path("elsewhere")]).status == 64, "a name is added once")
        #expect(try below.run(["remote", "add", "dir", scratch.path("x"), "--token", Self.token]).status == 64, "no token for a directory")
        #expect(try below.run(["remote", "add", "-bad", scratch.path("x")]).status == 64)
        let listed = try here.succeed(["remote", "ls", "--json"])
        #expect(try listed.array().compactMap { $0["name"] as? String } == ["hub", "origin"])
        #expect(try listed.array().first?["hasToken"] as? Bool == true)
        #expect(!listed.text.contains(Self.token), "tokens are not printed")
        #expect(try here.succeed(["remote"]).text.contains("origin"), "`llvs remote` lists")
        let remotesFile = project.appendingPathComponent(".llvs/remotes.json").path
        let permissions = try FileManager.default.attributesOfItem(atPath: remotesFile)[.posixPermissions] as? Int
        #expect(permissions == 0o600)

        // push, pull and sync by name; the served store's token comes from the remote.
        #expect(try below.succeed(["push", "origin", "--json"]).object()["sent"] as? Int == 1)
        #expect(try below.succeed(["pull", "hub", "--json"]).object()["retrieved"] as? Int == 1)
        #expect(try below.succeed(["sync", "hub", "--json"]).object()["sent"] as? Int == 2, "our version and the merge")
        #expect(try here.succeed(["get", "served"]).text == "yes")

        // clone by name, by directory and by URL: HEAD set, the remote kept as origin.
        let byName = try here.succeed(["clone", "origin", scratch.path("by-name"), "--json"]).object()
        #expect(byName["retrieved"] as? Int == 1)
        #expect(try here.succeed(["get", "k", "--store", scratch.path("by-name")]).text == "one")
        let origin = try here.succeed(["remote", "ls", "--json", "--store", scratch.path("by-name")]).array()
        #expect(origin.first?["name"] as? String == "origin")
        #expect(origin.first?["location"] as? String == scratch.path("shared"))
        let byURL = try here.succeed(["clone", url, "--token", Self.token, scratch.path("by-url"), "--json"]).object()
        #expect(byURL["head"] as? String != nil)
        #expect(try here.succeed(["get", "k", "--store", scratch.path("by-url")]).text == "one")
        #expect(try here.succeed(["pull", "origin", "--store", scratch.path("by-url")]).status == 0, "a clone's origin works")
        #expect(try here.run(["clone", scratch.path("no-such-remote"), scratch.path("failed")]).status == 1)
        #expect(!FileManager.default.fileExists(atPath: scratch.path("failed")), "a failed clone leaves nothing behind")
        #expect(try here.run(["clone", "origin", scratch.path("by-name")]).status == 1, "clone refuses an existing store")

        // remote remove forgets the name and its token.
        try here.succeed(["remote", "rm", "hub"])
        #expect(try here.run(["remote", "rm", "hub"]).status == 64)
        #expect(try here.succeed(["remote", "ls", "--json"]).array().count == 1)

        // revert: undo a version on top of later work; the same revert again has nothing to do.
        try here.succeed(["put", "k", "two"])
        let changed = try #require(try here.succeed(["put", "note", "later"]).text.split(separator: " ").first)
        _ = changed
        let reverted = try here.succeed(["revert", "HEAD~1", "--json"]).object()
        #expect((reverted["changes"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["k"])
        #expect(try here.succeed(["get", "k"]).text == "one")
        #expect(try here.succeed(["get", "note"]).text == "later")
        #expect(try here.succeed(["revert", "HEAD~2"]).text.contains("Nothing to revert"))
        // A value changed again after the version is a conflict: status 1, nothing written.
        try here.succeed(["put", "k", "three"])
        let versions = try here.succeed(["stats", "--json"]).object()["versions"] as? Int
        let refused = try here.run(["revert", "HEAD~1"])
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("llvs: error: cannot revert"), "stderr: \(refused.stderr)")
        #expect(try here.succeed(["stats", "--json"]).object()["versions"] as? Int == versions)
        // Reverting a merge goes back to its first predecessor (--mainline 1) or the second.
        let log = try here.succeed(["log", "--json"]).array().compactMap { $0["version"] as? [String: Any] }
        let merge = try #require(log.first { ($0["predecessors"] as? [String])?.count == 2 })
        let mergeId = try #require(merge["id"] as? String)
        #expect(try here.run(["revert", mergeId, "--mainline", "3"]).status == 64)
        try here.succeed(["checkout", mergeId])
        let predecessors = try #require(merge["predecessors"] as? [String])
        try here.succeed(["revert", mergeId, "--mainline", "2"])
        let second = try here.succeed(["ls", "--json", "--at", predecessors[1]]).array().compactMap { $0["id"] as? String }
        #expect(try here.succeed(["ls", "--json"]).array().compactMap { $0["id"] as? String } == second)
    }

    @Test func conflictsAreShownWithBothSidesAndSettledByHand() throws {
        let scratch = try ScratchDirectory()
        let llvs = try ToolRunner("llvs")
        let a = ["--store", scratch.path("a")], b = ["--store", scratch.path("b")], shared = scratch.path("shared")
        try llvs.succeed(["init"] + a)
        for (key, value) in [("greeting", "hello"), ("colour", "red"), ("size", "small")] { try llvs.succeed(["put", key, value] + a) }
        try llvs.succeed(["push", shared] + a)
        try llvs.succeed(["init"] + b)
        try llvs.succeed(["pull", shared] + b)
        try llvs.succeed(["put", "greeting", "hello from a"] + a)
        try llvs.succeed(["put", "colour", "blue"] + a)
        try llvs.succeed(["push", shared] + a)
        try llvs.succeed(["put", "greeting", "hello from b"] + b)
        try llvs.succeed(["put", "colour", "green"] + b)
        try llvs.succeed(["put", "size", "large"] + b)
        try llvs.succeed(["pull", shared] + b)
        let versions = try llvs.succeed(["stats", "--json"] + b).object()["versions"] as? Int

        // `conflicts` and `merge --dry-run` show both sides, their times, and the base.
        let report = try llvs.succeed(["conflicts", "--json"] + b).object()
        let pairs = try #require(report["pairs"] as? [[String: Any]])
        #expect(pairs.count == 1)
        let conflicts = try #require(pairs.first?["conflicts"] as? [[String: Any]])
        #expect(conflicts.compactMap { $0["valueId"] as? String } == ["colour", "greeting"])
        let greeting = try #require(conflicts.last)
        func text(_ side: String) -> String? { ((greeting[side] as? [String: Any])?["data"] as? [String: Any])?["text"] as? String }
        #expect(text("ours") == "hello from b")
        #expect(text("theirs") == "hello from a")
        #expect(text("base") == "hello")
        #expect((greeting["ours"] as? [String: Any])?["date"] as? String != nil)
        let shown = try llvs.succeed(["conflicts"] + b).text
        #expect(shown.contains("1 conflict") == false && shown.contains("2 conflicts"), "\(shown)")
        #expect(shown.contains("hello from a") && shown.contains("hello from b") && shown.contains("theirs"), "\(shown)")
        #expect(try llvs.succeed(["merge", "--dry-run"] + b).text == shown)
        #expect(try llvs.succeed(["stats", "--json"] + b).object()["versions"] as? Int == versions, "nothing written")

        // A value given for one conflict leaves the other unsettled: status 5, naming only it.
        let partial = try llvs.run(["merge", "--value", "greeting=hello from both", "--json"] + b)
        #expect(partial.status == 5)
        let error = try #require(try JSONSerialization.jsonObject(with: Data(partial.stderr.utf8)) as? [String: Any])["error"] as? [String: Any]
        #expect((error?["conflicts"] as? [[String: Any]])?.compactMap { $0["valueId"] as? String } == ["colour"])
        let plain = try llvs.run(["merge"] + b)
        #expect(plain.stderr.hasPrefix("llvs: error: the merge has 2 conflicts"), "\(plain.stderr)")
        #expect(plain.stderr.contains("llvs conflicts"))

        // Settled by hand: one value given, the rest to their side; other changes carried over.
        #expect(try llvs.run(["merge", "--ours", "--theirs"] + b).status == 64)
        #expect(try llvs.run(["merge", "--value", "greeting"] + b).status == 64)
        #expect(try llvs.run(["merge", "--ours", "--arbiter", "theirs"] + b).status == 64)
        let merged = try llvs.succeed(["merge", "--value", "greeting=hello from both", "--theirs", "--json"] + b).object()
        #expect(merged["result"] as? String == "merged")
        #expect(try llvs.succeed(["get", "greeting"] + b).text == "hello from both")
        #expect(try llvs.succeed(["get", "colour"] + b).text == "blue")
        #expect(try llvs.succeed(["get", "size"] + b).text == "large")
        #expect(try llvs.succeed(["conflicts"] + b).text.contains("Nothing to merge"))

        // --ours keeps HEAD's side.
        try llvs.succeed(["put", "colour", "purple"] + a)
        try llvs.succeed(["push", shared] + a)
        try llvs.succeed(["put", "colour", "orange"] + b)
        try llvs.succeed(["pull", shared] + b)
        try llvs.succeed(["merge", "--ours"] + b)
        #expect(try llvs.succeed(["get", "colour"] + b).text == "orange")
    }

    /// A store whose data was deleted under it is damaged, not intact: `state.json` still
    /// names the HEAD the data held.
    @Test func verifyReportsAHeadTheStoreNoLongerHolds() throws {
        let scratch = try ScratchDirectory()
        let llvs = try ToolRunner("llvs")
        let store = ["--store", scratch.path("s")]
        try llvs.succeed(["init", "--storage", "sqlite"] + store)
        try llvs.succeed(["put", "k", "v"] + store)
        let data = scratch.url.appendingPathComponent("s/store")
        for name in try FileManager.default.contentsOfDirectory(atPath: data.path) where name.hasPrefix("llvs-store.sqlite") {
            try FileManager.default.removeItem(at: data.appendingPathComponent(name))
        }
        let verify = try llvs.run(["verify"] + store)
        #expect(verify.status == 6, "\(verify.status) \(verify.text) \(verify.stderr)")
        #expect(verify.text.contains("HEAD names this version"))
    }

    @Test func theSmallThings() throws {
        let scratch = try ScratchDirectory()
        let llvs = try ToolRunner("llvs")
        let store = ["--store", scratch.path("s")]
        try llvs.succeed(["init"] + store)
        try llvs.succeed(["put", "k", "v"] + store)
        try llvs.succeed(["put", "k", "w"] + store)

        // log -n N, as documented.
        #expect(try llvs.succeed(["log", "-n", "1", "--json"] + store).array().count == 1)
        #expect(try llvs.succeed(["log", "--limit", "2", "--json"] + store).array().count == 2)

        // Ancestry counts whose sum overflows name no version (they trapped, exit 132).
        let overflowing = try llvs.run(["get", "k", "--at", "HEAD~9223372036854775807~1"] + store)
        #expect(overflowing.status == 3 && overflowing.stderr.hasPrefix("llvs: error: "), "\(overflowing.status) \(overflowing.stderr)")
        #expect(try llvs.run(["get", "k", "--at", "HEAD~1"] + store).text == "v")

        // A mistyped command gets a suggestion, in the one error style, status 64.
        let mistyped = try llvs.run(["pul", scratch.path("x")] + store)
        #expect(mistyped.status == 64)
        #expect(mistyped.stderr == "llvs: error: 'pul' is not an `llvs` command; did you mean 'pull'?\n")
        #expect(try llvs.run(["remote", "ad", "x", "y"] + store).stderr.contains("did you mean 'add'?"))
        #expect(try llvs.run(["lgo"] + store).stderr.contains("did you mean 'log'?"), "two letters swapped are one edit")
        #expect(try llvs.run(["snapshot", "creat"] + store).stderr.contains("did you mean 'create'?"))
        #expect(try llvs.run(["xyzzy"]).stderr.hasPrefix("llvs: error: 'xyzzy' is not an `llvs` command (see `llvs --help`)"))
        let mistypedJSON = try llvs.run(["merj", "--json"] + store)
        #expect(mistypedJSON.stderr.contains("\"code\" : \"usage\""), "\(mistypedJSON.stderr)")

        // Every error, the parser's included, reads `llvs: error: …`.
        for arguments in [["log", "--bogus"], ["log", "-n", "0"], ["get"], ["put", "k", "v", "--file", "f"], ["get", "missing"], ["log", "--store", scratch.path("none")]] {
            let failed = try llvs.run(arguments + (arguments.contains("--store") ? [] : store))
            #expect(failed.status != 0)
            #expect(failed.stderr.hasPrefix("llvs: error: "), "\(arguments): \(failed.stderr)")
            #expect(!failed.stderr.contains("Error: "), "\(arguments): \(failed.stderr)")
        }
        #expect(try llvs.run(["log", "--bogus"] + store).status == 64)
        #expect(try llvs.succeed(["--help"]).text.contains("USAGE"), "help still prints")

        // One version, not "1 versions" or "version(s)".
        #expect(try llvs.succeed(["branch"] + store).text.contains("2 versions, 1 head"))
        let verified = try llvs.succeed(["verify"] + store).text
        #expect(verified.contains("Checked 2 versions and read 2 values"), "\(verified)")
        let pushed = try llvs.succeed(["push", scratch.path("shared")] + store).text
        #expect(pushed.hasPrefix("Pushed 2 versions"))

        // Progress: never drawn for quick work when stderr is not a terminal, never "0/0".
        #expect(try llvs.succeed(["push", scratch.path("other")] + store).stderr.isEmpty)
        var always = llvs
        always.environment["LLVS_PROGRESS"] = "always"
        let nothing = try always.succeed(["push", scratch.path("shared")] + store)
        #expect(!nothing.stderr.contains("0/0"), "\(nothing.stderr)")
        #expect(nothing.text.hasPrefix("Pushed 0 versions"))

        // Retries of a server that does not answer are announced as they happen.
        let unreachable = try llvs.run(["pull", "http://127.0.0.1:9/v1/stores/nobody", "--token", Self.token, "--retries", "2"] + store)
        #expect(unreachable.status == 1)
        let lines = unreachable.stderr.split(separator: "\n")
        #expect(lines.count == 3, "\(unreachable.stderr)")
        #expect(lines.first?.contains("retry 1 of 2") == true && lines.dropFirst().first?.contains("retry 2 of 2") == true, "\(unreachable.stderr)")
        #expect(lines.last?.hasPrefix("llvs: error: ") == true && lines.last?.contains("no answer after 3 attempts") == true, "\(unreachable.stderr)")
    }
}
