import LLVSCore

extension History {
    /// True when `ancestor` is a proper ancestor of `descendant`: reachable from it by
    /// following predecessor links at least once. A version is not its own ancestor.
    ///
    /// Walks down from `descendant` and never below `ancestor`'s generation, so the cost is
    /// the region between the two versions.
    ///
    /// - Throws: ``Error/unknownVersion(_:)`` when either version is not in the history.
    public func isAncestor(_ ancestor: Version.ID, of descendant: Version.ID) throws -> Bool {
        let target = try index(of: ancestor)
        let start = try index(of: descendant)
        return isProperAncestor(target, of: start)
    }

    func isProperAncestor(_ target: Int32, of start: Int32) -> Bool {
        let targetGeneration = nodes[Int(target)].generation
        guard nodes[Int(start)].generation > targetGeneration else { return false }
        var visited: Set<Int32> = [start]
        var stack: [Int32] = [start]
        while let current = stack.popLast() {
            for predecessor in nodes[Int(current)].predecessors {
                if predecessor == target { return true }
                // Only versions of a greater generation can have the target below them.
                guard nodes[Int(predecessor)].generation > targetGeneration,
                      visited.insert(predecessor).inserted else { continue }
                stack.append(predecessor)
            }
        }
        return false
    }
}
