import Foundation
import LLVSCore
import LLVSSupport
import LLVSZones

/// Format 2 of the directory (SPEC.md section 11): one batch file per send,
/// `batches/<shard>/<sha256>.batch` (``ExchangeBatchFile``), and a log whose records name a
/// batch and the versions it holds (``ExchangeLogRecord``).
extension FolderExchange {
    /// Which batch holds each logged version, built from the log as far as ``cursor``.
    struct BatchIndex: Sendable {
        /// How far the log has been read into this index.
        var cursor = VersionLogCursor()
        /// The SHA-256 of each batch logged, by batch number.
        var digests: [[UInt8]] = []
        /// The number of each batch logged, by SHA-256.
        var numbers: [[UInt8]: Int] = [:]
        /// The batch of each logged version: the first record listing it.
        var locations: [Version.ID: Int] = [:]

        /// Adds decoded log records, in log order.
        mutating func add(_ records: [(digest: [UInt8], versionIds: [Version.ID])]) {
            for record in records {
                let number: Int
                if let known = numbers[record.digest] {
                    number = known
                } else {
                    number = digests.count
                    digests.append(record.digest)
                    numbers[record.digest] = number
                }
                for id in record.versionIds where locations[id] == nil { locations[id] = number }
            }
        }
    }

    /// Decoded batch files, the most recently used last, within ``byteBudget`` bytes of
    /// file (at least the last one read is kept, whatever its size).
    struct BatchCache: Sendable {
        /// The most bytes of batch files kept.
        static let byteBudget = 32 << 20
        var batches: [[UInt8]: ExchangeBatchFile] = [:]
        var recency: [[UInt8]] = []
        var byteCount = 0

        mutating func batch(_ digest: [UInt8]) -> ExchangeBatchFile? {
            guard let batch = batches[digest] else { return nil }
            if recency.last != digest, let index = recency.firstIndex(of: digest) {
                recency.remove(at: index)
                recency.append(digest)
            }
            return batch
        }

        mutating func insert(_ batch: ExchangeBatchFile, digest: [UInt8]) {
            guard batches[digest] == nil else { return }
            while !recency.isEmpty, byteCount + batch.byteCount > Self.byteBudget {
                let evicted = recency.removeFirst()
                byteCount -= batches.removeValue(forKey: evicted)?.byteCount ?? 0
            }
            batches[digest] = batch
            recency.append(digest)
            byteCount += batch.byteCount
        }
    }

    /// Where the batch file with SHA-256 `digest` is, in the folder.
    func batchPath(_ digest: [UInt8]) -> String {
        let name = Hex.encode(digest)
        return "batches/\(name.prefix(2))/\(name).batch"
    }

    /// The versions of the log records after `cursor`, and the cursor after them. When
    /// `cursor` is where the batch index stopped, the index learns the records too, so a
    /// listing followed by a retrieve reads the log once.
    ///
    /// - Throws: ``ExchangeError/malformedData(location:reason:)`` for a corrupt log
    ///   segment or a record that does not name a batch.
    func listBatchedVersions(after cursor: VersionLogCursor) async throws -> (ids: [Version.ID], cursor: VersionLogCursor) {
        let (records, next) = try await log.records(after: cursor)
        let decoded = try decodeLogRecords(records)
        batchIndex.withLock { index in
            if index.cursor == cursor {
                index.add(decoded)
                index.cursor = next
            }
        }
        return (decoded.flatMap(\.versionIds), next)
    }

    /// Reads the log records appended since the batch index was last brought up to date
    /// (again from where it then stands, when a concurrent reader moved it meanwhile).
    func refreshBatchIndex() async throws {
        while true {
            let cursor = batchIndex.withLock { $0.cursor }
            let (records, next) = try await log.records(after: cursor)
            let decoded = try decodeLogRecords(records)
            let applied = batchIndex.withLock { index in
                guard index.cursor == cursor else { return false }
                index.add(decoded)
                index.cursor = next
                return true
            }
            if applied { return }
        }
    }

    private func decodeLogRecords(_ records: [Data]) throws -> [(digest: [UInt8], versionIds: [Version.ID])] {
        do {
            return try records.map { record throws(ExchangeBatchFile.Malformed) in try ExchangeLogRecord.decode(record) }
        } catch {
            throw ExchangeError.malformedData(location: folder.location(of: Self.logFolder), reason: error.reason)
        }
    }

