import ArgumentParser
import Foundation
import LLVS

/// `llvs verify`: checks every version's map and values.
struct VerifyCommand: ParsableCommand {
    static let lostHead = "HEAD names this version (state.json), but the store does not hold it: its data was deleted or replaced"

    static let configuration = CommandConfiguration(
        commandName: "verify", abstract: "Check that every version's map and values are readable and consistent.",
        discussion: "Exits with status 6 and lists every problem (version, value, reason) when something is damaged, including a HEAD the store no longer holds.")

    @OptionGroup var options: StoreOptions

    func run() throws {
        var report: StoreVerificationReport
        do {
            let directory = try options.open(locking: false)
            let bar = ProgressBar("verify", json: options.json)
            report = directory.store.verify { checked, total in bar.update(completed: checked, total: total, unit: "versions") }
            bar.finish()
            // The store's own check cannot see that its data was deleted or replaced: the
            // directory's state still names the version HEAD was.
            if let head = directory.state.head, !directory.store.historyIncludesVersions(identifiedBy: [head]) {
                report.problems.append(.init(versionId: head, reason: Self.lostHead))
            }
        } catch CLIError.storageMissing(let path, let head) {
            // Opening creates nothing, so the deleted data is reported, not replaced by a new
            // empty store that would verify intact.
            report = StoreVerificationReport(problems: [.init(reason: "the store's data is missing: \(path) does not exist")])
            if let head { report.problems.append(.init(versionId: head, reason: Self.lostHead)) }
        }
        if options.json {
            try Output.json(report)
        } else {
            for problem in report.problems { Output.line("problem: \(problem)") }
            let verdict = report.isIntact ? "intact" : Output.count(report.problems.count, "problem")
            Output.line("Checked \(Output.count(report.versionsChecked, "version")) and read \(Output.count(report.valuesRead, "value")): \(verdict)")
        }
        if !report.isIntact { throw CLIError.damaged(problemCount: report.problems.count) }
    }
}

/// `llvs stats`: counts and sizes.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stats", abstract: "Show the store's versions, heads, branches, values and size.")

    @OptionGroup var options: StoreOptions

    func run() throws {
        let directory = try options.open(locking: false)
        struct Stats: Encodable {
            var path: String
            var storage: StorageKind
            var versions: Int
            var heads: Int
            var branches: Int
            var head: Version.ID?
            var branch: String?
            var valuesAtHead: Int
            var bytes: Int64
            var files: Int
        }
        let (versions, heads, branches) = directory.store.queryHistory { history in
            (history.count, history.headIdentifiers.count,
             Set(history.allVersionIdentifiers.compactMap { history.version(identifiedBy: $0)?.branch }).count)
        }
        let head = directory.state.head
        let values = try head.map { try directory.store.valueCount(at: $0) } ?? 0
        let usage = directory.diskUsage()
        let stats = Stats(path: directory.url.path, storage: directory.configuration.storage, versions: versions, heads: heads,
                          branches: branches, head: head, branch: directory.state.branch?.rawValue, valuesAtHead: values,
                          bytes: usage.bytes, files: usage.files)
        if options.json { return try Output.json(stats) }
        Output.line("store     \(stats.path) (\(stats.storage.rawValue) storage)")
        Output.line("versions  \(versions)")
        Output.line("heads     \(heads)")
        Output.line("branches  \(branches)\(stats.branch.map { " (on \($0))" } ?? "")")
        Output.line("HEAD      \(head.map { directory.abbreviation(of: $0) } ?? "none")")
        Output.line("values    \(values) at HEAD")
        Output.line("on disk   \(Output.bytes(usage.bytes)) in \(Output.count(usage.files, "file"))")
    }
}
