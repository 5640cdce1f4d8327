import Foundation
import LLVSZones

extension FileSystemExchange {
    /// How old a temporary file must be before a sender removes it: no live writer keeps
    /// one for more than the seconds it takes to write and link one file.
    public static let staleTemporaryFileAge: TimeInterval = 3_600

    /// Removes the temporary files (`.tmp-*`) that senders killed midway left in the
    /// directory, in every folder where senders write (the root, `log/`, each shard of
    /// `batches/`, `versions/` and `changes/`, `snapshots/` and each snapshot's folder), when their
    /// last modification is at least `age` seconds before `now`. A temporary file is never
    /// part of the exchange (readers look only at linked names), and a live sender's is a
    /// few seconds old, so this never touches a concurrent sender's work. Files that
    /// vanish meanwhile (another sender cleaning up) or cannot be removed are skipped.
    ///
    /// - Parameters:
    ///   - age: The least age, in seconds, of a file removed (``staleTemporaryFileAge`` by default).
    ///   - now: The time to measure ages from.
    /// - Returns: The paths removed.
    @discardableResult
    public func removeStaleTemporaryFiles(olderThan age: TimeInterval = FileSystemExchange.staleTemporaryFileAge,
                                          now: Date = Date()) -> [String] {
        var removed: [String] = []
        for folder in temporaryFileFolders() {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { continue }
            for name in names where name.hasPrefix(".tmp-") {
                let path = folder.appendingPathComponent(name).path
                guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                      attributes[.type] as? FileAttributeType == .typeRegular,
                      let modified = attributes[.modificationDate] as? Date,
                      now.timeIntervalSince(modified) >= age else { continue }
                if (try? FileManager.default.removeItem(atPath: path)) != nil { removed.append(path) }
            }
        }
        return removed
    }

    /// Runs ``removeStaleTemporaryFiles(olderThan:now:)`` on the first send of this object.
    func sweepTemporaryFilesOnce() {
        let first = sweptTemporaryFiles.withLock { swept in
            defer { swept = true }
            return !swept
        }
        if first { removeStaleTemporaryFiles() }
    }

    /// The folders where senders create temporary files.
    private func temporaryFileFolders() -> [URL] {
        var folders = [rootDirectoryURL, rootDirectoryURL.appendingPathComponent("log", isDirectory: true)]
        for parent in ["batches", "versions", "changes", "snapshots"] {
            let url = rootDirectoryURL.appendingPathComponent(parent, isDirectory: true)
            if parent == "snapshots" { folders.append(url) }
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: url.path) else { continue }
            for name in names where !name.hasPrefix(".") {
                var isDirectory: ObjCBool = false
                let child = url.appendingPathComponent(name, isDirectory: true)
                if FileManager.default.fileExists(atPath: child.path, isDirectory: &isDirectory), isDirectory.boolValue {
                    folders.append(child)
                }
            }
        }
        return folders
    }
}