    /// The SHA-256 of the batch holding each version, reading the log further when a
    /// version is not in the index yet.
    ///
    /// - Throws: `missing(id)` for a version the log does not list.
    private func batchDigests(for versionIds: [Version.ID], missing: (Version.ID) -> ExchangeError) async throws -> [Version.ID: [UInt8]] {
        func lookUp() -> (found: [Version.ID: [UInt8]], absent: Version.ID?) {
            batchIndex.withLock { index in
                var found: [Version.ID: [UInt8]] = [:]
                found.reserveCapacity(versionIds.count)
                var absent: Version.ID?
                for id in versionIds {
                    if let number = index.locations[id] { found[id] = index.digests[number] } else if absent == nil { absent = id }
                }
                return (found, absent)
            }
        }
        var result = lookUp()
        if result.absent != nil {
            try await refreshBatchIndex()
            result = lookUp()
        }
        if let absent = result.absent { throw missing(absent) }
        return result.found
    }

    /// The batch files holding `versionIds`, each read (or found in the cache) once and
    /// checked against its SHA-256 before it is parsed, with the versions each holds, in
    /// the order the batches are first needed.
    private func batches(holding versionIds: [Version.ID], missing: (Version.ID) -> ExchangeError) async throws
        -> [(batch: ExchangeBatchFile, path: String, versionIds: [Version.ID])] {
        let digests = try await batchDigests(for: versionIds, missing: missing)
        var groups: [(digest: [UInt8], versionIds: [Version.ID])] = []
        var groupOf: [[UInt8]: Int] = [:]
        for id in versionIds {
            guard let digest = digests[id] else { continue }
            if let group = groupOf[digest] {
                groups[group].versionIds.append(id)
            } else {
                groupOf[digest] = groups.count
                groups.append((digest, [id]))
            }
        }
        var loaded: [(batch: ExchangeBatchFile, path: String, versionIds: [Version.ID])] = []
        loaded.reserveCapacity(groups.count)
        for group in groups {
            let (batch, path) = try await loadBatch(group.digest, for: group.versionIds[0], missing: missing)
            for id in group.versionIds where batch.entries[id] == nil {
                throw ExchangeError.malformedData(location: folder.location(of: path), reason: "the batch does not hold version \(id), which its log record lists")
            }
            loaded.append((batch, path, group.versionIds))
        }
        return loaded
    }

    /// The batch file with SHA-256 `digest`, from the cache or read, checked and parsed.
    ///
    /// - Throws: `missing(version)` when the file is absent,
    ///   ``ExchangeError/damagedFile(_:location:reason:)`` naming `version` when its bytes
    ///   do not match `digest`, ``ExchangeError/malformedData(location:reason:)`` when they
    ///   match but are not a batch.
    func loadBatch(_ digest: [UInt8], for version: Version.ID, missing: (Version.ID) -> ExchangeError) async throws -> (ExchangeBatchFile, String) {
        let path = batchPath(digest)
        if let cached = batchCache.withLock({ $0.batch(digest) }) { return (cached, path) }
        guard let data = try await folder.read(path) else { throw missing(version) }
        let computed = ExchangeBatchFile.digest(of: data)
        guard computed == digest else {
            throw ExchangeError.damagedFile(version, location: folder.location(of: path),
                                            reason: "its content does not match the SHA-256 its log record names (SHA-256 \(Hex.encode(computed)), logged \(Hex.encode(digest)))")
        }
        let batch: ExchangeBatchFile
        do {
            batch = try ExchangeBatchFile(parsing: data)
        } catch {
            throw ExchangeError.malformedData(location: folder.location(of: path), reason: error.reason)
        }
        batchCache.withLock { $0.insert(batch, digest: digest) }
        return (batch, path)
    }

    /// The records of `versionIds`, from their batch files.
    func batchedVersions(_ versionIds: [Version.ID]) async throws -> [Version] {
        var versions: [Version] = []
        versions.reserveCapacity(versionIds.count)
        for (batch, _, ids) in try await batches(holding: versionIds, missing: ExchangeError.missingVersion) {
            for id in ids { if let entry = batch.entries[id] { versions.append(entry.version) } }
        }
        return versions
    }

