import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Atomic, durable file writes for packages that keep files beside a store (the file
/// exchange, snapshot staging): the same guarantees the file backend relies on, with
/// failures reported as ``ZoneError/io(operation:path:reason:)``.
public enum DurableFile {
    /// Writes `data` to `url` atomically and durably, replacing any file there: readers see
    /// the old file or the whole new one, and the new one survives a crash once this returns.
    ///
    /// - Throws: ``ZoneError/io(operation:path:reason:)`` when the file cannot be written.
    public static func write(_ data: Data, to url: URL) throws {
        try POSIXFile.writeAtomically(data, to: url)
    }

    /// Writes `data` atomically as `url` unless a file already has that name; never
    /// replaces an existing file, even one another process created a moment ago. Readers
    /// see no file or the whole file.
    ///
    /// - Parameters:
    ///   - data: The file's bytes.
    ///   - url: Where the file goes.
    ///   - syncing: Fsync the file and its directory before returning (the default).
    ///     Pass false when writing many files and call ``synchronize(_:)`` with them afterwards.
    /// - Returns: True if this call created the file, false if it already existed.
    /// - Throws: ``ZoneError/io(operation:path:reason:)`` when the file cannot be written.
    @discardableResult
    public static func create(_ data: Data, at url: URL, syncing: Bool = true) throws -> Bool {
        let directory = url.deletingLastPathComponent()
        let temporary = try POSIXFile.writeTemporaryFile(data, in: directory, syncing: syncing)
        defer { _ = unlink(temporary.path) }
        return try POSIXFile.linkWithoutReplacing(temporary, in: directory, candidates: [url.lastPathComponent], syncingDirectory: syncing) != nil
    }

    /// Makes files already in place durable without a machine-wide sync: each file's data
    /// is flushed (fsync of the file), then each distinct parent directory once, so their
    /// names are durable too. For files written with `create(_:at:syncing: false)`.
    ///
    /// - Throws: ``ZoneError/io(operation:path:reason:)`` when a file or directory cannot
    ///   be opened or flushed.
    public static func synchronize(_ files: [URL]) throws {
        var directories: [String] = []
        var seen: Set<String> = []
        for url in files {
            let descriptor = try POSIXFile.openFile(url.path, flags: O_RDONLY, operation: "open")
            defer { _ = close(descriptor) }
            try POSIXFile.syncDescriptor(descriptor, path: url.path)
            let directory = url.deletingLastPathComponent()
            if seen.insert(directory.path).inserted { directories.append(directory.path) }
        }
        for directory in directories { try POSIXFile.syncDirectory(URL(fileURLWithPath: directory, isDirectory: true)) }
    }

    /// Creates `directory` and any missing parents, making each new entry durable.
    ///
    /// - Throws: ``ZoneError/io(operation:path:reason:)`` when a directory cannot be created.
    public static func createDirectory(_ directory: URL) throws {
        let parent = directory.deletingLastPathComponent()
        if parent.path != directory.path, !FileManager.default.fileExists(atPath: parent.path) {
            try createDirectory(parent)
        }
        try POSIXFile.createDirectory(directory)
    }

    /// A name no other writer uses (process, counter and random bits), for temporary files.
    public static func uniqueName() -> String {
        POSIXFile.uniqueName()
    }
}
