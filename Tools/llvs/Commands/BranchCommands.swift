import ArgumentParser
import Foundation
import LLVS

/// `llvs branch`: lists branches, creates one, or deletes one no version is recorded on.
struct BranchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "branch", abstract: "List branches, or create one (without switching to it).",
        discussion: """
            A branch is a name recorded with the versions made on it. As with git, `llvs branch \
            NAME [START]` creates NAME at START (default HEAD) and stays where it is; `llvs switch \
            NAME` (or `llvs checkout NAME`) then records new versions on NAME, and `llvs switch -c \
            NAME` does both. `llvs branch -d NAME` deletes a branch no version is recorded on yet: \
            versions are never removed, so a branch with versions stays. `llvs merge` merges the \
            current branch's heads along with the main line's.
            """)

    @OptionGroup var options: StoreOptions

    @Argument(help: "The branch to create (or, with -d, to delete).")
    var name: String?

    @Argument(help: ArgumentHelp("The version the new branch starts from (default HEAD).", valueName: "start"))
    var start: String?

    @Flag(name: [.customShort("d"), .customLong("delete")], help: "Delete the branch NAME, which no version is recorded on.")
    var delete = false

    @Flag(name: [.customShort("l"), .customLong("list")], help: "List the branches (what `llvs branch` alone does).")
    var list = false

    /// Before 0.8, `llvs branch --main` switched to the main line: kept for one release.
    @Flag(name: .customLong("main"), help: ArgumentHelp("Deprecated: use `llvs switch --main`.", visibility: .hidden))
    var mainLine = false

    func validate() throws {
        if name?.isEmpty == true { throw ValidationError("a branch name cannot be empty") }
        if list, name != nil || delete || mainLine { throw ValidationError("--list takes no branch name, -d or --main") }
        if delete, name == nil { throw ValidationError("-d needs the name of the branch to delete") }
        if delete, start != nil { throw ValidationError("-d takes one branch name") }
        if mainLine, name != nil || delete { throw ValidationError("--main takes no branch name") }
    }

    func run() throws {
        if mainLine {
            Output.note("llvs: note: `llvs branch --main` is now `llvs switch --main`; the old spelling goes in the next release")
            return try BranchSwitch.run(to: nil, options: options)
        }
        guard let name else { return try listBranches() }
        let directory = try options.open(locking: true)
        if delete { return try deleteBranch(name, in: directory) }
        let created = try BranchSwitch.create(name, at: start, in: directory)
        try directory.saveState()
        struct Created: Encodable { var branch: String; var start: Version.ID? }
        if options.json { return try Output.json(Created(branch: name, start: created)) }
        Output.line("Created branch \(name)\(created.map { " at \(directory.abbreviation(of: $0))" } ?? "")")
    }

    /// Deletes `name` from the branches created without versions.
    private func deleteBranch(_ name: String, in directory: StoreDirectory) throws {
        let branch = Branch(name)
        if directory.hasVersions(on: branch) {
            throw CLIError.failed("branch \(name) has versions, and versions are never removed: it stays")
        }
        guard directory.state.createdBranches?[name] != nil else { throw CLIError.failed("no branch named \(name)") }
        if directory.state.branch == branch {
            throw CLIError.failed("branch \(name) is the current branch: switch to another first (`llvs switch --main`)")
        }
        directory.state.createdBranches?[name] = nil
        if directory.state.createdBranches?.isEmpty == true { directory.state.createdBranches = nil }
        try directory.saveState()
        struct Deleted: Encodable { var deleted: String }
        if options.json { return try Output.json(Deleted(deleted: name)) }
        Output.line("Deleted branch \(name)")
    }

    private func listBranches() throws {
        let directory = try options.open(locking: false)
        struct Listed: Encodable { var name: String?; var versionCount: Int; var heads: [Version.ID]; var isCurrent: Bool }
        let current = directory.state.branch
        let listed: [Listed] = directory.store.queryHistory { history in
            var counts: [Branch?: Int] = [:]
            var heads: [Branch?: [Version.ID]] = [:]
            for id in history.allVersionIdentifiers {
                let branch = history.version(identifiedBy: id)?.branch
                counts[branch, default: 0] += 1
                if history.headIdentifiers.contains(id) { heads[branch, default: []].append(id) }
            }
            if counts[current] == nil { counts[current] = 0 }
            for created in directory.state.createdBranches?.keys ?? [:].keys where counts[Branch(created)] == nil {
                counts[Branch(created)] = 0
            }
            return counts.keys.sorted { ($0?.rawValue ?? "") < ($1?.rawValue ?? "") }.map {
                Listed(name: $0?.rawValue, versionCount: counts[$0] ?? 0, heads: (heads[$0] ?? []).sorted(), isCurrent: $0 == current)
            }
        }
        if options.json { return try Output.json(listed) }
        for branch in listed {
            let marker = branch.isCurrent ? "*" : " "
            Output.line("\(marker) \(branch.name ?? "(main line)")  \(Output.count(branch.versionCount, "version")), \(Output.count(branch.heads.count, "head"))")
        }
    }
}

