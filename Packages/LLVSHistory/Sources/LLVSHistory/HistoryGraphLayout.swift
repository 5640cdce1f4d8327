import LLVSCore

/// The lanes of a history drawing (see ``History/graphLines(limit:)``): which version each
/// column waits for, and the lines that draw one version after another, newest first.
///
/// Lane `i` is drawn at character `2 * i`, diagonals at `2 * i ± 1`. A version takes the
/// first lane waiting for it (or a new lane on the right when none is: a head); the other
/// lanes waiting for it are collapsed into that one first, leftmost first, one connector
/// line each (`|/` next to it, `|_|/` across other lanes, lanes further right moving left
/// with `/`). Then its lane waits for its first predecessor, a second predecessor gets a new
/// lane just right of it (`|\`, lanes further right moving right with `\`), and the lane
/// of a root is removed (lanes further right moving left).
struct HistoryGraphLayout {
    /// The lines that draw one version: collapse lines, the version's line, and the
    /// connector that hands its lane on to its predecessors, if one is needed.
    struct Step {
        var leading: [HistoryGraphLine]
        var versionLine: HistoryGraphLine
        var trailing: HistoryGraphLine?
    }

    /// The version each lane waits for, left to right.
    private(set) var lanes: [Version.ID] = []

    /// Places `version`, which must come after every one of its successors placed so far
    /// (newest-first topological order), and returns the lines that draw it.
    mutating func place(_ version: Version) -> Step {
        let id = version.id
        let column: Int
        if let existing = lanes.firstIndex(of: id) {
            column = existing
        } else {
            lanes.append(id)
            column = lanes.count - 1
        }
        var leading: [HistoryGraphLine] = []
        while let duplicate = lanes[(column + 1)...].firstIndex(of: id) {
            leading.append(collapseLine(merging: duplicate, into: column))
            lanes.remove(at: duplicate)
        }
        var cells = Self.blank(width: 2 * lanes.count - 1)
        for lane in lanes.indices { cells[2 * lane] = lane == column ? "*" : "|" }
        let versionLine = HistoryGraphLine(graph: Self.render(cells), versionId: id)
        return Step(leading: leading, versionLine: versionLine, trailing: handOn(column, to: version.predecessors))
    }

    /// The line drawing lane `duplicate` joining lane `column` to its left; lanes right of
    /// `duplicate` move one column left.
    private func collapseLine(merging duplicate: Int, into column: Int) -> HistoryGraphLine {
        var cells = Self.blank(width: 2 * lanes.count - 1)
        for lane in 0..<duplicate {
            cells[2 * lane] = "|"
            if lane > column { cells[2 * lane - 1] = "_" }
        }
        cells[2 * duplicate - 1] = "/"
        for lane in (duplicate + 1)..<lanes.count { cells[2 * lane - 1] = "/" }
        return HistoryGraphLine(graph: Self.render(cells))
    }

    /// Makes lane `column` wait for the predecessors (a second one gets a new lane to its
    /// right) or, for a root, removes it; returns the connector line this needs, if any.
    private mutating func handOn(_ column: Int, to predecessors: Version.Predecessors?) -> HistoryGraphLine? {
        let laneCount = lanes.count
        guard let predecessors else {
            lanes.remove(at: column)
            guard column + 1 < laneCount else { return nil }
            var cells = Self.blank(width: 2 * laneCount - 1)
            for lane in 0..<column { cells[2 * lane] = "|" }
            for lane in (column + 1)..<laneCount { cells[2 * lane - 1] = "/" }
            return HistoryGraphLine(graph: Self.render(cells))
        }
        lanes[column] = predecessors.idOfFirst
        guard let second = predecessors.idOfSecond else { return nil }
        lanes.insert(second, at: column + 1)
        var cells = Self.blank(width: 2 * laneCount)
        for lane in 0...column { cells[2 * lane] = "|" }
        cells[2 * column + 1] = "\\"
        for lane in (column + 1)..<laneCount { cells[2 * lane + 1] = "\\" }
        return HistoryGraphLine(graph: Self.render(cells))
    }

    private static func blank(width: Int) -> [Character] {
        [Character](repeating: " ", count: Swift.max(0, width))
    }

    /// The cells as a string without trailing spaces.
    private static func render(_ cells: [Character]) -> String {
        var end = cells.endIndex
        while end > cells.startIndex, cells[end - 1] == " " { end -= 1 }
        return String(cells[..<end])
    }
}
