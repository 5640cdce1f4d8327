import LLVSCore

extension History {
    /// Adds one version whose predecessors are already in the history.
    ///
    /// - Throws: ``Error/duplicateVersion(_:)``, ``Error/missingPredecessor(_:of:)``,
    ///   ``Error/identicalPredecessors(_:)`` or ``Error/nonFiniteTimestamp(_:)``; the
    ///   history is then unchanged.
    public mutating func add(_ version: Version) throws {
        try add(contentsOf: CollectionOfOne(version))
    }

    /// Adds a batch of versions in any order: each version's predecessors must be in the
    /// history already or in the batch. Runs in time linear in the batch size (predecessor
    /// links are resolved through a dictionary and generations computed in one
    /// topological pass), so reloading 100,000 versions from disk in arbitrary order costs
    /// no more than adding them one by one in order.
    ///
    /// - Throws: ``Error`` when any version of the batch is invalid (see ``add(_:)``) or the
    ///   batch contains a cycle; nothing of the batch is added then.
    public mutating func add<S: Sequence>(contentsOf versions: S) throws where S.Element == Version {
        let batch = Array(versions)
        guard !batch.isEmpty else { return }
        let firstNewIndex = nodes.count

        // Index the batch straight into `indexById` (a bulk load would otherwise build a
        // second dictionary as large), rejecting duplicates and unusable versions; any
        // failure below takes the batch's entries out again before throwing.
        if batch.count >= nodes.count {
            indexById.reserveCapacity(indexById.count + batch.count)
        }
        var indexed = 0
        func undoIndexing() {
            for version in batch.prefix(indexed) { indexById.removeValue(forKey: version.id) }
        }
        for (offset, version) in batch.enumerated() {
            if let previous = indexById.updateValue(Int32(firstNewIndex + offset), forKey: version.id) {
                indexById[version.id] = previous
                undoIndexing()
                throw Error.duplicateVersion(version.id)
            }
            indexed += 1
            guard version.timestamp.isFinite else {
                undoIndexing()
                throw Error.nonFiniteTimestamp(version.id)
            }
            if let predecessors = version.predecessors, predecessors.idOfSecond == predecessors.idOfFirst {
                undoIndexing()
                throw Error.identicalPredecessors(version.id)
            }
        }

        // Resolve predecessor links, noting which versions of the batch have a successor in it.
        var links = [(first: Int32, second: Int32)](repeating: (-1, -1), count: batch.count)
        var hasSuccessorInBatch = [Bool](repeating: false, count: batch.count)
        var predecessorsComeFirst = true
        for (offset, version) in batch.enumerated() {
            var resolved: (first: Int32, second: Int32) = (-1, -1)
            for predecessorId in version.predecessorIds {
                guard let index = indexById[predecessorId] else {
                    undoIndexing()
                    throw Error.missingPredecessor(predecessorId, of: version.id)
                }
                if Int(index) >= firstNewIndex {
                    hasSuccessorInBatch[Int(index) - firstNewIndex] = true
                    if Int(index) - firstNewIndex >= offset { predecessorsComeFirst = false }
                }
                if resolved.first < 0 { resolved.first = index } else { resolved.second = index }
            }
            links[offset] = resolved
        }

        // Generations in one pass over the batch in order when every predecessor comes before
        // its successors (a log read in order), else in topological order; a version left
        // out of that order is on a cycle.
        let order = predecessorsComeFirst ? Array(batch.indices) : topologicalOrder(links: links, firstNewIndex: firstNewIndex)
        guard order.count == batch.count else {
            undoIndexing()
            let placed = Set(order)
            let stuck = batch.indices.filter { !placed.contains($0) }.map { batch[$0].id }
            throw Error.cycle(through: Array(stuck.sorted().prefix(10)))
        }
        var generations = [Int32](repeating: 0, count: batch.count)
        func generation(ofIndex index: Int32) -> Int32 {
            index < 0 ? 0 : (Int(index) < firstNewIndex ? nodes[Int(index)].generation : generations[Int(index) - firstNewIndex])
        }
        for offset in order {
            generations[offset] = 1 + Swift.max(generation(ofIndex: links[offset].first), generation(ofIndex: links[offset].second))
        }

        // Everything is valid: commit. Reserve room only for a batch that at least doubles
        // the history (a bulk load); smaller additions rely on amortized growth, since
        // reserving an exact capacity on every add would copy the storage every time.
        if batch.count >= nodes.count {
            nodes.reserveCapacity(nodes.count + batch.count)
        }
        for (offset, version) in batch.enumerated() {
            // A node keeps neither predecessor nor successor identifiers: its links are
            // indices, and ``version(at:)`` names them again.
            let link = links[offset]
            nodes.append(Node(version: StoredVersion(version), first: link.first, second: link.second,
                              generation: generations[offset], successors: SuccessorIndices()))
            if link.first < 0 { rootIdentifiers.insert(version.id) }
            // A new version is a head unless a later version of the batch builds on it.
            if !hasSuccessorInBatch[offset] { headIdentifiers.insert(version.id) }
        }
        for offset in batch.indices {
            let index = Int32(firstNewIndex + offset)
            for predecessor in nodes[Int(index)].predecessors {
                nodes[Int(predecessor)].successors.append(index)
                if Int(predecessor) < firstNewIndex { headIdentifiers.remove(nodes[Int(predecessor)].version.id) }
            }
        }
    }

    /// The offsets of a batch's versions with every predecessor before its successors;
    /// those on or after a cycle are left out.
    private func topologicalOrder(links: [(first: Int32, second: Int32)], firstNewIndex: Int) -> [Int] {
        var unplacedPredecessorCount = [Int](repeating: 0, count: links.count)
        var batchSuccessors = [[Int]](repeating: [], count: links.count)
        for (offset, link) in links.enumerated() {
            for index in [link.first, link.second] where Int(index) >= firstNewIndex {
                unplacedPredecessorCount[offset] += 1
                batchSuccessors[Int(index) - firstNewIndex].append(offset)
            }
        }
        var order: [Int] = []
        order.reserveCapacity(links.count)
        var ready = links.indices.filter { unplacedPredecessorCount[$0] == 0 }
        while let offset = ready.popLast() {
            order.append(offset)
            for successor in batchSuccessors[offset] {
                unplacedPredecessorCount[successor] -= 1
                if unplacedPredecessorCount[successor] == 0 { ready.append(successor) }
            }
        }
        return order
    }
}
