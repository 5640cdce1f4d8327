import ArgumentParser
import Foundation
import LLVS

/// `llvs log`: the version graph.
struct LogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log", abstract: "Show the version graph, newest first, like git log --graph --oneline.",
        discussion: "Each line shows the abbreviated identifier, the branch in brackets, HEAD and heads, the date (UTC) and the message.")

    @OptionGroup var options: StoreOptions

    @Option(name: [.customShort("n"), .customLong("limit")], help: "Show at most this many versions (-n N or --limit N).")
    var limit: Int?

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    func run() throws {
        let directory = try options.open(locking: false)
        let head = directory.state.head
        let (lines, versions, heads, abbreviations) = directory.store.queryHistory { history in
            let lines = history.graphLines(limit: limit)
            let versions = lines.compactMap { $0.versionId.flatMap(history.version(identifiedBy:)) }
            return (lines, versions, history.headIdentifiers, history.abbreviatedIdentifiers())
        }
        let byId = Dictionary(versions.map { ($0.id, $0) }, uniquingKeysWith: { (first: Version, _: Version) in first })
        if options.json {
            struct Entry: Encodable { var graph: String; var version: VersionJSON? }
            try Output.json(lines.map { line in
                Entry(graph: line.graph, version: line.versionId.flatMap { id in
                    byId[id].map { VersionJSON($0, abbreviation: abbreviations[id] ?? id.rawValue, isHead: heads.contains(id), isCurrent: id == head) }
                })
            })
            return
        }
        for line in lines {
            guard let id = line.versionId, let version = byId[id] else {
                Output.line(line.graph)
                continue
            }
            Output.line(line.graph + " " + VersionLine(version, abbreviation: abbreviations[id] ?? id.rawValue,
                                                       isHead: heads.contains(id), isCurrent: id == head).text)
        }
    }
}

/// `llvs heads`: the versions with no successors.
struct HeadsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "heads", abstract: "List the heads: versions nothing is based on yet.")

    @OptionGroup var options: StoreOptions

    func run() throws {
        let directory = try options.open(locking: false)
        let head = directory.state.head
        let (versions, abbreviations) = directory.store.queryHistory { history in
            (history.headIdentifiers.compactMap(history.version(identifiedBy:)).sorted { ($0.timestamp, $0.id) > ($1.timestamp, $1.id) },
             history.abbreviatedIdentifiers())
        }
        if options.json {
            try Output.json(versions.map { VersionJSON($0, abbreviation: abbreviations[$0.id] ?? $0.id.rawValue, isHead: true, isCurrent: $0.id == head) })
        } else {
            for version in versions {
                Output.line(VersionLine(version, abbreviation: abbreviations[version.id] ?? version.id.rawValue, isHead: false, isCurrent: version.id == head).text)
            }
        }
    }
}

/// `llvs diff`: the value changes between two versions.
struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff", abstract: "Show the values that differ between two versions.",
        discussion: "One line per value: A (added), M (modified) or D (deleted), going from the first version to the second.")

    @OptionGroup var options: StoreOptions

    @Argument(help: "The version to compare from.")
    var from: String

    @Argument(help: "The version to compare to (default: HEAD).")
    var to: String?

    func run() throws {
        let directory = try options.open(locking: false)
        let first = try directory.resolveVersion(from)
        let second = try directory.resolveVersion(to ?? "HEAD")
        let changes = try directory.store.valueChanges(madeBetween: first, and: second).sorted { $0.valueId < $1.valueId }
        let entries = changes.map(DiffEntry.init)
        if options.json {
            struct Diff: Encodable { var from: Version.ID; var to: Version.ID; var changes: [DiffEntry] }
            try Output.json(Diff(from: first, to: second, changes: entries))
        } else {
            for entry in entries {
                let size = entry.size.map { "  (\(Output.bytes(Int64($0))))" } ?? ""
                Output.line("\(entry.change.letter)  \(entry.id)\(size)")
            }
        }
    }
}

/// One value in `llvs diff`.
struct DiffEntry: Encodable {
    /// How the value changed; its JSON form is the raw value.
    enum Kind: String, Encodable {
        case insert, update, remove

        /// The letter `llvs diff` prints: A, M or D, as Git does.
        var letter: String {
            switch self {
            case .insert: return "A"
            case .update: return "M"
            case .remove: return "D"
            }
        }
    }

    var id: Value.ID
    var change: Kind
    var size: Int?

    init(_ change: Value.Change) {
        id = change.valueId
        switch change {
        case .insert(let value): self.change = .insert; size = value.data.count
        case .update(let value): self.change = .update; size = value.data.count
        default: self.change = .remove
        }
    }
}

/// A version on one line: `1a2b3c4 [branch] (HEAD, head) 2026-11-22 10:04:05 message`.
struct VersionLine {
    var text: String

    init(_ version: Version, abbreviation: String, isHead: Bool, isCurrent: Bool) {
        var parts = [abbreviation]
        if let branch = version.branch { parts.append("[\(branch.rawValue)]") }
        let decorations = (isCurrent ? ["HEAD"] : []) + (isHead ? ["head"] : [])
        if !decorations.isEmpty { parts.append("(\(decorations.joined(separator: ", ")))") }
        parts.append(Output.date(version.timestamp))
        if let message = try? version.metadata[.message]?.value(String.self) {
            parts.append(message)
        } else if version.predecessors?.idOfSecond != nil {
            parts.append("merge")
        }
        text = parts.joined(separator: " ")
    }
}
