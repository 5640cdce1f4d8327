import ArgumentParser
import Foundation
import LLVS

/// `llvs merge`: merges the heads into HEAD.
struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge", abstract: "Merge the other heads into HEAD.",
        discussion: """
            Merges the heads on the main line and on the current branch (plus --branch ones, or \
            every head with --all) into HEAD, and moves HEAD to the result. Without --arbiter a \
            merge with conflicts fails (exit status 5) and lists them; nothing is written then.
            """)

    @OptionGroup var options: StoreOptions

    @Option(help: ArgumentHelp("How to resolve conflicts: \(ArbiterChoice.allValueStrings.joined(separator: ", ")).", valueName: "name"))
    var arbiter: ArbiterChoice = .none

    @OptionGroup var heads: MergeHeadOptions

    @Flag(help: "Settle every conflict (not settled by --value) with HEAD's side.")
    var ours = false

    @Flag(help: "Settle every conflict (not settled by --value) with the other head's side.")
    var theirs = false

    @Option(name: .customLong("value"), help: ArgumentHelp("Settle one value's conflict with this data (repeatable).", valueName: "id=data"))
    var values: [String] = []

    @Flag(help: "Show the conflicts the merge would meet (as `llvs conflicts`) and write nothing.")
    var dryRun = false

    @Option(name: [.short, .long], help: "A message recorded with the merge version.")
    var message: String?

    func validate() throws {
        if ours && theirs { throw ValidationError("give --ours or --theirs, not both") }
        if (ours || theirs || !values.isEmpty), arbiter != .none {
            throw ValidationError("--ours, --theirs and --value settle conflicts by hand; leave out --arbiter")
        }
        _ = try handValues()
    }

    /// The `--value ID=DATA` choices.
    func handValues() throws -> [Value.ID: Data] {
        var chosen: [Value.ID: Data] = [:]
        for entry in values {
            guard let equals = entry.firstIndex(of: "="), equals != entry.startIndex else {
                throw ValidationError("--value takes ID=DATA, as in --value greeting=hello; got \(entry)")
            }
            let id = Value.ID(String(entry[..<equals]))
            guard chosen.updateValue(Data(entry[entry.index(after: equals)...].utf8), forKey: id) == nil else {
                throw ValidationError("--value names \(id) twice")
            }
        }
        return chosen
    }

    func run() throws {
        let directory = try options.open(locking: !dryRun)
        let selection = heads.selection(for: directory)
        if dryRun { return try ConflictReport.make(directory, selection: selection).print(json: options.json, directory: directory) }
        let byHand = ours || theirs || !values.isEmpty
        let hand = byHand ? HandResolvingArbiter(values: try handValues(), side: ours ? .first : theirs ? .second : nil) : nil
        var merged: MergeOutcome?
        try directory.committing {
            merged = try MergeOutcome.merge(directory, selection: selection, arbiter: arbiter, hand: hand, message: message)
            return merged?.version
        }
        guard let outcome = merged else { return }
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
    /// With `hand`, conflicts are settled by hand: `HEAD` merges each other head in turn,
    /// so "ours" is always the `HEAD` side.
    static func merge(_ directory: StoreDirectory, selection: Store.MergeHeadSelection, arbiter: ArbiterChoice,
                      hand: HandResolvingArbiter? = nil, message: String?) throws -> MergeOutcome {
        let head = try directory.requireHead()
        let others = try directory.headsToMerge(into: head, selection: selection)
        let metadata = try directory.metadata(message: message ?? "merge \(others.count + 1) heads")
        do {
            let result = try hand.map { try ArbiterChoice.mergeInTurn(directory, into: head, others: others, arbiter: $0, metadata: metadata) }
                ?? arbiter.mergeHeads(of: directory, into: head, others: others, headSelection: selection, metadata: metadata)
            guard let merged = result else {
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