    /// The changes of `versionIds`, from their batch files (all read and checked first).
    func batchedValueChanges(_ versionIds: [Version.ID]) async throws -> [Version.ID: [Value.Change]] {
        var result: [Version.ID: [Value.Change]] = [:]
        result.reserveCapacity(versionIds.count)
        for (batch, path, ids) in try await batches(holding: versionIds, missing: ExchangeError.missingValueChanges) {
            for id in ids {
                do {
                    result[id] = try batch.changes(of: id)
                } catch {
                    throw ExchangeError.malformedData(location: folder.location(of: path), reason: error.reason)
                }
            }
        }
        return result
    }

    /// Publishes one batch file holding the versions the log does not list yet, durably,
    /// then appends one record naming it to this exchange's log segment. A logged version
    /// sent again with the same content is left out; with other content nothing is written.
    ///
    /// `encodedEntries`, when given, are the versions' entries
    /// (``ExchangeBatchFile/encodeEntry(_:changes:)``), in order; otherwise they are encoded here.
    func sendBatch(_ versionChanges: [VersionChanges], encodedEntries: [[UInt8]]? = nil) async throws {
        try await refreshBatchIndex()
        var entries: [[UInt8]] = []
        var ids: [Version.ID] = []
        var positions: [Version.ID: Int] = [:]
        entries.reserveCapacity(versionChanges.count)
        ids.reserveCapacity(versionChanges.count)
        for (index, (version, changes)) in versionChanges.enumerated() {
            let entry = encodedEntries?[index] ?? ExchangeBatchFile.encodeEntry(version, changes: changes)
            if let position = positions[version.id] {
                guard entries[position] == entry else {
                    throw ExchangeError.conflictingVersion(version.id, location: "a batch sent to \(folder.location(of: "")) with two versions of it")
                }
                continue
            }
            let logged = batchIndex.withLock { index in index.locations[version.id].map { index.digests[$0] } }
            if let logged {
                let (batch, path) = try await loadBatch(logged, for: version.id, missing: ExchangeError.missingVersion)
                guard let existing = batch.entries[version.id] else {
                    throw ExchangeError.malformedData(location: folder.location(of: path), reason: "the batch does not hold version \(version.id), which its log record lists")
                }
                guard batch.bytes(at: existing.bytes, equal: entry) else {
                    throw ExchangeError.conflictingVersion(version.id, location: folder.location(of: path))
                }
                continue
            }
            positions[version.id] = entries.count
            entries.append(entry)
            ids.append(version.id)
        }
        guard !entries.isEmpty else { return }
        let data = ExchangeBatchFile.encode(entries: entries)
        let digest = ExchangeBatchFile.digest(of: data)
        let path = batchPath(digest)
        if try await !folder.create(data, at: path, durably: true) {
            // The name is the content's SHA-256: a file there is this batch (a stopped
            // sender's, not logged yet, perhaps not durable either) unless damaged, in
            // which case it is repaired, atomically, with the same bytes it should hold.
            if try await folder.read(path) == data {
                try await folder.synchronize([path])
            } else {
                try await folder.replace(data, at: path)
            }
        }
        try await log.append([ExchangeLogRecord.encode(digest: digest, versionIds: ids)])
    }
}

/// The batch file entries ``FolderExchange/prepare(forSending:)`` encoded for a batch's
/// versions, in order.
struct EncodedBatchEntries: Sendable {
    /// The versions encoded, in order.
    var versionIds: [Version.ID]
    /// Each version's entry.
    var entries: [[UInt8]]

    /// The entries encoded for `batch`: its work's, or its parts' joined in order; nil when
    /// a part carries none, or the entries are of other versions than the batch's (work
    /// taken from another batch), so that they are encoded when sent.
    static func entries(of batch: PreparedBatch) -> [[UInt8]]? {
        guard let parts = batch.workOfEachPart(as: EncodedBatchEntries.self),
              parts.lazy.flatMap(\.versionIds).elementsEqual(batch.versionChanges.lazy.map(\.version.id)) else { return nil }
        return parts.count == 1 ? parts[0].entries : parts.flatMap(\.entries)
    }
}
