import LLVSCore

/// One line of a history drawn as lanes, like `git log --graph --oneline`: either a
/// version's line — lane characters with a `*` in the version's column — or a connector
/// line between versions, made only of `|`, `/`, `\`, `_` and spaces.
///
/// Lane `i` is drawn at character `2 * i`; the characters between lanes carry the
/// diagonals of branches, merges and lanes moving left. Trailing spaces are trimmed.
public struct HistoryGraphLine: Hashable, Sendable {
    /// The drawing, for example `| *`, `|/`, `|\ \` or `|_|/`.
    public var graph: String
    /// The version the line shows, or nil for a connector line.
    public var versionId: Version.ID?

    /// Creates a line from its drawing and, for a version's line, the version.
    public init(graph: String, versionId: Version.ID? = nil) {
        self.graph = graph
        self.versionId = versionId
    }
}
