import ArgumentParser
import Foundation
import LLVS

/// `llvs conflicts`: what `llvs merge` would have to settle, without writing anything.
struct ConflictsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conflicts", abstract: "Show the conflicts merging the heads into HEAD would meet: each value, both sides, their times.",
        discussion: """
            For each head `llvs merge` would merge (the same --branch and --all), the values both \
            sides changed differently: the value at HEAD (ours), at the head (theirs) and at their \
            common ancestor (base), each with the version that stored it and its time. Nothing is \
            written. Settle them with `llvs merge --ours`, `--theirs`, `--value ID=DATA` or --arbiter.
            """)

    @OptionGroup var options: StoreOptions
    @OptionGroup var heads: MergeHeadOptions

    func run() throws {
        let directory = try options.open(locking: false)
        try ConflictReport.make(directory, selection: heads.selection(for: directory)).print(json: options.json, directory: directory)
    }
}

/// The heads a merge takes in: `--branch NAME` (repeatable) and `--all`.
struct MergeHeadOptions: ParsableArguments {
    @Option(name: .customLong("branch"), help: ArgumentHelp("Also merge this branch's heads (repeatable).", valueName: "name"))
    var branches: [String] = []

    @Flag(help: "Merge every head, whatever its branch.")
    var all = false

    /// The heads selected: every one with `--all`, else the main line's and the current
    /// branch's plus the `--branch` ones.
    func selection(for directory: StoreDirectory) -> Store.MergeHeadSelection {
        all ? .all
            : branches.isEmpty ? directory.headSelection
            : .allUnbranchedAndSpecificBranches(Array(Set(branches.map { Branch($0) } + (directory.state.branch.map { [$0] } ?? []))).sorted())
    }
}

/// The conflicts between `HEAD` and each head a merge would take in, found by merging
/// without writing: an arbiter that stops the merge once it sees the conflicts.
struct ConflictReport: Encodable {
    /// One value's state on one side.
    struct Side: Encodable {
        /// The data, nil when the value is absent (removed) on this side.
        var data: ValueDataJSON?
        /// The version that stored the data.
        var version: Version.ID?
        /// That version's time.
        var date: Date?
    }

    /// One conflicting value.
    struct Conflict: Encodable {
        var valueId: Value.ID
        var kind: String
        var ours: Side
        var theirs: Side
        var base: Side?
    }

    /// The conflicts of merging one head into `HEAD`.
    struct Pair: Encodable {
        var head: Version.ID
        var other: Version.ID
        var conflicts: [Conflict]
    }

    var pairs: [Pair]

    /// Every conflict, across the pairs.
    var conflictCount: Int { pairs.reduce(0) { $0 + $1.conflicts.count } }

    /// Thrown by ``Collector`` to stop a merge once its conflicts are read.
    private struct Stop: Error {
        var conflicts: [Conflict]
    }

    /// Reads the conflicts of the top-level merge and stops it; resolves the merges that
    /// make a virtual ancestor (criss-cross histories) with `HEAD`'s side, so the preview
    /// gets to the top-level merge.
    private struct Collector: MergeArbiter {
        var first: Version.ID
        var second: Version.ID

        func changes(toResolve merge: Merge, in store: AnyMergeContext) throws -> [Value.Change] {
            guard merge.versions.first.id == first, merge.versions.second.id == second else {
                return try HandResolvingArbiter(side: .first).changes(toResolve: merge, in: store)
            }
            let conflicts = try merge.conflictingForks.map { valueId, fork in
                Conflict(valueId: valueId, kind: fork.kind,
                         ours: try side(valueId, at: first, store), theirs: try side(valueId, at: second, store),
                         base: try merge.commonAncestor.map { try side(valueId, at: $0.id, store) })
            }
            throw Stop(conflicts: conflicts)
        }

        private func side(_ valueId: Value.ID, at version: Version.ID, _ store: AnyMergeContext) throws -> Side {
            guard let value = try store.value(valueId, at: version) else { return Side() }
            let stored = try value.storedVersionId.flatMap { try store.version(identifiedBy: $0) }
            return Side(data: ValueDataJSON(value.data), version: stored?.id,
                        date: stored.map { Date(timeIntervalSinceReferenceDate: $0.timestamp) })
        }
    }

