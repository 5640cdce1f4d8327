import Foundation
import Testing

/// The `llvs` tool through its built binary: two stores (file and SQLite) edited
/// concurrently, exchanging through a shared directory, merging, verifying, with every
/// result read from `--json`.
@Suite struct CommandLineScenarioTests {
    @Test func twoStoresEditConcurrentlyThenPushPullMergeAndVerify() throws {
        let scratch = try ScratchDirectory()
        let llvs = try ToolRunner("llvs")
        let a = ["--store", scratch.path("a")], b = ["--store", scratch.path("b")], shared = scratch.path("shared")

        try llvs.succeed(["init"] + a)
        let created = try llvs.succeed(["init", "--storage", "sqlite", "--json"] + b).object()
        #expect(created["storage"] as? String == "sqlite")

        // A makes two versions and pushes them; B pulls them and reads the same values.
        try llvs.succeed(["put", "greeting", "hello"] + a)
        try llvs.succeed(["put", "count", "-"] + a, input: Data("1".utf8))
        #expect(try llvs.succeed(["push", shared, "--json"] + a).object()["sent"] as? Int == 2)
        let firstPull = try llvs.succeed(["pull", shared, "--json"] + b).object()
        #expect(firstPull["retrieved"] as? Int == 2)
        #expect(firstPull["headCount"] as? Int == 1)
        #expect(try llvs.succeed(["get", "greeting"] + b).text == "hello")

        // Concurrent edits: both change the greeting; A removes count, B adds a value.
        try llvs.succeed(["put", "greeting", "hello from a", "-m", "a's greeting"] + a)
        try llvs.succeed(["rm", "count"] + a)
        try llvs.succeed(["put", "greeting", "hello from b"] + b)
        try llvs.succeed(["put", "colour", "blue"] + b)
        try llvs.succeed(["push", shared] + a)
        let secondPull = try llvs.succeed(["pull", shared, "--json"] + b).object()
        #expect(secondPull["retrieved"] as? Int == 2)
        #expect(secondPull["headCount"] as? Int == 2)
        #expect(try llvs.succeed(["heads", "--json"] + b).array().count == 2)

        // Without an arbiter the merge fails with status 5 and names the conflict.
        let refused = try llvs.run(["merge", "--json"] + b)
        #expect(refused.status == 5)
        let error = try #require(try JSONSerialization.jsonObject(with: Data(refused.stderr.utf8)) as? [String: Any])["error"] as? [String: Any]
        #expect(error?["code"] as? String == "conflictsNeedArbiter")
        #expect((error?["conflicts"] as? [[String: Any]])?.compactMap { $0["valueId"] as? String } == ["greeting"])
        #expect(try llvs.succeed(["heads", "--json"] + b).array().count == 2, "a refused merge writes nothing")

        // "theirs" takes A's side of the conflict; the other changes of both sides carry over.
        let merged = try llvs.succeed(["merge", "--arbiter", "theirs", "--json"] + b).object()
        #expect(merged["result"] as? String == "merged")
        #expect(try llvs.succeed(["get", "greeting"] + b).text == "hello from a")
        let listed = try llvs.succeed(["ls", "--json"] + b).array().compactMap { $0["id"] as? String }
        #expect(listed == ["colour", "greeting"])

        // B pushes the merge; A pulls it and fast-forwards: both stores have one head, the same one.
        try llvs.succeed(["push", shared] + b)
        try llvs.succeed(["pull", shared] + a)
        let headsA = try llvs.succeed(["heads", "--json"] + a).array(), headsB = try llvs.succeed(["heads", "--json"] + b).array()
        #expect(headsA.count == 1)
        #expect(headsA.first?["id"] as? String == headsB.first?["id"] as? String)
        #expect(headsA.first?["isCurrent"] as? Bool == true)
        #expect(try llvs.succeed(["get", "colour"] + a).text == "blue")

        // Both verify clean and agree on the counts.
        for store in [a, b] {
            let report = try llvs.succeed(["verify", "--json"] + store).object()
            #expect(report["versionsChecked"] as? Int == 7)
            #expect((report["problems"] as? [Any])?.isEmpty == true)
            let stats = try llvs.succeed(["stats", "--json"] + store).object()
            #expect(stats["versions"] as? Int == 7)
            #expect(stats["heads"] as? Int == 1)
            #expect(stats["valuesAtHead"] as? Int == 2)
        }

        // The log: seven versions in graph order, the merge first with two predecessors.
        let log = try llvs.succeed(["log", "--json"] + a).array()
        let versions = log.compactMap { $0["version"] as? [String: Any] }
        #expect(versions.count == 7)
        #expect((versions.first?["predecessors"] as? [String])?.count == 2)
        #expect(log.compactMap { $0["graph"] as? String }.contains { $0.contains("\\") }, "the merge draws a branch line")
        let text = try llvs.succeed(["log"] + a).text
        #expect(text.contains("a's greeting"))
        #expect(text.split(separator: "\n").first?.contains("(HEAD, head)") == true)
    }

