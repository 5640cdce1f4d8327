import ArgumentParser
import Foundation
import LLVS

/// `llvs branch`: lists branches, or switches the branch new versions are recorded on.
struct BranchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "branch", abstract: "List branches, or switch to one.",
        discussion: """
            A branch is a name recorded with versions. `llvs branch NAME` records new versions on
            NAME and moves HEAD to NAME's tip — its most recent version that no other version on
            NAME is based on — or keeps HEAD when NAME has no versions yet;
            `llvs branch --main` returns to the main line. `llvs merge` merges the current
            branch's heads along with the main line's.
            """)

    @OptionGroup var options: StoreOptions

    @Argument(help: "The branch to switch to.")
    var name: String?

    @Flag(name: .customLong("main"), help: "Switch back to the main line (no branch).")
    var mainLine = false

    func validate() throws {
        if name != nil, mainLine { throw ValidationError("give a branch name or --main, not both") }
        if name?.isEmpty == true { throw ValidationError("a branch name cannot be empty") }
    }

    func run() throws {
        guard name != nil || mainLine else { return try list() }
        let directory = try options.open(locking: true)
        let branch = name.map { Branch($0) }
        let newHead = directory.tip(of: branch)
        directory.state.branch = branch
        if let newHead { directory.state.head = newHead }
        try directory.saveState()
        struct Switched: Encodable { var branch: String?; var head: Version.ID? }
        if options.json { return try Output.json(Switched(branch: branch?.rawValue, head: directory.state.head)) }
        let at = directory.state.head.map { " at \(directory.abbreviation(of: $0))" } ?? ""
        Output.line("Switched to \(branch.map { "branch \($0.rawValue)" } ?? "the main line")\(at)")
    }

    private func list() throws {
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

/// `llvs checkout`: moves HEAD to a version.
struct CheckoutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "checkout", abstract: "Move HEAD to a version; new versions are based on it.")

    @OptionGroup var options: StoreOptions

    @Argument(help: "The version.")
    var version: String

    func run() throws {
        let directory = try options.open(locking: true)
        let id = try directory.resolveVersion(version)
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
