import Foundation
import LLVSCore
import LLVSZones

/// Format 1 of the directory (SPEC.md section 11): two checksummed JSON files per version,
/// `versions/<shard>/<name>.json` and `changes/<shard>/<name>.json`, and a log whose
/// records are version identifiers.
extension FileSystemExchange {
    /// The content of a changes file.
    struct ChangesFile: Codable {
        /// The version whose changes these are (checked on reading).
        var version: Version.ID
        var valueChanges: [Value.Change]
    }

    func fileURL(in folder: String, for version: Version.ID) -> URL {
        rootDirectoryURL.appendingPathComponent(folder, isDirectory: true)
            .appendingPathComponent(FileNaming.shardName(for: version), isDirectory: true)
            .appendingPathComponent(FileNaming.directoryName(for: version) + ".json")
    }

    /// The versions of format 1 log records (each a version identifier's UTF-8 bytes)
    /// after `cursor`, and the cursor after them.
    ///
    /// - Throws: ``ExchangeError/malformedData(location:reason:)`` for a corrupt log
    ///   segment or a record that is not UTF-8.
    func listVersionFiles(after cursor: VersionLogCursor) throws -> (ids: [Version.ID], cursor: VersionLogCursor) {
        let (records, next) = try readLog(after: cursor)
        var ids: [Version.ID] = []
        ids.reserveCapacity(records.count)
        for record in records {
            // Any UTF-8 is an identifier, the empty one included (SPEC.md section 1), each
            // byte kept: Foundation's `String(data:encoding:)` drops a leading U+FEFF.
            guard let string = String(validating: record, as: UTF8.self) else {
                throw ExchangeError.malformedData(location: log.directoryURL.path, reason: "a log record is not UTF-8, so not a version identifier")
            }
            ids.append(Version.ID(string))
        }
        return (ids, next)
    }

    /// Reads each version's record file, checking its checksum first.
    func versionFileRecords(_ versionIds: [Version.ID]) throws -> [Version] {
        let requiresChecksums = try directoryMarker().checksums == true
        return try versionIds.map { id in
            let url = fileURL(in: "versions", for: id)
            guard let data = FileManager.default.contents(atPath: url.path) else { throw ExchangeError.missingVersion(id) }
            let content = try checkedContent(data, of: id, at: url, requiringChecksum: requiresChecksums)
            let version: Version = try decode(Version.self, from: content, at: url)
            guard version.id == id else {
                throw ExchangeError.malformedData(location: url.path, reason: "holds version \(version.id), expected \(id)")
            }
            return version
        }
    }

    /// Reads each version's changes file, checking every file's checksum before returning
    /// any of them.
    func versionFileChanges(_ versionIds: [Version.ID]) throws -> [Version.ID: [Value.Change]] {
        let requiresChecksums = try directoryMarker().checksums == true
        var result: [Version.ID: [Value.Change]] = [:]
        for id in versionIds {
            let url = fileURL(in: "changes", for: id)
            guard let data = FileManager.default.contents(atPath: url.path) else { throw ExchangeError.missingValueChanges(id) }
            let content = try checkedContent(data, of: id, at: url, requiringChecksum: requiresChecksums)
            let file = try decode(ChangesFile.self, from: content, at: url)
            guard file.version == id else {
                throw ExchangeError.malformedData(location: url.path, reason: "holds the changes of version \(file.version), expected \(id)")
            }
            result[id] = file.valueChanges
        }
        return result
    }

    /// Writes each version's two files, each carrying its checksum (without fsync), makes
    /// them all durable (an fsync per file, then one per folder; never a machine-wide
    /// sync), then logs the versions in one append.
    func sendVersionFiles(_ versionChanges: [VersionChanges]) async throws {
        var logged: Set<Version.ID>?
        var written: [URL] = []
        written.reserveCapacity(2 * versionChanges.count)
        for (version, changes) in versionChanges {
            var record = version
            record.successors = .init()
            let files = [(try CanonicalJSON.encode(ChangesFile(version: version.id, valueChanges: changes)), fileURL(in: "changes", for: version.id)),
                         (try CanonicalJSON.encode(record), fileURL(in: "versions", for: version.id))]
            for (unsealed, url) in files {
                let data = ExchangeFileChecksum.seal(unsealed)
                let kept = try await place(data, at: url) {
                    // Read the log only on this rare path: a file already there with other content.
                    if logged == nil { logged = Set(try await retrieveAllVersionIdentifiers()) }
                    return logged?.contains(version.id) == true
                }
                // A logged file written before checksums, with this content, is the same file.
                if let kept, FileManager.default.contents(atPath: kept.path) != unsealed {
                    throw ExchangeError.conflictingVersion(version.id, location: kept.path)
                }
                written.append(url)
            }
        }
        // Files found in place are synced too: a killed sender may have linked them
        // without making them durable.
        try transport("synchronize", rootDirectoryURL) { try DurableFile.synchronize(written) }
        try transport("append to", log.directoryURL) {
            try log.append(versionChanges.map { Data($0.version.id.rawValue.utf8) })
        }
    }

    /// Creates the file unless it exists with this content. An existing file that differs
    /// is replaced when `isLogged` says its version is not logged yet (a file left
    /// truncated by a crash before sync, which no reader has seen); when it is logged, the
    /// file stays as it is and its URL is returned, for the caller to report.
    private func place(_ data: Data, at url: URL, isLogged: () async throws -> Bool) async throws -> URL? {
        let differs = try transport("write", url) {
            try DurableFile.createDirectory(url.deletingLastPathComponent())
            return try !DurableFile.create(data, at: url, syncing: false) && FileManager.default.contents(atPath: url.path) != data
        }
        guard differs else { return nil }
        if try await isLogged() { return url }
        try transport("write", url) { try DurableFile.write(data, to: url) }
        return nil
    }

    /// The content of a version or changes file of `version`, checked against the checksum
    /// it carries; a file without one is accepted only where the directory does not
    /// require checksums (a directory made before them).
    private func checkedContent(_ data: Data, of version: Version.ID, at url: URL, requiringChecksum: Bool) throws -> Data {
        switch ExchangeFileChecksum.check(data) {
        case .verified(let content):
            return content
        case .unsealed:
            guard !requiringChecksum else {
                throw ExchangeError.damagedFile(version, location: url.path, reason: "it carries no checksum, which every file of this directory must")
            }
            return data
        case .mismatch(let reason):
            throw ExchangeError.damagedFile(version, location: url.path, reason: reason)
        }
    }
}
