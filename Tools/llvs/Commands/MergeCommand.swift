import ArgumentParser
import Foundation
import LLVS

/// `llvs merge`: merges the heads into HEAD.
struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge", abstract: "Merge the other heads into HEAD.",
        discussion: """
            Merges the heads on the main line and on the current branch (plus --branch ones, or
            every head with --all) into HEAD, and moves HEAD to the result. Without --arbiter a
            merge with conflicts fails (exit status 5) and lists them; nothing is written then.
            """)

    @OptionGroup var options: StoreOptions

    @Option(help: ArgumentHelp("How to resolve conflicts: \(ArbiterChoice.allValueStrings.joined(separator: ", ")).", valueName: "name"))
    var arbiter: ArbiterChoice = .none

    @Option(name: .customLong("branch"), help: ArgumentHelp("Also merge this branch's heads (repeatable).", valueName: "name"))
    var branches: [String] = []

    @Flag(help: "Merge every head, whatever its branch.")
    var all = false

    @Option(name: [.short, .long], help: "A message recorded with the merge version.")
    var message: String?

    func run() throws {
        let directory = try options.open(locking: true)
        let selection: Store.MergeHeadSelection = all ? .all
            : branches.isEmpty ? directory.headSelection
            : .allUnbranchedAndSpecificBranches(Array(Set(branches.map { Branch($0) } + (directory.state.branch.map { [$0] } ?? []))).sorted())
        let outcome = try MergeOutcome.merge(directory, selection: selection, arbiter: arbiter, message: message)
        try directory.saveState()
        try outcome.print(json: options.json, directory: directory)
    }
}

/// What a merge did; shared by `merge` and `sync`.
struct MergeOutcome: Encodable {
    /// What happened; its JSON form is the raw value.
    enum Result: String, Encodable {
        case upToDate, fastForward, merged
    }

    var result: Result
    var version: Version.ID
    var mergedHeads: [Version.ID]

    /// Merges the selected heads into HEAD with `arbiter` and moves HEAD.
    ///
    /// - Throws: ``CLIError/conflictsNeedArbiter(_:)`` for `--arbiter none` with conflicts,
    ///   ``CLIError/emptyStore``, the store's errors.
    static func merge(_ directory: StoreDirectory, selection: Store.MergeHeadSelection, arbiter: ArbiterChoice, message: String?) throws -> MergeOutcome {
        let head = try directory.requireHead()
        let others = try directory.headsToMerge(into: head, selection: selection)
        let metadata = try directory.metadata(message: message ?? "merge \(others.count + 1) heads")
        do {
            guard let merged = try arbiter.mergeHeads(of: directory, into: head, others: others, headSelection: selection, metadata: metadata) else {
                return MergeOutcome(result: .upToDate, version: head, mergedHeads: [])
            }
            directory.state.head = merged.id
            return MergeOutcome(result: others == [merged.id] ? .fastForward : .merged, version: merged.id, mergedHeads: others)
        } catch {
            throw CLIError.classify(error)
        }
    }

    func print(json: Bool, directory: StoreDirectory) throws {
        if json { return try Output.json(self) }
        let short = directory.abbreviation(of: version)
        switch result {
        case .upToDate: Output.line("Already up to date at \(short).")
        case .fastForward: Output.line("Fast-forwarded HEAD to \(short).")
        case .merged: Output.line("[\(short)] merged \(mergedHeads.count + 1) heads")
        }
    }
}
