import LLVSCore

extension History {
    /// The history drawn as lanes, like `git log --graph --oneline`: one line per version,
    /// newest first — every version after all of its successors; among the versions that
    /// may come next, the latest timestamp first, ties broken by the greater identifier (the
    /// order of `for version in history`) — with connector lines between them where lanes
    /// fork, join or move.
    ///
    /// With `limit`, the drawing stops after that many version lines (a `limit` of zero or
    /// less gives no lines); connector lines after the last version line are left out.
    /// Only the versions drawn are visited (iteration is lazy); each line costs the number
    /// of lanes open at that point. Throws nothing.
    ///
    /// ```
    /// *        merge of B and C
    /// |\
    /// | *      C
    /// * |      B
    /// |/
    /// *        A
    /// ```
    public func graphLines(limit: Int? = nil) -> [HistoryGraphLine] {
        var remaining = limit ?? Int.max
        guard remaining > 0 else { return [] }
        var layout = HistoryGraphLayout()
        var lines: [HistoryGraphLine] = []
        for version in self {
            let step = layout.place(version)
            lines.append(contentsOf: step.leading)
            lines.append(step.versionLine)
            remaining -= 1
            if remaining == 0 { break }
            if let trailing = step.trailing { lines.append(trailing) }
        }
        return lines
    }
}
