import Foundation
import Testing

/// Where `HEAD` is after every way versions arrive — `pull`, `sync` and `clone`, from a
/// directory and from a store served by `llvs serve`, into an empty store and a store with
/// versions, with the pulled versions on the main line and on a branch. An empty store that
/// receives versions ends with `HEAD` at the pulled head and on its branch, as Git checks
/// out the remote's branch (issue 20: it used to stay unset when the head was on a branch).
@Suite struct HeadAfterExchangeTests {
    /// The two kinds of remote.
    enum RemoteKind: String, CaseIterable, Sendable {
        case directory, served
    }

    @Test(arguments: RemoteKind.allCases)
    func headFollowsEveryPullSyncAndClone(_ kind: RemoteKind) throws {
        let scratch = try ScratchDirectory()
        let llvs = try ToolRunner("llvs")
        for branch in [nil, "f"] as [String?] {
            let tag = branch ?? "main"
            func store(_ name: String) -> [String] { ["--store", scratch.path("\(tag)-\(name)")] }
            func state(_ store: [String]) throws -> (head: String?, branch: String?) {
                let stats = try llvs.succeed(["stats", "--json"] + store).object()
                return (stats["head"] as? String, stats["branch"] as? String)
            }
            let a = store("a"), b = store("b"), c = store("c"), d = store("d")
            // Each branch case has a remote of its own: a directory, or a served store.
            var server: BackgroundTool?
            var remote = [scratch.path("shared-\(tag)")]
            if kind == .served {
                let token = "head-test-token-0123456789"
                try llvs.succeed(["init"] + store("hub"))
                let started = try BackgroundTool(llvs, ["serve", "--port", "0", "--token", token, "--json"] + store("hub"))
                _ = try started.lines(atLeast: 4)
                let announcement = try #require(try JSONSerialization.jsonObject(with: Data(started.stdout.utf8)) as? [String: Any])
                remote = [try #require(announcement["url"] as? String), "--token", token]
                server = started
            }
            defer { _ = server?.stop() }

            // A writes (on the branch or the main line) and pushes.
            try llvs.succeed(["init"] + a)
            if let branch { try llvs.succeed(["switch", "-c", branch] + a) }
            try llvs.succeed(["put", "k", "one"] + a)
            try llvs.succeed(["push"] + remote + a)
            let first = try state(a)
            #expect(first.head != nil)

            // An empty store pulls: HEAD at A's head, on A's branch; get and merge --all work.
            try llvs.succeed(["init"] + b)
            let pulled = try llvs.succeed(["pull", "--json"] + remote + b).object()
            #expect(pulled["head"] as? String == first.head, "\(kind) \(tag): pull into an empty store")
            #expect(pulled["branch"] as? String == branch)
            #expect(try state(b).head == first.head)
            #expect(try state(b).branch == branch)
            #expect(try llvs.succeed(["get", "k"] + b).text == "one")
            #expect(try llvs.succeed(["merge", "--all", "--json"] + b).object()["result"] as? String == "upToDate")
            let text = try llvs.succeed(["pull"] + remote + b).text
            #expect(text.contains("Pulled 0 versions"), "plural of zero: \(text)")

            // An empty store syncs, and another clones: the same.
            try llvs.succeed(["init"] + c)
            let synced = try llvs.succeed(["sync", "--json"] + remote + c).object()
            #expect(synced["head"] as? String == first.head, "\(kind) \(tag): sync into an empty store")
            #expect(try state(c).branch == branch)
            #expect(try llvs.succeed(["get", "k"] + c).text == "one")
            let cloned = try llvs.succeed(["clone"] + remote + [scratch.path("\(tag)-d"), "--json"]).object()
            #expect(cloned["head"] as? String == first.head, "\(kind) \(tag): clone")
            #expect(try state(d).head == first.head)
            #expect(try state(d).branch == branch)
            #expect(try llvs.succeed(["get", "k"] + d).text == "one")

            // A store with versions: a plain pull fast-forwards, a sync too.
            try llvs.succeed(["put", "k", "two"] + a)
            try llvs.succeed(["push"] + remote + a)
            let second = try state(a)
            let text2 = try llvs.succeed(["pull"] + remote + b).text
            #expect(text2.contains("Pulled 1 version from"), "singular: \(text2)")
            #expect(try state(b).head == second.head, "\(kind) \(tag): pull fast-forwards")
            try llvs.succeed(["sync"] + remote + c)
            #expect(try state(c).head == second.head, "\(kind) \(tag): sync fast-forwards")
            try llvs.succeed(["pull"] + remote + d)
            #expect(try state(d).head == second.head, "\(kind) \(tag): pull into a clone fast-forwards")

            // Concurrent edits: C's sync merges and pushes; A's pull then fast-forwards to C's merge.
            try llvs.succeed(["put", "x", "from a"] + a)
            try llvs.succeed(["push"] + remote + a)
            try llvs.succeed(["put", "y", "from c"] + c)
            let merged = try llvs.succeed(["sync", "--json"] + remote + c).object()
            #expect((merged["merge"] as? [String: Any])?["result"] as? String == "merged")
            #expect(merged["head"] as? String == (merged["merge"] as? [String: Any])?["version"] as? String)
            try llvs.succeed(["pull"] + remote + a)
            #expect(try state(a).head == merged["head"] as? String, "\(kind) \(tag): pull fast-forwards to the merge")
            #expect(try llvs.succeed(["get", "y"] + a).text == "from c")
            #expect(try llvs.succeed(["get", "x"] + c).text == "from a")
        }
    }
}