    /// The conflicts of merging each selected head into `HEAD`, one pair at a time.
    ///
    /// - Throws: ``CLIError/emptyStore`` or ``CLIError/noHead`` without `HEAD`, or the store's errors.
    static func make(_ directory: StoreDirectory, selection: Store.MergeHeadSelection) throws -> ConflictReport {
        let head = try directory.requireHead()
        var pairs: [Pair] = []
        for other in try directory.headsToMerge(into: head, selection: selection) {
            do {
                _ = try directory.store.merge(version: head, with: other, resolvingWith: Collector(first: head, second: other))
                // Only a fast-forward gets here: nothing to merge, no conflicts.
                pairs.append(Pair(head: head, other: other, conflicts: []))
            } catch let stop as Stop {
                pairs.append(Pair(head: head, other: other, conflicts: stop.conflicts))
            }
        }
        return ConflictReport(pairs: pairs)
    }

    /// Prints the report: per head, each conflict with ours, theirs and base.
    func print(json: Bool, directory: StoreDirectory) throws {
        if json { return try Output.json(self) }
        if pairs.isEmpty { return Output.line("Nothing to merge into HEAD.") }
        for pair in pairs {
            let counted = Output.count(pair.conflicts.count, "conflict")
            Output.line("Merging \(directory.abbreviation(of: pair.other)) into HEAD \(directory.abbreviation(of: pair.head)): \(counted)")
            for conflict in pair.conflicts {
                Output.line("\(conflict.valueId) (\(conflict.kind))")
                for (label, side) in [("ours", conflict.ours), ("theirs", conflict.theirs)] + (conflict.base.map { [("base", $0)] } ?? []) {
                    Output.line("  \(label.padding(toLength: 7, withPad: " ", startingAt: 0))\(Self.describe(side, directory))")
                }
            }
        }
        if conflictCount > 0 {
            Output.line("Settle them with `llvs merge --ours`, `--theirs`, `--value ID=DATA` (per value) or --arbiter.")
        }
    }

    /// One side for people: version and time, then the data (text shortened, else its size).
    private static func describe(_ side: Side, _ directory: StoreDirectory) -> String {
        guard let data = side.data else { return "(absent)" }
        let stamp = [side.version.map { directory.abbreviation(of: $0) }, side.date.map { Output.date($0.timeIntervalSinceReferenceDate) }]
            .compactMap { $0 }.joined(separator: " ")
        let shown: String
        if let text = data.text, !text.contains("\n") {
            shown = text.count > 60 ? "\(text.prefix(57))..." : text
        } else {
            shown = "<\(Output.bytes(Int64(data.size)))>"
        }
        return "\(stamp)  \(shown)"
    }
}

/// An arbiter for conflicts settled by hand: a value given per identifier (`--value`), then
/// one side for the rest (`--ours`, `--theirs`); what is left unsettled fails the merge with
/// the list of conflicts (exit status 5), and nothing is written.
struct HandResolvingArbiter: MergeArbiter {
    /// The data chosen per value; settles that value's conflict with this data.
    var values: [Value.ID: Data] = [:]
    /// The side the other conflicts go to, if any.
    var side: Value.Fork.Branch?

    func changes(toResolve merge: Merge, in store: AnyMergeContext) throws -> [Value.Change] {
        var changes: [Value.Change] = []
        var unsettled: [MergeConflict] = []
        for (valueId, fork) in merge.conflictingForks {
            if let data = values[valueId] {
                changes.append(.update(Value(id: valueId, data: data)))
                continue
            }
            guard let side else {
                unsettled.append(MergeConflict(valueId: valueId, kind: fork.kind))
                continue
            }
            switch fork {
            case .removedAndUpdated(let removedOn) where removedOn == side:
                changes.append(.preserveRemoval(valueId))
            case .removedAndUpdated, .twiceInserted, .twiceUpdated:
                let version = side == .first ? merge.versions.first.id : merge.versions.second.id
                guard let reference = try store.valueReference(valueId, at: version) else {
                    throw CLIError.failed("value \(valueId) is missing at version \(version)")
                }
                changes.append(.preserve(reference))
            case .inserted, .removed, .updated, .twiceRemoved:
                break
            }
        }
        if !unsettled.isEmpty { throw RefusingArbiter.Conflicts(conflicts: unsettled) }
        return changes
    }
}
