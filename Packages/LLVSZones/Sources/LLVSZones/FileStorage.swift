import Foundation
import LLVSCore

/// The default storage: everything in files under the store's root directory
/// (SPEC.md, "File storage").
///
/// ```
/// <root>/llvs-store.json        {"format":"llvs-file-store","formatVersion":1}
/// <root>/values/<shard>/<version>/<random>.pack   value data, one pack per write
/// <root>/maps/<shard>/<version>/<random>.pack     map index nodes
/// <root>/versions/<random>.log                    version records, a segment per writer
/// ```
///
/// Append-only (nothing written is changed afterwards), crash-safe (every file appears
/// atomically; a version is visible only once its record is in the log) and safe for
/// several processes sharing the directory.
public struct FileStorage: Storage {
    /// The name of the marker file that identifies a store directory and its format.
    public static let markerFileName = "llvs-store.json"
    /// The format this version of LLVS writes and reads.
    public static let formatVersion = 1

    struct Marker: Codable, Equatable {
        var format: String
        var formatVersion: Int
        static let current = Marker(format: "llvs-file-store", formatVersion: FileStorage.formatVersion)
    }

    /// How many bytes of pack data each zone may cache in memory.
    public var cacheByteLimit: Int

    /// Creates the file backend, caching up to `cacheByteLimit` bytes of pack data per zone.
    public init(cacheByteLimit: Int = 256 << 20) {
        self.cacheByteLimit = cacheByteLimit
    }

    /// Opens (creating if needed) the file store at `rootDirectoryURL`, with its `values`,
    /// `maps` and `versions` directories.
    ///
    /// - Throws: ``ZoneError/unsupportedFormat(path:found:)`` when the directory holds a
    ///   store of another kind or format, ``ZoneError/io(operation:path:reason:)`` when it
    ///   cannot be created or read.
    public func makeZones(rootDirectoryURL: URL) throws -> StoreZones {
        let root = rootDirectoryURL.standardizedFileURL
        do {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        } catch {
            throw ZoneError.io(operation: "create directory", path: root.path, reason: "\(error)")
        }
        try checkOrWriteMarker(in: root)
        // The three directories are made at open, as the reference's file zones make theirs,
        // so a store that cannot be written fails here rather than at its first version.
        for name in ["values", "maps", "versions"] {
            let directory = root.appendingPathComponent(name, isDirectory: true)
            _ = try POSIXFile.createDirectory(directory)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ZoneError.io(operation: "create directory", path: directory.path, reason: "a file that is not a directory is in the way")
            }
        }
        return StoreZones(
            values: FileZone(directoryURL: root.appendingPathComponent("values", isDirectory: true), cacheByteLimit: cacheByteLimit),
            maps: FileZone(directoryURL: root.appendingPathComponent("maps", isDirectory: true), cacheByteLimit: cacheByteLimit),
            versions: FileVersionLog(directoryURL: root.appendingPathComponent("versions", isDirectory: true)),
            writesZonesConcurrently: true,
            checkStoredBytes: { Self.checkStoredBytes(root: root) })
    }

    private func checkOrWriteMarker(in root: URL) throws {
        let url = root.appendingPathComponent(Self.markerFileName)
        if let data = FileManager.default.contents(atPath: url.path) {
            guard let marker = try? CanonicalJSON.decode(Marker.self, from: data) else {
                throw ZoneError.unsupportedFormat(path: root.path, found: "unreadable \(Self.markerFileName)")
            }
            guard marker == .current else {
                throw ZoneError.unsupportedFormat(path: root.path, found: "\(marker.format) version \(marker.formatVersion)")
            }
            return
        }
        do {
            try POSIXFile.writeAtomically(try CanonicalJSON.encode(Marker.current), to: url)
        } catch let error as ZoneError {
            throw error
        } catch {
            throw ZoneError.io(operation: "write", path: url.path, reason: "\(error)")
        }
    }
}
