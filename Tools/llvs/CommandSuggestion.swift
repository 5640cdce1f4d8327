import ArgumentParser
import Foundation

/// "Did you mean …?" for a mistyped command: `llvs pul` suggests `pull`, `llvs remote ad`
/// suggests `add`.
enum CommandSuggestion {
    /// A message for the first argument that should name a subcommand and names none, or nil
    /// when the arguments name commands (or options come first, for the parser to judge).
    static func unknownCommand(in arguments: [String], root: any ParsableCommand.Type) -> String? {
        var command = root
        var path = [root.configuration.commandName ?? "llvs"]
        for argument in arguments {
            let subcommands = command.configuration.subcommands
            guard !subcommands.isEmpty, !argument.hasPrefix("-"), argument != "help" else { return nil }
            if let next = subcommands.first(where: { names(of: $0).contains(argument) }) {
                command = next
                path.append(argument)
                continue
            }
            // A default subcommand may take this argument (a path, say) as its own.
            let hasDefault = command.configuration.defaultSubcommand != nil
            if hasDefault, FileManager.default.fileExists(atPath: argument) { return nil }
            let candidates = subcommands.flatMap(names(of:))
            let scope = path.joined(separator: " ")
            guard let best = suggestion(for: argument, among: candidates) else {
                if hasDefault { return nil }
                return "'\(argument)' is not an `\(scope)` command (see `\(scope) --help`)"
            }
            return "'\(argument)' is not an `\(scope)` command; did you mean '\(best)'?"
        }
        return nil
    }

    /// The spellings of 0.7 that 0.8 renamed, kept as aliases for one release: the tool says
    /// `rm` and `ls` everywhere (as `llvs rm` and `llvs ls` always did).
    static let deprecatedSpellings: [String: String] = [
        "kv delete": "kv rm", "kv list": "kv ls", "remote list": "remote ls", "remote remove": "remote rm",
    ]

    /// A note for arguments that name a command by a deprecated spelling
    /// (``deprecatedSpellings``), or nil.
    static func deprecationNote(for arguments: [String], root: any ParsableCommand.Type) -> String? {
        var command = root
        var path: [String] = []
        for argument in arguments {
            guard !argument.hasPrefix("-"),
                  let next = command.configuration.subcommands.first(where: { names(of: $0).contains(argument) }) else { return nil }
            path.append(argument)
            if let replacement = deprecatedSpellings[path.joined(separator: " ")] {
                let tool = root.configuration.commandName ?? "llvs"
                return "`\(tool) \(path.joined(separator: " "))` is now `\(tool) \(replacement)`; the old spelling goes in the next release"
            }
            command = next
        }
        return nil
    }

    /// The candidate closest to `word`: within two edits (one for words of up to three
    /// letters), or one that `word` is a prefix of; nil when none is close.
    static func suggestion(for word: String, among candidates: [String]) -> String? {
        let limit = word.count <= 3 ? 1 : 2
        let scored = candidates.map { ($0, distance(word.lowercased(), $0)) }
        if let close = scored.filter({ $0.1 <= limit }).min(by: { ($0.1, $0.0) < ($1.1, $1.0) }) { return close.0 }
        return candidates.filter { $0.hasPrefix(word.lowercased()) }.sorted().first
    }

    /// The edit distance between two strings, counting an insertion, a deletion, a
    /// substitution or a swap of two neighbouring letters (`lgo` for `log`) as one edit
    /// (the optimal string alignment distance).
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var beforePrevious: [Int] = []
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            beforePrevious = previous
            previous = current
        }
        return previous[b.count]
    }

    private static func names(of command: any ParsableCommand.Type) -> [String] {
        let configuration = command.configuration
        return [configuration.commandName ?? String(describing: command).lowercased()] + configuration.aliases
    }
}
