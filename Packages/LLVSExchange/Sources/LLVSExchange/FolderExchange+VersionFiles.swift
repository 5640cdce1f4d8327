import Foundation
import LLVSCore
import LLVSZones

/// Format 1 of the directory (SPEC.md section 11): two checksummed JSON files per version,
/// `versions/<shard>/<name>.json` and `changes/<shard>/<name>.json`, and a log whose
/// records are version identifiers.
extension FolderExchange {
    /// The content of a changes file.
    struct ChangesFile: Codable {
        /// The version whose changes these are (checked on reading).
        var version: Version.ID
        var valueChanges: [Value.Change]
    }

    func filePath(in kind: String, for version: Version.ID) -> String {
        "\(kind)/\(FileNaming.shardName(for: version))/\(FileNaming.directoryName(for: version)).json"
    }

    /// The versions of format 1 log records (each a version identifier's UTF-8 bytes)
    /// after `cursor`, and the cursor after them.
    ///
    /// - Throws: ``ExchangeError/malformedData(location:reason:)`` for a corrupt log
    ///   segment or a record that is not UTF-8.
    func listVersionFiles(after cursor: VersionLogCursor) async throws -> (ids: [Version.ID], cursor: VersionLogCursor) {
        let (records, next) = try await log.records(after: cursor)
        var ids: [Version.ID] = []
        ids.reserveCapacity(records.count)
        for record in records {
            // Any UTF-8 is an identifier, the empty one included (SPEC.md section 1), each
            // byte kept: Foundation's `String(data:encoding:)` drops a leading U+FEFF.
            guard let string = String(validating: record, as: UTF8.self) else {
                throw ExchangeError.malformedData(location: folder.location(of: Self.logFolder), reason: "a log record is not UTF-8, so not a version identifier")
            }
            ids.append(Version.ID(string))
        }
        return (ids, next)
    }

    /// Reads each version's record file, checking its checksum first.
    func versionFileRecords(_ versionIds: [Version.ID]) async throws -> [Version] {
        let requiresChecksums = try await directoryMarker().checksums == true
        var versions: [Version] = []
        versions.reserveCapacity(versionIds.count)
        for id in versionIds {
            let path = filePath(in: "versions", for: id)
            guard let data = try await folder.read(path) else { throw ExchangeError.missingVersion(id) }
            let content = try checkedContent(data, of: id, at: path, requiringChecksum: requiresChecksums)
            let version: Version = try decode(Version.self, from: content, at: path)
            guard version.id == id else {
                throw ExchangeError.malformedData(location: folder.location(of: path), reason: "holds version \(version.id), expected \(id)")
            }
            versions.append(version)
        }
        return versions
    }

    /// Reads each version's changes file, checking every file's checksum before returning
    /// any of them.
    func versionFileChanges(_ versionIds: [Version.ID]) async throws -> [Version.ID: [Value.Change]] {
        let requiresChecksums = try await directoryMarker().checksums == true
        var result: [Version.ID: [Value.Change]] = [:]
        for id in versionIds {
            let path = filePath(in: "changes", for: id)
            guard let data = try await folder.read(path) else { throw ExchangeError.missingValueChanges(id) }
            let content = try checkedContent(data, of: id, at: path, requiringChecksum: requiresChecksums)
            let file = try decode(ChangesFile.self, from: content, at: path)
            guard file.version == id else {
                throw ExchangeError.malformedData(location: folder.location(of: path), reason: "holds the changes of version \(file.version), expected \(id)")
            }
            result[id] = file.valueChanges
        }
        return result
    }

    /// Publishes each version's two files, each carrying its checksum (not yet durably),
    /// makes them all durable at once, then logs the versions in one append.
    func sendVersionFiles(_ versionChanges: [VersionChanges]) async throws {
        var logged: Set<Version.ID>?
        var written: [String] = []
        written.reserveCapacity(2 * versionChanges.count)
        for (version, changes) in versionChanges {
            var record = version
            record.successors = .init()
            let files = [(try CanonicalJSON.encode(ChangesFile(version: version.id, valueChanges: changes)), filePath(in: "changes", for: version.id)),
                         (try CanonicalJSON.encode(record), filePath(in: "versions", for: version.id))]
            for (unsealed, path) in files {
                let data = ExchangeFileChecksum.seal(unsealed)
                let kept = try await place(data, at: path) {
                    // Read the log only on this rare path: a file already there with other content.
                    if logged == nil { logged = Set(try await retrieveAllVersionIdentifiers()) }
                    return logged?.contains(version.id) == true
                }
                // A logged file written before checksums, with this content, is the same file.
                if let kept, try await folder.read(kept) != unsealed {
                    throw ExchangeError.conflictingVersion(version.id, location: folder.location(of: kept))
                }
                written.append(path)
            }
        }
        // Files found in place are synced too: a stopped sender may have published them
        // without making them durable.
        try await folder.synchronize(written)
        try await log.append(versionChanges.map { Data($0.version.id.rawValue.utf8) })
    }

    /// Creates the file unless it exists with this content. An existing file that differs
    /// is replaced when `isLogged` says its version is not logged yet (a file left
    /// truncated by a crash before sync, which no reader has seen); when it is logged, the
    /// file stays as it is and its path is returned, for the caller to report.
    private func place(_ data: Data, at path: String, isLogged: () async throws -> Bool) async throws -> String? {
        if try await folder.create(data, at: path, durably: false) { return nil }
        guard try await folder.read(path) != data else { return nil }
        if try await isLogged() { return path }
        try await folder.replace(data, at: path)
        return nil
    }

    /// The content of a version or changes file of `version`, checked against the checksum
    /// it carries; a file without one is accepted only where the directory does not
    /// require checksums (a directory made before them).
    private func checkedContent(_ data: Data, of version: Version.ID, at path: String, requiringChecksum: Bool) throws -> Data {
        switch ExchangeFileChecksum.check(data) {
        case .verified(let content):
            return content
        case .unsealed:
            guard !requiringChecksum else {
                throw ExchangeError.damagedFile(version, location: folder.location(of: path), reason: "it carries no checksum, which every file of this directory must")
            }
            return data
        case .mismatch(let reason):
            throw ExchangeError.damagedFile(version, location: folder.location(of: path), reason: reason)
        }
    }
}
