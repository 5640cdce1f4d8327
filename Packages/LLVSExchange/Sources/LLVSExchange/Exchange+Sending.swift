import Foundation
import LLVSCore
import LLVSHistory
import LLVSStore

extension Exchange {
    /// Sends the versions the other side lacks: the ancestry of `heads` (every head of the
    /// store when nil) minus what the other side is known to hold. The other side's list is
    /// first read from the remembered cursor, so versions others put there meanwhile are
    /// not sent again. Versions go in topological order, in batches of at most
    /// ``sendBatchByteCount`` bytes of value data, each version counted
    /// ``sendBatchBytesPerVersion`` bytes more (growing to it from
    /// ``firstSendBatchByteCount``, and shrinking back to it at the end, each batch at most half
    /// as much again as the next, so that little is left to prepare once the last batch is
    /// read, and each is prepared while the next is read); an interrupted send leaves the other
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
        let batches = Self.batches(of: toSend, byteLimit: min(sendBatchByteCount, maximumBatchByteCount),
                                   growingFrom: firstSendBatchByteCount, shrinkingTo: firstSendBatchByteCount) {
            Self.saturatingSum(Self.estimatedBytes($0), perVersion)
        }
        // A pipeline of three: while batch k - 1 is sent (written, uploaded), batch k is
        // prepared (sealed, say) and batch k + 1 read from the store. Batches still go one at
        // a time and in order, so the other side never holds a version without its
        // predecessors.
        var read = try batches.first.map(shippable)
        var prepared: (batch: [Version], prepared: PreparedBatch)?
        for index in 0...batches.count {
            let (toSend, toPrepare) = (prepared, read)
            async let sending: Void = { if let toSend { try await send(prepared: toSend.prepared) } }()
            async let preparing = toPrepare.map { try prepare(forSending: $0) }
            read = index + 1 < batches.count ? try shippable(batches[index + 1]) : nil
            prepared = try await preparing.map { (batches[index], $0) }
            try await sending
            guard let batch = toSend?.batch else { continue }
            sent += batch.map(\.id)
            report.completedVersionCount += batch.count
            report.completedByteCount = Self.saturatingSum(report.completedByteCount, Self.estimatedBytes(batch))
            progress?(report)
            // Remember progress batch by batch, so an interrupted send resumes where it was.
            try rememberRemoteVersions(batch.map(\.id))
        }
        return sent
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
