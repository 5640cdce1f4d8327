import ArgumentParser
import Foundation
import LLVS

/// `llvs revert`: a new version that undoes the changes of a given version.
struct RevertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revert", abstract: "Make a version on HEAD that undoes the changes of a given version.",
        discussion: """
            Every value VERSION changed goes back to its data before VERSION (removed when it did \
            not exist); later work on other values stays. A value changed again after VERSION is a \
            conflict and nothing is written. For a merge, the changes are undone relative to its \
            first predecessor (--mainline 1, as `git revert -m 1`), which undoes what the second \
            brought in; --mainline 2 undoes the first's side. A merge's predecessors are listed, in \
            order, by `llvs log --json`.
            """)

    @OptionGroup var options: StoreOptions

    @Argument(help: "The version to undo.")
    var version: String

    @Option(help: ArgumentHelp("For a merge: the predecessor (1 or 2) to go back to.", valueName: "n"))
    var mainline: Int?

    @Option(name: [.short, .long], help: "A message recorded with the version.")
    var message: String?

    func validate() throws {
        if let mainline, !(1...2).contains(mainline) { throw ValidationError("--mainline is 1 or 2") }
    }

    func run() throws {
        let directory = try options.open(locking: true)
        let head = try directory.requireHead()
        let target = try directory.resolveVersion(version)
        let predecessors = directory.store.version(identifiedBy: target)?.predecessorIds ?? []
        var relativeTo: Version.ID?
        if let mainline {
            guard predecessors.count >= mainline else {
                throw CLIError.usage("version \(directory.abbreviation(of: target)) has \(Output.count(predecessors.count, "predecessor")); --mainline \(mainline) names none")
            }
            relativeTo = predecessors[mainline - 1]
        }
        let short = directory.abbreviation(of: target)
        var reverted: Version?
        let metadata = try directory.metadata(message: message ?? "revert \(short)")
        do {
            try directory.committing {
                reverted = try directory.store.revert(target, basedOn: head, relativeTo: relativeTo, metadata: metadata)
                return reverted?.id
            }
        } catch let StoreError.revertConflicts(_, valueIds) {
            throw CLIError.failed("cannot revert \(short): \(valueIds.map(\.rawValue).joined(separator: ", ")) changed again after it; "
                                  + "put the values you want with `llvs put`")
        }
        struct Reverted: Encodable { var reverted: Version.ID; var version: Version.ID?; var changes: [DiffEntry] }
        guard let reverted else {
            if options.json { return try Output.json(Reverted(reverted: target, version: nil, changes: [])) }
            return Output.line("Nothing to revert: the changes of \(short) are not at HEAD.")
        }
        let changes = try directory.store.valueChanges(madeBetween: head, and: reverted.id).sorted { $0.valueId < $1.valueId }.map(DiffEntry.init)
        if options.json { return try Output.json(Reverted(reverted: target, version: reverted.id, changes: changes)) }
        let branch = directory.state.branch.map { " \($0.rawValue)" } ?? ""
        Output.line("[\(directory.abbreviation(of: reverted.id))\(branch)] reverted \(short): \(Output.count(changes.count, "value")) restored")
    }
}
