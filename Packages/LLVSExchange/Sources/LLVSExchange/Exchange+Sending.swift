import Foundation
import LLVSCore
import LLVSHistory
import LLVSStore

extension Exchange {
    /// Sends the versions the other side lacks: the ancestry of `heads` (every head of the
    /// store when nil) minus what the other side is known to hold. The other side's list is
    /// first read from the remembered cursor, so versions others put there meanwhile are
    /// not sent again. Versions go in topological order, read and prepared
    /// (``prepare(forSending:)``) in parts of at most ``sendBatchByteCount`` bytes of value
    /// data, each version counted ``sendBatchBytesPerVersion`` bytes more (growing to it from
    /// ``firstSendBatchByteCount``, and shrinking back to it at the end, each part at most half
    /// as much again as the next, so that little is left to prepare once the last part is
    /// read, and each is prepared while the next is read). Each part is a batch sent while the
    /// next ones are prepared; for an exchange that ``prefersFewBatches``, consecutive parts
    /// are joined into batches of up to ``maximumBatchByteCount`` bytes
    /// (``PreparedBatch/init(joining:)``). An interrupted send leaves the other
    /// side valid and the next send completes it.
    ///
    /// - Parameters:
    ///   - heads: Send only these versions and their ancestors (say, one branch).
    ///   - progress: Called after each batch (and once before the first).
    /// - Returns: The identifiers of the versions sent, predecessors first.
    /// - Throws: The parts' errors, or the store's errors (for example an unknown head).
    @discardableResult
    public func send(upTo heads: [Version.ID]? = nil, progress: ExchangeProgressHandler? = nil) async throws -> [Version.ID] {
        let state = ExchangeState(restorationState: restorationState)
        try await prepareToSend()
        let page = try await retrieveVersionIdentifiers(after: state.cursor)
        let listedLocal = Set(page.versionIds).filter { store.historyIncludesVersions(identifiedBy: [$0]) }
        let remoteHeads = try rememberedRemoteHeads(state.remoteHeads, adding: listedLocal, restart: page.isCompleteListing)

        let toSend: [Version] = try store.queryHistory { history in
            let included = heads ?? Array(history.headIdentifiers)
            return try history.versions(reachableFrom: included, excludingAncestorsOf: remoteHeads).compactMap(history.version(identifiedBy:))
        }
        var report = ExchangeProgress(direction: .send, completedVersionCount: 0, totalVersionCount: toSend.count,
                                      completedByteCount: 0, totalByteCount: Self.estimatedBytes(toSend))
        progress?(report)
        try rememberRemoteVersions(remoteHeads, forgetting: page.isCompleteListing ? state.remoteHeads : nil)
        var sent: [Version.ID] = []
        // Each version counts its value data and what preparing it costs beside that.
        let perVersion = Int64(max(0, sendBatchBytesPerVersion))
        func weight(_ version: Version) -> Int64 { Self.saturatingSum(Self.estimatedBytes(version), perVersion) }
        let parts = Self.batches(of: toSend, byteLimit: min(sendBatchByteCount, maximumBatchByteCount),
                                 growingFrom: firstSendBatchByteCount, shrinkingTo: firstSendBatchByteCount, bytes: weight)
        // Which parts go together: each alone, or, for an exchange that prefers few batches,
        // as many consecutive ones as fit its largest batch.
        let lastParts = prefersFewBatches ? Self.lastPartsOfJoinedBatches(parts, byteLimit: maximumBatchByteCount, bytes: weight)
            : Set(parts.indices)
        // A pipeline of three: while batch k - 1 is sent (written, uploaded), the parts of batch
        // k are prepared (sealed, say), each while the next is read from the store. Batches
        // still go one at a time and in order, so the other side never holds a version
        // without its predecessors.
        try await withThrowingTaskGroup(of: [Version].self) { sending in
            func sendingEnded() async throws {
                guard let batch = try await sending.next() else { return }
                sent += batch.map(\.id)
                report.completedVersionCount += batch.count
                report.completedByteCount = Self.saturatingSum(report.completedByteCount, Self.estimatedBytes(batch))
                progress?(report)
                // Remember progress batch by batch, so an interrupted send resumes where it was.
                try rememberRemoteVersions(batch.map(\.id))
            }
            var read = try parts.first.map(shippable)
            var preparedParts: [PreparedBatch] = []
            var versions: [Version] = []
            for index in parts.indices {
                guard let toPrepare = read else { break }
                async let preparing = prepare(forSending: toPrepare)
                read = index + 1 < parts.count ? try shippable(parts[index + 1]) : nil
                preparedParts.append(try await preparing)
                versions += parts[index]
                guard lastParts.contains(index) else { continue }
                try await sendingEnded()
                let batch = preparedParts.count == 1 ? preparedParts[0] : PreparedBatch(joining: preparedParts)
                let batchVersions = versions
                sending.addTask { try await self.send(prepared: batch); return batchVersions }
                (preparedParts, versions) = ([], [])
            }
            try await sendingEnded()
        }
        return sent
    }

    /// The index of the last part of each batch that joins consecutive `parts` while they fit
    /// `byteLimit` bytes together (a part alone when it does not).
    ///
    /// - Complexity: O(number of versions in `parts`).
    static func lastPartsOfJoinedBatches<T>(_ parts: [[T]], byteLimit: Int, bytes: (T) -> Int64) -> Set<Int> {
        var lastParts = Set<Int>()
        var joined: Int64 = 0
        for (index, part) in parts.enumerated() {
            let size = part.reduce(Int64(0)) { saturatingSum($0, bytes($1)) }
            if index > 0, saturatingSum(joined, size) > Int64(max(1, byteLimit)) {
                lastParts.insert(index - 1)
                joined = 0
            }
            joined = saturatingSum(joined, size)
        }
        if !parts.isEmpty { lastParts.insert(parts.count - 1) }
        return lastParts
    }

    /// `versions` as they are sent: without successors, each with the changes it made.
    ///
    /// - Throws: The store's errors.
    private func shippable(_ versions: [Version]) throws -> [VersionChanges] {
        var versionChanges: [VersionChanges] = []
        versionChanges.reserveCapacity(versions.count)
        for version in versions {
            var shipped = version
            shipped.successors = .init()
            versionChanges.append((shipped, try store.valueChanges(madeInVersionIdentifiedBy: version.id)))
        }
        return versionChanges
    }
}
