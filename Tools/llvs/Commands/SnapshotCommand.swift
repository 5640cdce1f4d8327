import ArgumentParser
import Foundation
import LLVS

/// `llvs snapshot create|restore`.
struct SnapshotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot", abstract: "Write a snapshot of the store, or bootstrap an empty store from one.",
        subcommands: [SnapshotCreateCommand.self, SnapshotRestoreCommand.self])
}

/// Where a snapshot goes or comes from: a shared exchange directory, or one archive file.
struct SnapshotLocation: ParsableArguments {
    @Argument(help: ArgumentHelp("A shared exchange directory (chunked, with checksums, for `llvs pull` users).", valueName: "directory"))
    var directory: String?

    @Option(name: .long, help: ArgumentHelp("An archive file instead of a directory.", valueName: "path"))
    var file: String?

    func validate() throws {
        if (directory == nil) == (file == nil) { throw ValidationError("name either an exchange directory or --file") }
        if directory?.contains("://") == true { throw ValidationError("llvs snapshot works with a directory or a file; snapshots on a sync server are sent and restored by HTTPExchange (sendSnapshot, restoreSnapshot)") }
    }
}

/// What a snapshot command reports.
struct SnapshotSummary: Encodable {
    var versionCount: Int
    var bytes: Int64
    var latestVersion: Version.ID?
    var location: String
}

/// `llvs snapshot create`.
struct SnapshotCreateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create", abstract: "Write a snapshot of every version, to an exchange directory or a file.")

    @OptionGroup var options: StoreOptions
    @OptionGroup var location: SnapshotLocation

    @Option(help: "The chunk size in bytes, for an exchange directory.")
    var chunkSize: Int = 4 << 20

    func run() async throws {
        let directory = try options.open(locking: false)
        let bar = ProgressBar("snapshot", json: options.json)
        defer { bar.finish() }
        let summary: SnapshotSummary
        if let file = location.file {
            let url = URL(fileURLWithPath: file).standardizedFileURL
            let estimate = max(1, directory.diskUsage().bytes)
            let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(DurableFile.uniqueName())")
            guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else { throw CLIError.failed("cannot create \(temporary.path)") }
            defer { try? FileManager.default.removeItem(at: temporary) }
            let handle = try FileHandle(forWritingTo: temporary)
            var written: Int64 = 0
            let contents = try directory.store.writeSnapshot { data in
                try handle.write(contentsOf: data)
                written += Int64(data.count)
                bar.update(completed: Int(written), total: Int(max(estimate, written)), unit: "bytes")
            }
            try handle.synchronize()
            try handle.close()
            guard contents.mostRecentHead != nil else { throw CLIError.emptyStore }
            // rename(2) replaces an existing archive atomically: readers see the old or the new one.
            guard rename(temporary.path, url.path) == 0 else {
                throw CLIError.failed("cannot move the snapshot into place at \(url.path): \(String(cString: strerror(errno)))")
            }
            summary = SnapshotSummary(versionCount: contents.versionCount, bytes: written, latestVersion: contents.mostRecentHead, location: url.path)
        } else {
            let remote = URL(fileURLWithPath: location.directory ?? ".").standardizedFileURL
            let exchange = FileSystemExchange(rootDirectoryURL: remote, store: directory.store)
            guard let manifest = try await exchange.sendSnapshot(chunkSize: max(1, chunkSize), progress: { progress in
                bar.update(completed: Int(progress.completedByteCount), total: Int(progress.totalByteCount), unit: "bytes")
            }) else { throw CLIError.emptyStore }
            summary = SnapshotSummary(versionCount: manifest.versionCount, bytes: manifest.totalSize, latestVersion: manifest.latestVersionId, location: remote.path)
        }
        bar.finish()
        if options.json { return try Output.json(summary) }
        Output.line("Wrote a snapshot of \(Output.count(summary.versionCount, "version")) (\(Output.bytes(summary.bytes))) to \(summary.location)")
    }
}

/// `llvs snapshot restore`.
struct SnapshotRestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore", abstract: "Fill an empty store from a snapshot; `llvs pull` then brings what came after it.",
        discussion: "The whole snapshot is checked (per-chunk and whole-archive checksums) before the store is touched.")

    @OptionGroup var options: StoreOptions
    @OptionGroup var location: SnapshotLocation

    func run() async throws {
        let directory = try options.open(locking: true)
        guard directory.store.queryHistory({ $0.isEmpty }) else {
            throw CLIError.failed("snapshot restore fills an empty store; this one has versions (use `llvs pull` to bring it up to date)")
        }
        let bar = ProgressBar("restore", json: options.json)
        defer { bar.finish() }
        let summary: SnapshotSummary
        if let file = location.file {
            let url = URL(fileURLWithPath: file).standardizedFileURL
            guard let handle = FileHandle(forReadingAtPath: url.path) else { throw CLIError.failed("cannot read \(url.path)") }
            defer { try? handle.close() }
            let total = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
            var read = 0
            let contents = try directory.store.restoreSnapshot {
                guard let data = try handle.read(upToCount: 4 << 20), !data.isEmpty else { return nil }
                read += data.count
                bar.update(completed: read, total: max(total, read), unit: "bytes")
                return data
            }
            summary = SnapshotSummary(versionCount: contents.versionCount, bytes: Int64(read), latestVersion: contents.mostRecentHead, location: url.path)
        } else {
            let remote = URL(fileURLWithPath: location.directory ?? ".").standardizedFileURL
            let exchange = FileSystemExchange(rootDirectoryURL: remote, store: directory.store)
            guard let manifest = try await exchange.restoreSnapshot(progress: { progress in
                bar.update(completed: Int(progress.completedByteCount), total: Int(progress.totalByteCount), unit: "bytes")
            }) else { throw CLIError.failed("there is no snapshot in \(remote.path)") }
            summary = SnapshotSummary(versionCount: manifest.versionCount, bytes: manifest.totalSize, latestVersion: manifest.latestVersionId, location: remote.path)
        }
        directory.state.head = nil
        _ = try directory.fastForwardHead()
        try directory.saveState()
        bar.finish()
        if options.json { return try Output.json(summary) }
        Output.line("Restored \(Output.count(summary.versionCount, "version")) from \(summary.location)")
    }
}
