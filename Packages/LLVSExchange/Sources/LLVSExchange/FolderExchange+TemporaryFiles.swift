import Foundation
import LLVSZones

extension FolderExchange {
    /// How old a temporary file must be before a sender removes it: no live writer keeps
    /// one for more than the seconds it takes to write and publish one file.
    public static let staleTemporaryFileAge: TimeInterval = 3_600

    /// Removes the temporary files (`.tmp-*`) that senders stopped midway left in the
    /// folder, in every folder where senders write (the root, `log/`, each shard of
    /// `batches/`, `versions/` and `changes/`, `snapshots/` and each snapshot's folder; only
    /// the ``ExchangeFolder/temporaryFileFolders`` of a storage that names them), when their
    /// last modification is at least `age` seconds before `now`. A temporary file is never
    /// part of the exchange (readers look only at published names), and a live sender's is
    /// a few seconds old, so this never touches a concurrent sender's work. Files that
    /// vanish meanwhile (another sender cleaning up), cannot be removed, or whose storage
    /// does not say when they changed are skipped.
    ///
    /// - Parameters:
    ///   - age: The least age, in seconds, of a file removed (``staleTemporaryFileAge`` by default).
    ///   - now: The time to measure ages from.
    /// - Returns: The locations removed.
    @discardableResult
    public func removeStaleTemporaryFiles(olderThan age: TimeInterval = FolderExchange.staleTemporaryFileAge,
                                          now: Date = Date()) async -> [String] {
        var removed: [String] = []
        for path in await temporaryFileFolders() {
            guard let entries = try? await folder.list(path) else { continue }
            for entry in entries where entry.name.hasPrefix(".tmp-") && !entry.isFolder {
                guard let modified = entry.modified, now.timeIntervalSince(modified) >= age else { continue }
                let file = path.isEmpty ? entry.name : "\(path)/\(entry.name)"
                if (try? await folder.remove(file)) != nil { removed.append(folder.location(of: file)) }
            }
        }
        return removed
    }

    /// Runs ``removeStaleTemporaryFiles(olderThan:now:)`` on the first send of this object.
    func sweepTemporaryFilesOnce() async {
        let first = sweptTemporaryFiles.withLock { swept in
            defer { swept = true }
            return !swept
        }
        if first { await removeStaleTemporaryFiles() }
    }

    /// The folders where senders create temporary files.
    private func temporaryFileFolders() async -> [String] {
        if let fixed = folder.temporaryFileFolders { return fixed }
        var folders = ["", Self.logFolder, Self.snapshotsFolder]
        for parent in ["batches", "versions", "changes", Self.snapshotsFolder] {
            let entries = (try? await folder.list(parent)) ?? []
            for entry in entries where entry.isFolder && !entry.name.hasPrefix(".") {
                folders.append("\(parent)/\(entry.name)")
            }
        }
        return folders
    }
}