/// `llvs switch`: switches the branch new versions are recorded on.
struct SwitchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "switch", abstract: "Switch to a branch: new versions are recorded on it.",
        discussion: """
            HEAD moves to the branch's tip (its most recent version that no other version on the \
            branch is based on), or, on a branch without versions yet, to the version it was \
            created at. `llvs switch -c NAME [START]` creates NAME at START (default HEAD) and \
            switches to it; `llvs switch --main` returns to the main line (no branch).
            """)

    @OptionGroup var options: StoreOptions

    @Argument(help: "The branch to switch to (with -c, the version the new branch starts from).")
    var target: String?

    @Option(name: [.customShort("c"), .customLong("create")], help: ArgumentHelp("Create this branch, then switch to it.", valueName: "name"))
    var create: String?

    @Flag(name: .customLong("main"), help: "Switch back to the main line (no branch).")
    var mainLine = false

    func validate() throws {
        if create?.isEmpty == true || target?.isEmpty == true { throw ValidationError("a branch name cannot be empty") }
        if mainLine, target != nil || create != nil { throw ValidationError("give a branch, -c NAME or --main, not two of them") }
        if !mainLine, target == nil, create == nil { throw ValidationError("name the branch to switch to (or -c NAME, or --main)") }
    }

    func run() throws {
        if mainLine { return try BranchSwitch.run(to: nil, options: options) }
        if let create { return try BranchSwitch.run(to: create, creatingAt: .some(target), options: options) }
        try BranchSwitch.run(to: target, options: options)
    }
}

/// Creating and switching branches, shared by `branch`, `switch` and `checkout`.
enum BranchSwitch {
    /// Records `name` as a branch starting at `start` (default HEAD), and returns the version
    /// it starts at (nil in an empty store).
    ///
    /// - Throws: `CLIError.failed` when a branch of that name exists; the resolver's errors.
    static func create(_ name: String, at start: String?, in directory: StoreDirectory) throws -> Version.ID? {
        if directory.branchExists(name) { throw CLIError.failed("a branch named \(name) exists (switch to it with `llvs switch \(name)`)") }
        let startId = try start.map(directory.resolveVersion) ?? directory.state.head
        directory.state.createdBranches = (directory.state.createdBranches ?? [:]).merging([name: .init(start: startId)]) { _, new in new }
        return startId
    }

    /// Switches to `name` (nil: the main line), creating it first at `creatingAt` (a version
    /// name, nil for HEAD) when that is given, and prints where HEAD is.
    ///
    /// - Throws: `CLIError.failed` naming the branch when it does not exist (or, when
    ///   creating, exists); the store's errors.
    static func run(to name: String?, creatingAt start: String?? = nil, options: StoreOptions) throws {
        try run(to: name, creatingAt: start, in: try options.open(locking: true), json: options.json)
    }

    /// ``run(to:creatingAt:options:)`` in a store opened (locked) already.
    static func run(to name: String?, creatingAt start: String?? = nil, in directory: StoreDirectory, json: Bool) throws {
        if let name, let start { _ = try create(name, at: start, in: directory) }
        if let name, !directory.branchExists(name) {
            throw CLIError.failed("no branch named \(name) (create it with `llvs switch -c \(name)`, or `llvs branch \(name)`)")
        }
        let branch = name.map { Branch($0) }
        let newHead = directory.tip(of: branch) ?? name.flatMap { directory.state.createdBranches?[$0]?.start }
        directory.state.branch = branch
        if let newHead { directory.state.head = newHead }
        try directory.saveState()
        struct Switched: Encodable { var branch: String?; var head: Version.ID? }
        if json { return try Output.json(Switched(branch: branch?.rawValue, head: directory.state.head)) }
        let at = directory.state.head.map { " at \(directory.abbreviation(of: $0))" } ?? ""
        Output.line("Switched to \(branch.map { "branch \($0.rawValue)" } ?? "the main line")\(at)")
    }
}

/// `llvs checkout`: switches to a branch, or moves HEAD to a version (as git checkout does).
struct CheckoutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "checkout", abstract: "Switch to a branch, or move HEAD to a version; new versions are based on it.",
        discussion: """
            As with git, a branch's name switches to that branch (`llvs switch NAME`), and a \
            branch's name wins over a version whose identifier it begins; anything else names a \
            version, and HEAD moves to it on the current branch. `-b NAME` creates NAME at the \
            version given (default HEAD) and switches to it (`llvs switch -c NAME`).
            """)

    @OptionGroup var options: StoreOptions

    @Argument(help: "The branch or version.")
    var target: String?

    @Option(name: .customShort("b"), help: ArgumentHelp("Create this branch, then switch to it.", valueName: "name"))
    var create: String?

    func validate() throws {
        if target == nil, create == nil { throw ValidationError("name a branch or a version (or -b NAME)") }
    }

    func run() throws {
        if let create { return try BranchSwitch.run(to: create, creatingAt: .some(target), options: options) }
        guard let target else { return }
        let directory = try options.open(locking: true)
        if directory.branchExists(target) { return try BranchSwitch.run(to: target, in: directory, json: options.json) }
        let id = try directory.resolveVersion(target)
        directory.state.head = id
        // Naming an abandoned version takes it back, as checking out a dangling commit does.
        directory.state.abandoned = directory.state.abandoned?.filter { $0 != id }
        if directory.state.abandoned?.isEmpty == true { directory.state.abandoned = nil }
        try directory.saveState()
        struct Moved: Encodable { var head: Version.ID }
        if options.json { return try Output.json(Moved(head: id)) }
        Output.line("HEAD is now \(directory.abbreviation(of: id))")
    }
}