    @Test func versionsAreNamedByPrefixesHeadAndAncestry() throws {
        let scratch = try ScratchDirectory()
        let llvs = try ToolRunner("llvs")
        let store = ["--store", scratch.path("s")]
        try llvs.succeed(["init"] + store)
        let first = try #require(try llvs.succeed(["put", "k", "one", "--json"] + store).object()["version"] as? String)
        try llvs.succeed(["put", "k", "two"] + store)
        try llvs.succeed(["put", "k", "three"] + store)

        #expect(try llvs.succeed(["get", "k", "--at", String(first.prefix(8)).lowercased()] + store).text == "one")
        #expect(try llvs.succeed(["get", "k", "--at", "HEAD~2"] + store).text == "one")
        #expect(try llvs.succeed(["get", "k", "--at", "HEAD^"] + store).text == "two")
        let diff = try llvs.succeed(["diff", String(first.prefix(10)), "--json"] + store).object()
        #expect((diff["changes"] as? [[String: Any]])?.first?["change"] as? String == "update")

        // Distinct statuses: unknown version 3, missing value 4, no store 2, usage 64.
        #expect(try llvs.run(["get", "k", "--at", "ZZZZZZZ"] + store).status == 3)
        #expect(try llvs.run(["get", "k", "--at", "HEAD~9"] + store).status == 3)
        #expect(try llvs.run(["get", "missing"] + store).status == 4)
        #expect(try llvs.run(["rm", "missing"] + store).status == 4)
        #expect(try llvs.run(["log", "--store", scratch.path("nowhere")]).status == 2)
        #expect(try llvs.run(["merge", "--arbiter", "coin-toss"] + store).status == 64)
        #expect(try llvs.run(["init"] + store).status == 1, "a second init refuses to replace the store")

        // LLVS_STORE names the store when --store is absent.
        var withEnvironment = llvs
        withEnvironment.environment["LLVS_STORE"] = scratch.path("s")
        #expect(try withEnvironment.succeed(["get", "k"]).text == "three")
    }

