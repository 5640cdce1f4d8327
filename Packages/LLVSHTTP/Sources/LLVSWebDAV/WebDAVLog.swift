import Foundation
import LLVSExchange
import LLVSSupport
import LLVSZones

/// A version log in a WebDAV folder, in the directory log's segment format (SPEC.md,
/// "Version log"), so a folder synced to disk reads as a directory exchange.
///
/// Each log object writes one segment of its own, `<random>.log`, created on its first
/// append and replaced, atomically, by a longer copy on each later one: no other writer
/// touches it, so no lock or `If-Match` is needed and two writers never lose a record.
/// Appends of one object are serialized. A reader lists the folder once (`PROPFIND`) and
/// fetches from each segment only the bytes past its cursor (`Range`), so an idle poll
/// costs one request.
final class WebDAVLog: ExchangeFolderLog {
    let folder: WebDAVFolder
    let path: String
    private let name = DurableFile.uniqueName() + ".log"
    /// This writer's segment as last published.
    private let segment = Locked<Data?>(nil)
    private let appends = SerialGate()

    init(folder: WebDAVFolder, path: String) {
        self.folder = folder
        self.path = path
    }

    /// Publishes this writer's segment with the records added.
    ///
    /// - Throws: ``ExchangeError/transport(operation:location:reason:)``. The records stay
    ///   in this writer's copy all the same and go out with its next append: a failed
    ///   replace may have gone through with its answer lost, and a segment only ever grows,
    ///   so that readers' cursors (byte offsets) stay good.
    func append(_ records: [Data]) async throws {
        guard !records.isEmpty else { return }
        await appends.enter()
        let next = segment.withLock { segment in
            var next = segment ?? FileVersionLog.segmentHeader
            next.append(FileVersionLog.encodeRecords(records))
            segment = next
            return next
        }
        do {
            try await folder.replace(next, at: "\(path)/\(name)")
            await appends.leave()
        } catch {
            await appends.leave()
            throw error
        }
    }

    /// The records of every segment past `cursor`: one listing, then a ranged read of each
    /// segment that grew.
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

/// Lets one task at a time through, in arrival order, across suspension points.
actor SerialGate {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Waits until no other task is inside.
    func enter() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Lets the next waiting task in.
    func leave() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
