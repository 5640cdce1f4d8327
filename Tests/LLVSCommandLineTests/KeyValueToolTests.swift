import Foundation
import Testing

/// `llvs kv`, the reference's `kvcrdt` tool, run as a user would on database directories.
@Suite struct KeyValueToolTests {
    @Test func everyCommandOnDatabaseDirectories() throws {
        let llvs = try ToolRunner("llvs")
        let scratch = try ScratchDirectory()
        let alice = scratch.path("alice"), bob = scratch.path("bob")
        try llvs.succeed(["kv", "put", alice, "title", "Four score and seven years", "--scope", "item", "--author", "Alice"])
        try llvs.succeed(["kv", "put", alice, "meta", #"{"pages": 3}"#, "--json-value", "--author", "Alice"])
        #expect(try llvs.succeed(["kv", "ls", alice]).text == "meta\nitem\ttitle\n")
        #expect(try llvs.succeed(["kv", "ls", alice, "--scope", "item"]).text == "item\ttitle\n")
        #expect(try llvs.succeed(["kv", "get", alice, "title", "--scope", "item"]).text == "Four score and seven years\n")
        #expect(try llvs.succeed(["kv", "search", alice, "seven"]).text == "item\ttitle\n")

        // Bob starts from a copy of Alice's directory (a synced folder), then both edit.
        try FileManager.default.copyItem(atPath: alice, toPath: bob)
        try llvs.succeed(["kv", "put", alice, "title", "From Alice", "--scope", "item", "--author", "Alice"])
        try llvs.succeed(["kv", "rm", bob, "title", "--scope", "item", "--author", "Bob"])
        let dryRun = try llvs.succeed(["kv", "merge", "--source", bob, "--dest", alice, "--dry-run"])
        #expect(dryRun.text == "would change 1 key\nitem\ttitle\n")
        #expect(try llvs.succeed(["kv", "get", alice, "title", "--scope", "item"]).text == "From Alice\n", "a dry run changes nothing")
        try llvs.succeed(["kv", "merge", "--source", bob, "--dest", alice])

        // Both concurrent versions, the delete among them, each with its author and time.
        let versions = try llvs.succeed(["kv", "get", alice, "title", "--scope", "item", "--json"]).array()
        #expect(versions.count == 2)
        #expect(Set(versions.compactMap { $0["authorName"] as? String }) == ["Alice", "Bob"])
        #expect(Set(versions.compactMap { $0["type"] as? String }) == ["text", "deleted"])
        let text = try llvs.succeed(["kv", "get", alice, "title", "--scope", "item"]).text
        #expect(text.contains("# Alice at ") && text.contains("From Alice") && text.contains("# Bob at ") && text.contains("(deleted)"))

        let stats = try llvs.succeed(["kv", "stats", alice, "--json"]).object()
        #expect(stats["entries"] as? Int == 3 && stats["tombstones"] as? Int == 1 && stats["conflictedKeys"] as? Int == 1)
        let history = try llvs.succeed(["kv", "history", alice, "title", "--scope", "item", "--json"]).array()
        #expect(history.count >= 3, "the first write, Alice's edit, Bob's delete and the merge")

        let erased = try llvs.succeed(["kv", "erase-version-history", alice])
        #expect(erased.text.contains("the history is now 1 version"))
        let after = try llvs.succeed(["kv", "stats", alice, "--json"]).object()
        #expect(after["versions"] as? Int == 1 && after["tombstones"] as? Int == 0 && after["keys"] as? Int == 2)

        let missing = try llvs.run(["kv", "get", scratch.path("nowhere"), "k"])
        #expect(missing.status == 1 && missing.stderr.contains("holds no key-value database"))
        let badJSON = try llvs.run(["kv", "put", alice, "k", "{not json", "--json-value"])
        #expect(badJSON.status != 0 && badJSON.stderr.contains("not JSON"))
    }
}
