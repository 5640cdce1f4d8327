import Foundation
import Testing

/// Where `llvs` overlaps git, it behaves as git does: `branch NAME` creates, `switch` and
/// `checkout` switch, `rm`/`ls` everywhere (the 0.7 spellings kept, with a note, for one
/// release), `--version` on every tool, and help paragraphs that wrap where the terminal does.
@Suite struct GitConventionTests {
    @Test func branchCreatesAndSwitchOrCheckoutSwitches() throws {
        let scratch = try ScratchDirectory()
        let llvs = try ToolRunner("llvs")
        let store = ["--store", scratch.path("s")]
        func state() throws -> (head: String?, branch: String?) {
            let stats = try llvs.succeed(["stats", "--json"] + store).object()
            return (stats["head"] as? String, stats["branch"] as? String)
        }
        try llvs.succeed(["init"] + store)
        // A branch made in an empty store starts nowhere; switching to it works.
        try llvs.succeed(["branch", "early"] + store)
        try llvs.succeed(["put", "title", "draft"] + store)
        let first = try #require(try state().head)

        // `branch NAME` creates NAME at HEAD and stays on the main line.
        let created = try llvs.succeed(["branch", "feature", "--json"] + store).object()
        #expect(created["start"] as? String == first)
        #expect(try state().branch == nil, "branch NAME switched")
        try llvs.succeed(["put", "body", "main text"] + store)
        let mainHead = try #require(try state().head)
        #expect(try llvs.run(["branch", "feature"] + store).status == 1, "a branch made twice")
        let listed = try llvs.succeed(["branch", "--json"] + store).array()
        #expect(Set(listed.compactMap { $0["name"] as? String }) == ["early", "feature"])
        #expect(listed.first { $0["name"] as? String == "feature" }?["versionCount"] as? Int == 0)

        // `switch NAME` records versions on it, from where it was created.
        let switched = try llvs.succeed(["switch", "feature", "--json"] + store).object()
        #expect(switched["branch"] as? String == "feature")
        #expect(switched["head"] as? String == first, "a new branch starts where it was made")
        try llvs.succeed(["put", "title", "feature title"] + store)
        #expect(try llvs.run(["get", "body"] + store).status == 4, "the branch is based on the version before body")
        let featureTip = try #require(try state().head)

        // `switch --main`, then `checkout NAME` switches as git's does; `checkout VERSION` moves HEAD.
        try llvs.succeed(["switch", "--main"] + store)
        #expect(try state() == (mainHead, nil))
        try llvs.succeed(["checkout", "feature"] + store)
        #expect(try state() == (featureTip, "feature"))
        try llvs.succeed(["checkout", String(first.prefix(10))] + store)
        #expect(try state() == (first, "feature"), "checkout of a version keeps the branch")
        // A branch's name names its tip wherever a version is named (a branch wins over a prefix).
        #expect(try llvs.succeed(["get", "title", "--at", "feature"] + store).text == "feature title")

        // -c and -b create and switch; a start version may be named.
        try llvs.succeed(["switch", "-c", "fix", String(mainHead.prefix(10))] + store)
        #expect(try state() == (mainHead, "fix"))
        try llvs.succeed(["checkout", "-b", "spike"] + store)
        #expect(try state() == (mainHead, "spike"))

        // Unknown branches and deletions: what can go, goes; a branch with versions stays.
        let unknown = try llvs.run(["switch", "nowhere"] + store)
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("llvs switch -c nowhere"), "\(unknown.stderr)")
        #expect(try llvs.run(["branch", "-d", "feature"] + store).status == 1, "a branch with versions was deleted")
        #expect(try llvs.run(["branch", "-d", "spike"] + store).status == 1, "the current branch was deleted")
        try llvs.succeed(["branch", "-d", "early"] + store)
        #expect(try !llvs.succeed(["branch"] + store).text.contains("early"))
        try llvs.succeed(["verify"] + store)
    }

    @Test func theSpellingsOfTheLastReleaseStillWorkAndSayTheNewOnes() throws {
        let scratch = try ScratchDirectory()
        let llvs = try ToolRunner("llvs")
        let database = scratch.path("db")
        try llvs.succeed(["kv", "put", database, "k", "v"])
        for (old, new) in [(["kv", "list"], ["kv", "ls"]), (["kv", "delete"], ["kv", "rm"])] {
            let arguments = new == ["kv", "rm"] ? [database, "k"] : [database]
            let current = try llvs.run(new + arguments)
            #expect(current.status == 0 && !current.stderr.contains("note"), "\(new): \(current.stderr)")
            if new == ["kv", "rm"] { try llvs.succeed(["kv", "put", database, "k", "v"]) }
            let previous = try llvs.run(old + arguments)
            #expect(previous.status == 0, "\(old): \(previous.stderr)")
            #expect(previous.stdout == current.stdout, "\(old) and \(new) differ")
            #expect(previous.stderr.contains("`llvs \(new.joined(separator: " "))`"), "\(old): \(previous.stderr)")
        }
        let store = ["--store", scratch.path("s")]
        try llvs.succeed(["init"] + store)
        try llvs.succeed(["remote", "add", "hub", scratch.path("hub")] + store)
        #expect(try llvs.run(["remote", "list"] + store).stderr.contains("`llvs remote ls`"))
        let removed = try llvs.run(["remote", "remove", "hub"] + store)
        #expect(removed.status == 0 && removed.stderr.contains("`llvs remote rm`"), "\(removed.stderr)")
        #expect(try llvs.run(["branch", "--main"] + store).stderr.contains("`llvs switch --main`"))
    }

    @Test func everyToolPrintsItsVersion() throws {
        var versions: Set<String> = []
        for tool in ["llvs", "llvs-server", "llvs-bench", "llvs-fuzz", "loco", "the-message"] {
            let output = try ToolRunner(tool).succeed(["--version"]).text.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(output.split(separator: ".").count == 3 && output.allSatisfy { $0.isNumber || $0 == "." }, "\(tool) --version: \(output)")
            versions.insert(output)
        }
        #expect(versions.count == 1, "the tools disagree: \(versions)")
    }

    /// Help paragraphs carry no hard line breaks: on a terminal wide enough, each paragraph of
    /// every command's discussion is one line, so a narrower terminal wraps it where it wraps
    /// lines, never mid-sentence.
    @Test(arguments: ["llvs", "llvs-server", "llvs-bench", "llvs-fuzz"])
    func helpParagraphsWrapWhereTheTerminalWraps(tool: String) throws {
        var llvs = try ToolRunner(tool)
        llvs.environment["COLUMNS"] = "1000"
        var commands: [[String]] = [[]]
        var index = 0
        while index < commands.count {
            let command = commands[index]
            index += 1
            let help = try llvs.succeed(command + ["--help"]).text
            let overview = help.components(separatedBy: "\nUSAGE:").first ?? help
            let lines = overview.components(separatedBy: "\n")
            for (line, next) in zip(lines, lines.dropFirst()) where !line.isEmpty && !next.isEmpty {
                // Indented lines are examples; a line ending a sentence may be followed by another.
                guard !next.hasPrefix(" "), !line.hasPrefix(" ") else { continue }
                #expect(".:;!?)".contains(line.last ?? "."), "`\(tool) \(command.joined(separator: " "))` breaks a paragraph: \(line) / \(next)")
            }
            if let subcommands = help.components(separatedBy: "\nSUBCOMMANDS:\n").dropFirst().first {
                for line in subcommands.components(separatedBy: "\n") {
                    guard line.hasPrefix("  "), let first = line.split(separator: " ").first else { continue }
                    let name = first.trimmingCharacters(in: CharacterSet(charactersIn: ","))
                    guard let initial = name.first, initial.isLowercase, name != "help" else { continue }
                    commands.append(command + [name])
                }
            }
        }
        guard tool == "llvs" else { return }
        #expect(commands.count > 30, "walked \(commands.count) commands")
        let root = try llvs.succeed(["--help"]).text
        #expect(root.contains("nearest parent directory"), "the help says where the store is looked for")
    }
}
