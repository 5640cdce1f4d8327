import Foundation
import LLVSZones

/// An ``ExchangeFolder`` in a local directory (or a mounted share): files published by
/// `rename`, made durable with `fsync` of the file and its folder (`DurableFile`), the
/// log a `FileVersionLog` appended in place.
public struct LocalExchangeFolder: ExchangeFolder {
    /// The directory.
    public let rootDirectoryURL: URL

    /// The folder at `rootDirectoryURL` (created on first write).
    public init(rootDirectoryURL: URL) {
        self.rootDirectoryURL = rootDirectoryURL.standardizedFileURL
    }

    func url(_ path: String) -> URL {
        path.isEmpty ? rootDirectoryURL : rootDirectoryURL.appendingPathComponent(path)
    }

    /// The file's path.
    public func location(of path: String) -> String { url(path).path }

    /// Reads the whole file.
    public func read(_ path: String) async throws -> Data? {
        FileManager.default.contents(atPath: url(path).path)
    }

    /// Lists the directory, without hidden names other than temporary files (`.tmp-*`).
    ///
    /// - Throws: ``ExchangeError/transport(operation:location:reason:)`` when an existing
    ///   directory cannot be listed.
    public func list(_ path: String) async throws -> [ExchangeFolderEntry] {
        let directory = url(path)
        guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
        let names = try transport("list", directory) { try FileManager.default.contentsOfDirectory(atPath: directory.path) }
        return names.compactMap { name in
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path) else {
                return nil
            }
            let type = attributes[.type] as? FileAttributeType
            return ExchangeFolderEntry(name: name, isFolder: type == .typeDirectory,
                                       byteCount: (attributes[.size] as? NSNumber)?.intValue ?? 0,
                                       modified: attributes[.modificationDate] as? Date)
        }
    }

    /// Links a fully written temporary file at `path` unless a file is there.
    public func create(_ data: Data, at path: String, durably: Bool) async throws -> Bool {
        let target = url(path)
        return try transport("write", target) {
            try DurableFile.createDirectory(target.deletingLastPathComponent())
            return try DurableFile.create(data, at: target, syncing: durably)
        }
    }

    /// Renames a fully written, synced temporary file onto `path`.
    public func replace(_ data: Data, at path: String) async throws {
        let target = url(path)
        try transport("write", target) {
            try DurableFile.createDirectory(target.deletingLastPathComponent())
            try DurableFile.write(data, to: target)
        }
    }

    /// Syncs each file, then each folder once.
    public func synchronize(_ paths: [String]) async throws {
        try transport("synchronize", rootDirectoryURL) { try DurableFile.synchronize(paths.map(url)) }
    }

    /// Removes the file or directory tree.
    public func remove(_ path: String) async throws {
        let target = url(path)
        guard FileManager.default.fileExists(atPath: target.path) else { return }
        try transport("remove", target) { try FileManager.default.removeItem(at: target) }
    }

    /// A `FileVersionLog` in the directory at `path`.
    public func log(at path: String) -> any ExchangeFolderLog {
        Log(log: FileVersionLog(directoryURL: url(path)))
    }

    struct Log: ExchangeFolderLog {
        let log: FileVersionLog

        func append(_ records: [Data]) async throws {
            try LocalExchangeFolder.transport("append to", log.directoryURL) { try log.append(records) }
        }

        func records(after cursor: VersionLogCursor) async throws -> (records: [Data], cursor: VersionLogCursor) {
            do {
                return try log.records(after: cursor)
            } catch let error as ZoneError {
                if case let .corrupt(path, reason) = error { throw ExchangeError.malformedData(location: path, reason: reason) }
                throw ExchangeError.transport(operation: "read", location: log.directoryURL.path, reason: "\(error)")
            }
        }
    }

    func transport<T>(_ operation: String, _ url: URL, _ body: () throws -> T) throws -> T {
        try Self.transport(operation, url, body)
    }

    static func transport<T>(_ operation: String, _ url: URL, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as ExchangeError {
            throw error
        } catch {
            throw ExchangeError.transport(operation: operation, location: url.path, reason: "\(error)")
        }
    }
}
