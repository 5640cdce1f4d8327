import Foundation
import LLVSExchange
import LLVSSupport
import LLVSZones
import NIOHTTP1

/// A version log in a WebDAV folder, in the directory log's segment format (SPEC.md,
/// "Version log"), so a folder synced to disk reads as a directory exchange.
///
/// Every append publishes a segment file of its own, `<writer>-<sequence>.log`, created and
/// never replaced: a file appears whole (`PUT` to a temporary name, then `MOVE` without
/// overwrite) on every server, where replacing a file is a delete then a rename on Apache's
/// and rclone's (a reader, or a crash, between the two would see the log lose records).
/// So two writers never write one file, no lock or `If-Match` is needed, and a reader's
/// cursor (bytes read per file) stays good forever. A reader lists the folder once
/// (`PROPFIND`) and fetches only files it has not read to their end.
///
/// After each append the writer rewrites a small file, `last-append`, with new random
/// bytes: its change token. A poll `GET`s it with `If-None-Match` (the server answers `304`
/// with no body while nothing changed), so an idle poll is one small request however long
/// the log grows. The token is a hint, written after the segment: a reader that sees it
/// change finds the segment listed.
final class WebDAVLog: ExchangeFolderLog {
    let folder: WebDAVFolder
    let path: String
    private let writer = DurableFile.uniqueName()
    /// The sequence number of this writer's next file.
    private let sequence = Locked(0)

    init(folder: WebDAVFolder, path: String) {
        self.folder = folder
        self.path = path
    }

    /// Publishes one new segment file holding `records`.
    ///
    /// - Throws: ``ExchangeError/transport(operation:location:reason:)``; then nothing of
    ///   these records is logged, unless the file was published and only the answer lost.
    func append(_ records: [Data]) async throws {
        guard !records.isEmpty else { return }
        var bytes = FileVersionLog.segmentHeader
        bytes.append(FileVersionLog.encodeRecords(records))
        while true {
            let number = sequence.withLock { number in
                defer { number += 1 }
                return number
            }
            let name = "\(writer)-" + String(format: "%08d", number) + ".log"
            // Taken only if another log object drew the same writer name, which it does not.
            if try await folder.create(bytes, at: "\(path)/\(name)", durably: true) { break }
        }
        do {
            try await folder.put(Data((DurableFile.uniqueName() + "\n").utf8), at: headPath, folder: path)
        } catch {
            // The records are logged; pollers find them when they next read the log.
            folder.logger.debug("the log's change token was not written", metadata: ["error": "\(error)"])
        }
    }

    /// The file whose bytes change after each append.
    static let headName = "last-append"
    var headPath: String { "\(path)/\(Self.headName)" }

    /// The change token: `etag <ETag>` of `last-append` where the server sends ETags (then a
    /// poll whose token is unchanged is answered `304` with no body), else its bytes;
    /// `absent` while there is none.
    ///
    /// - Throws: ``ExchangeError/transport(operation:location:reason:)``.
    func changeToken(ifDifferentFrom previous: String?) async throws -> String? {
        let etag = previous.flatMap { $0.hasPrefix(Self.etagPrefix) ? String($0.dropFirst(Self.etagPrefix.count)) : nil }
        let response = try await folder.send(.GET, headPath, operation: "poll", headers: etag.map { [("If-None-Match", $0)] } ?? [],
                                             accepting: [304, 404])
        switch response.status {
        case 304: return previous
        case 404: return "absent"
        default:
            if let tag = response.headers.first(name: "ETag"), !tag.isEmpty { return Self.etagPrefix + tag }
            return "bytes " + response.body.prefix(1024).base64EncodedString()
        }
    }

    private static let etagPrefix = "etag "

    /// The records of every segment file past `cursor`: one listing, then a read of each
    /// file not read to its end.
    ///
    /// - Throws: ``ExchangeError/malformedData(location:reason:)`` for a damaged segment,
    ///   ``ExchangeError/transport(operation:location:reason:)``.
    func records(after cursor: VersionLogCursor) async throws -> (records: [Data], cursor: VersionLogCursor) {
        let segments = try await folder.list(path)
            .filter { !$0.isFolder && $0.name.hasSuffix(".log") && !$0.name.hasPrefix(".") }
            .sorted { $0.name < $1.name }
        var records: [Data] = []
        var next = cursor
        for entry in segments {
            let start = cursor.positions[entry.name] ?? 0
            // A listing without sizes (byteCount 0) reads to be sure.
            guard entry.byteCount == 0 || entry.byteCount > start else { continue }
            let file = "\(path)/\(entry.name)"
            guard let bytes = try await folder.read(file, from: start) else { continue }
            do {
                let (found, end) = try FileVersionLog.records(inSegmentBytes: bytes, from: start, path: folder.location(of: file))
                records.append(contentsOf: found)
                next.positions[entry.name] = end
            } catch let error as ZoneError {
                if case let .corrupt(location, reason) = error { throw ExchangeError.malformedData(location: location, reason: reason) }
                throw ExchangeError.malformedData(location: folder.location(of: file), reason: "\(error)")
            }
        }
        return (records, next)
    }
}