    @Test func badArgumentsAndDamagedStoreFilesGiveClearErrors() throws {
        let scratch = try ScratchDirectory()
        let llvs = try ToolRunner("llvs")
        let store = ["--store", scratch.path("s")]
        try llvs.succeed(["init"] + store)
        try llvs.succeed(["put", "k", "v"] + store)

        // Usage errors: status 64 and a message naming the problem; nothing is written.
        let both = try llvs.run(["put", "k", "v", "--file", scratch.path("f")] + store)
        #expect(both.status == 64)
        #expect(both.stderr.contains("not both"))
        #expect(try llvs.run(["log", "-n", "0"] + store).status == 64)
        let url = try llvs.run(["push", "http://example.com/store"] + store)
        #expect(url.status == 64)
        #expect(url.stderr.contains("not a store URL"))
        #expect(try llvs.run(["snapshot", "create"] + store).status == 64, "neither a directory nor --file")
        #expect(try llvs.run(["pull", scratch.path("no-such-directory")] + store).status == 1)
        #expect(try llvs.succeed(["stats", "--json"] + store).object()["versions"] as? Int == 1)

        // A damaged state file is named, and the store itself is untouched.
        let stateURL = scratch.url.appendingPathComponent("s/state.json")
        let state = try Data(contentsOf: stateURL)
        try Data("{not json".utf8).write(to: stateURL)
        let damagedState = try llvs.run(["get", "k"] + store)
        #expect(damagedState.status == 1)
        #expect(damagedState.stderr.contains("state.json"))
        try state.write(to: stateURL)
        #expect(try llvs.succeed(["get", "k"] + store).text == "v")

        // A configuration of another format is refused with its path.
        let configurationURL = scratch.url.appendingPathComponent("s/llvs.json")
        try Data(#"{"format": "something-else", "formatVersion": 1, "storage": "file"}"#.utf8).write(to: configurationURL)
        let foreign = try llvs.run(["log", "--json"] + store)
        #expect(foreign.status == 1)
        #expect(foreign.stderr.contains("llvs.json"))
    }

    @Test func branchesRecordVersionsAndMergeBackIntoTheMainLine() throws {
        let scratch = try ScratchDirectory()
        let llvs = try ToolRunner("llvs")
        let store = ["--store", scratch.path("s")]
        try llvs.succeed(["init"] + store)
        try llvs.succeed(["put", "title", "draft"] + store)
        try llvs.succeed(["switch", "-c", "feature"] + store)
        try llvs.succeed(["put", "title", "feature title"] + store)
        try llvs.succeed(["switch", "--main"] + store)
        #expect(try llvs.succeed(["get", "title"] + store).text == "draft", "the main line's HEAD did not move")
        try llvs.succeed(["put", "body", "text"] + store)

        let branches = try llvs.succeed(["branch", "--json"] + store).array()
        #expect(branches.compactMap { $0["name"] as? String } == ["feature"])
        #expect(branches.first { $0["name"] as? String == "feature" }?["versionCount"] as? Int == 1)

        // A plain merge leaves other branches alone; --branch merges one in.
        #expect(try llvs.succeed(["merge", "--json"] + store).object()["result"] as? String == "upToDate")
        try llvs.succeed(["merge", "--branch", "feature"] + store)
        #expect(try llvs.succeed(["get", "title"] + store).text == "feature title")
        #expect(try llvs.succeed(["get", "body"] + store).text == "text")
        try llvs.succeed(["verify"] + store)
    }

    @Test func snapshotsBootstrapANewStoreThatThenPullsWhatCameAfter() throws {
        let scratch = try ScratchDirectory()
        let llvs = try ToolRunner("llvs")
        let a = ["--store", scratch.path("a")], shared = scratch.path("shared")
        try llvs.succeed(["init"] + a)
        for index in 0..<5 { try llvs.succeed(["put", "key\(index)", "value \(index)"] + a) }
        try llvs.succeed(["push", shared] + a)
        let created = try llvs.succeed(["snapshot", "create", shared, "--chunk-size", "1000", "--json"] + a).object()
        #expect(created["versionCount"] as? Int == 5)
        try llvs.succeed(["snapshot", "create", "--file", scratch.path("a.snapshot")] + a)
        try llvs.succeed(["put", "after", "the snapshot"] + a)
        try llvs.succeed(["push", shared] + a)

        // From the exchange directory, with a progress bar forced on.
        let b = ["--store", scratch.path("b")]
        try llvs.succeed(["init"] + b)
        var withProgress = llvs
        withProgress.environment["LLVS_PROGRESS"] = "always"
        let restored = try withProgress.succeed(["snapshot", "restore", shared] + b)
        #expect(restored.stderr.contains("100%"), "the progress bar reached the end: \(restored.stderr)")
        #expect(try llvs.succeed(["get", "key4"] + b).text == "value 4")
        try llvs.succeed(["pull", shared] + b)
        #expect(try llvs.succeed(["get", "after"] + b).text == "the snapshot")
        #expect(try llvs.succeed(["stats", "--json"] + b).object()["versions"] as? Int == 6)
        try llvs.succeed(["verify"] + b)

        // From the archive file, into a SQLite store; a store with versions refuses a restore.
        let c = ["--store", scratch.path("c")]
        try llvs.succeed(["init", "--storage", "sqlite"] + c)
        let fromFile = try llvs.run(["snapshot", "restore", "--file", scratch.path("a.snapshot")] + c)
        // SQLite stores restore SQLite archives only; the file store's archive is refused whole.
        #expect(fromFile.status == 1)
        #expect(try llvs.succeed(["stats", "--json"] + c).object()["versions"] as? Int == 0)
        let d = ["--store", scratch.path("d")]
        try llvs.succeed(["init"] + d)
        try llvs.succeed(["snapshot", "restore", "--file", scratch.path("a.snapshot")] + d)
        #expect(try llvs.succeed(["get", "key0"] + d).text == "value 0")
        #expect(try llvs.run(["snapshot", "restore", "--file", scratch.path("a.snapshot")] + d).status == 1)
    }

    @Test func verifyReportsDamageWithStatusSix() throws {
        let scratch = try ScratchDirectory()
        let llvs = try ToolRunner("llvs")
        let store = ["--store", scratch.path("s")]
        try llvs.succeed(["init"] + store)
        try llvs.succeed(["put", "a", String(repeating: "x", count: 2_000)] + store)
        let damaged = try #require(try llvs.succeed(["put", "b", String(repeating: "y", count: 2_000), "--json"] + store).object()["version"] as? String)
        try llvs.succeed(["verify"] + store)

        // Overwrite the middle of the value data the second version stored (in the pack
        // segment the second `put` process wrote).
        let storeURL = scratch.url.appendingPathComponent("s/store")
        let segments = try #require(FileManager.default.enumerator(atPath: storeURL.path)?.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".seg") })
        var damagedOne = false
        for segment in segments {
            let url = storeURL.appendingPathComponent(segment)
            var bytes = try Data(contentsOf: url)
            guard let run = bytes.range(of: Data(repeating: UInt8(ascii: "y"), count: 2_000)) else { continue }
            bytes.replaceSubrange((run.lowerBound + 1_000)..<(run.lowerBound + 1_064), with: Data(repeating: 0x5A, count: 64))
            try bytes.write(to: url)
            damagedOne = true
        }
        #expect(damagedOne)

        let report = try llvs.run(["verify", "--json"] + store)
        #expect(report.status == 6)
        let problems = try #require(try report.object()["problems"] as? [[String: Any]])
        #expect(!problems.isEmpty)
        #expect(problems.contains { $0["versionId"] as? String == damaged }, "the damaged version is named: \(problems)")
    }
}
