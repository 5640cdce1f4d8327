import ArgumentParser
import Foundation
import LLVS
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The storage backend of a store made with `llvs init`.
enum StorageKind: String, Codable, CaseIterable, ExpressibleByArgument, Sendable {
    case file
    case sqlite

    /// A new storage object of this kind.
    func makeStorage() -> any Storage {
        switch self {
        case .file: return FileStorage()
        case .sqlite: return SQLiteStorage()
        }
    }
}

/// The directory `llvs` works in (`--store`, `$LLVS_STORE` or `./.llvs`):
///
/// - `llvs.json`: what kind of store this is (``Configuration``);
/// - `store/`: the LLVS store itself, usable by any app with `Store(rootDirectoryURL:storage:)`;
/// - `state.json`: the tool's own state — the current version (`HEAD`), the current branch,
///   and per remote (directory or store URL) the exchange's restoration state (``State``);
/// - `lock`: held (with `flock`) by every command that changes something, so two commands
///   never move `HEAD` at once (`llvs serve` does not hold it: it never moves `HEAD`).
final class StoreDirectory {
    /// The contents of `llvs.json`.
    struct Configuration: Codable {
        static let format = "llvs-cli-store"
        var format: String = Configuration.format
        var formatVersion: Int = 1
        var storage: StorageKind
    }

    /// The contents of `state.json`.
    struct State: Codable {
        /// The current version, which `put`, `rm` and `merge` build on; nil in an empty store.
        var head: Version.ID?
        /// The branch new versions are recorded on; nil for the main line.
        var branch: Branch?
        /// Per remote (the standardized path of an exchange directory, or a store URL without
        /// a trailing slash), the exchange's restoration state, so the next push or pull lists
        /// only what is new.
        var remotes: [String: Data] = [:]
        /// Set while a command writes versions, until it saves the new `HEAD` (see
        /// `PendingCommit.swift`); absent otherwise.
        var pending: PendingCommit?
        /// Versions made by commands that did not complete: never merged, fast-forwarded to
        /// or pushed. Absent when there are none.
        var abandoned: [Version.ID]?
        /// Branches made by `llvs branch NAME` (or `switch -c`), by name, with the version
        /// each starts at: a branch exists before any version is recorded on it.
        var createdBranches: [String: BranchStart]?
    }

    /// Where a branch made by `llvs branch NAME` starts.
    struct BranchStart: Codable {
        /// The version it was created at; nil when the store was empty.
        var start: Version.ID?
    }

    let url: URL
    let configuration: Configuration
    let store: Store
    var state: State
    private let lockDescriptor: Int32?

    var storeURL: URL { url.appendingPathComponent("store", isDirectory: true) }
    private var stateURL: URL { url.appendingPathComponent("state.json") }

    /// The directory named by `--store`, else `$LLVS_STORE`, else (when `discovering`, as Git
    /// finds its repository) the first `.llvs` holding a store in the current directory or one
    /// of its parents, else `./.llvs`. `llvs init` does not discover: it makes `./.llvs`.
    static func location(_ option: String?, discovering: Bool = true) -> URL {
        if let path = option ?? ProcessInfo.processInfo.environment["LLVS_STORE"].flatMap({ $0.isEmpty ? nil : $0 }) {
            return URL(fileURLWithPath: path).standardizedFileURL
        }
        return discovering ? discoveredLocation() : URL(fileURLWithPath: ".llvs").standardizedFileURL
    }

    /// The first `.llvs` with an `llvs.json` in the current directory or a parent, else `./.llvs`.
    static func discoveredLocation() -> URL {
        let start = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).standardizedFileURL
        var directory = start
        while true {
            let candidate = directory.appendingPathComponent(".llvs", isDirectory: true)
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("llvs.json").path) { return candidate }
            let parent = directory.deletingLastPathComponent()
            if parent.path == directory.path || directory.path == "/" { break }
            directory = parent
        }
        return start.appendingPathComponent(".llvs", isDirectory: true)
    }

    /// Makes a new, empty store at `url`.
    ///
    /// - Throws: ``CLIError/storeExists(path:)`` when there is one, or an I/O error.
    static func create(at url: URL, storage: StorageKind) throws -> StoreDirectory {
        let configurationURL = url.appendingPathComponent("llvs.json")
        if FileManager.default.fileExists(atPath: configurationURL.path) { throw CLIError.storeExists(path: url.path) }
        try DurableFile.createDirectory(url)
        try DurableFile.write(try JSONEncoder.llvs.encode(Configuration(storage: storage)), to: configurationURL)
        return try StoreDirectory(url: url, locking: true, creatingStorage: true)
    }

    /// Opens the store at `url`; `locking` takes the store's lock for the life of the object.
    /// Only `creatingStorage` (for `llvs init`) lets the storage make its database or
    /// directories: any other command on a store whose data was deleted would otherwise
    /// open a new, empty store in its place.
    ///
    /// - Throws: ``CLIError/noStore(path:)``, ``CLIError/invalidStoreConfiguration(path:reason:)``,
    ///   ``CLIError/storageMissing(path:head:)``, or the store's errors.
    init(url: URL, locking: Bool, creatingStorage: Bool = false) throws {
        self.url = url
        let configurationURL = url.appendingPathComponent("llvs.json")
        guard let data = FileManager.default.contents(atPath: configurationURL.path) else { throw CLIError.noStore(path: url.path) }
        do {
            configuration = try JSONDecoder().decode(Configuration.self, from: data)
        } catch {
            throw CLIError.invalidStoreConfiguration(path: configurationURL.path, reason: "\(error)")
        }
        guard configuration.format == Configuration.format, configuration.formatVersion == 1 else {
            throw CLIError.invalidStoreConfiguration(path: configurationURL.path,
                reason: "format \(configuration.format) version \(configuration.formatVersion) is not one this llvs reads (\(Configuration.format) version 1)")
        }
        lockDescriptor = locking ? try Self.lock(url.appendingPathComponent("lock")) : nil
        let storeURL = url.appendingPathComponent("store", isDirectory: true)
        if !creatingStorage, let missing = Self.missingStorage(at: storeURL, kind: configuration.storage) {
            let head = FileManager.default.contents(atPath: url.appendingPathComponent("state.json").path)
                .flatMap { try? JSONDecoder().decode(State.self, from: $0) }?.head
            throw CLIError.storageMissing(path: missing, head: head)
        }
        store = try Store(rootDirectoryURL: url.appendingPathComponent("store", isDirectory: true), storage: configuration.storage.makeStorage())
        let stateURL = url.appendingPathComponent("state.json")
        if let stateData = FileManager.default.contents(atPath: stateURL.path) {
            do {
                state = try JSONDecoder().decode(State.self, from: stateData)
            } catch {
                throw CLIError.invalidStoreConfiguration(path: stateURL.path, reason: "\(error); remove it to start again from the most recent head")
            }
        } else {
            state = State(head: store.mostRecentHead?.id)
        }
        // A command that recorded its intent and is gone (it held the lock we now hold).
        if locking, state.pending != nil { try abandonPendingVersions() }
    }

    /// The path of the file that shows a store of `kind` exists at `storeURL`, when it is
    /// missing: SQLite's database file; for file storage its marker (`llvs-store.json`),
    /// unless the store has a `versions` directory (a store made before the marker).
    static func missingStorage(at storeURL: URL, kind: StorageKind) -> String? {
        switch kind {
        case .sqlite:
            let database = storeURL.appendingPathComponent(SQLiteStorage.databaseFileName).path
            return FileManager.default.fileExists(atPath: database) ? nil : database
        case .file:
            let marker = storeURL.appendingPathComponent(FileStorage.markerFileName).path
            let versions = storeURL.appendingPathComponent("versions", isDirectory: true).path
            return FileManager.default.fileExists(atPath: marker) || FileManager.default.fileExists(atPath: versions) ? nil : marker
        }
    }

    deinit {
        if let lockDescriptor { close(lockDescriptor) }
    }

    /// Writes `state.json` atomically.
    func saveState() throws {
        try DurableFile.write(try JSONEncoder.llvs.encode(state), to: stateURL)
    }

    /// The current version.
    ///
    /// - Throws: ``CLIError/emptyStore`` when there is none, ``CLIError/unknownVersion(_:)``
    ///   when `state.json` names a version the store lacks.
    func requireHead() throws -> Version.ID {
        guard let head = state.head else {
            if store.queryHistory({ $0.isEmpty }) { throw CLIError.emptyStore }
            throw CLIError.noHead
        }
        guard store.version(identifiedBy: head) != nil else { throw CLIError.unknownVersion("HEAD (\(head))") }
        return head
    }

    /// The metadata for a new version: the current branch and an optional message.
    func metadata(message: String?) throws -> Version.Metadata {
        var metadata: Version.Metadata = [:]
        if let branch = state.branch { metadata[.branch] = try Version.MetadataValue(branch) }
        if let message { metadata[.message] = try Version.MetadataValue(message) }
        return metadata
    }

    /// The heads a merge or a fast-forward considers: unbranched heads and the current branch's.
    var headSelection: Store.MergeHeadSelection {
        state.branch.map { .allUnbranchedAndSpecificBranches([$0]) } ?? .allExceptBranches
    }

    /// The selected heads that are not `version` and not among its ancestors: what merging
    /// them into `version` would bring in, in identifier order.
    func headsToMerge(into version: Version.ID, selection: Store.MergeHeadSelection) throws -> [Version.ID] {
        try store.queryHistory { history in
            try liveHeads(of: history).filter { id in
                try id != version && selection.includes(history.version(identifiedBy: id)?.branch) && !history.isAncestor(id, of: version)
            }.sorted()
        }
    }

    /// The current version, or nil in an empty store.
    ///
    /// - Throws: ``CLIError/unknownVersion(_:)`` when `state.json` names a version the store lacks.
    func currentHead() throws -> Version.ID? {
        try state.head.map { _ in try requireHead() }
    }

    /// Moves `HEAD` forward after versions arrived. Returns whether it moved.
    ///
    /// - With no `HEAD` (an empty store that has just pulled, cloned or restored), as Git
    ///   checks out the remote's branch: `HEAD` goes to the most recent selected head (the
    ///   main line's, or the current branch's); when no head is selected, to the most recent
    ///   head of all, and the store switches to that head's branch.
    /// - Otherwise `HEAD` moves to the one selected head that descends from it, if exactly one does.
    func fastForwardHead() throws -> Bool {
        let selection = headSelection
        let target: (id: Version.ID, branch: Branch?)? = try store.queryHistory { history in
            let allHeads = try liveHeads(of: history).compactMap { history.version(identifiedBy: $0) }
            let heads = allHeads.filter { selection.includes($0.branch) }
            guard let head = state.head else {
                let newest = { (versions: [Version]) in versions.max { ($0.timestamp, $0.id) < ($1.timestamp, $1.id) } }
                if let selected = newest(heads) { return (selected.id, state.branch) }
                return newest(allHeads).map { ($0.id, $0.branch) }
            }
            let descendants = try heads.filter { version in try version.id != head && history.isAncestor(head, of: version.id) }
            return descendants.count == 1 ? descendants.first.map { ($0.id, state.branch) } : nil
        }
        guard let target, target.id != state.head else { return false }
        state.head = target.id
        state.branch = target.branch
        return true
    }

    /// The heads that neither `HEAD` contains nor a plain `llvs merge` would merge: heads on
    /// other branches, in identifier order.
    func headsOnOtherBranches() throws -> [(id: Version.ID, branch: Branch)] {
        let selection = headSelection
        let head = state.head
        return try store.queryHistory { history in
            try liveHeads(of: history).sorted().compactMap { id -> (Version.ID, Branch)? in
                guard let branch = history.version(identifiedBy: id)?.branch, !selection.includes(branch) else { return nil }
                if let head, try id == head || history.isAncestor(id, of: head) { return nil }
                return (id, branch)
            }
        }
    }

    /// Whether a branch of that name exists: versions are recorded on it, or `llvs branch`
    /// created it.
    func branchExists(_ name: String) -> Bool {
        state.createdBranches?[name] != nil || hasVersions(on: Branch(name))
    }

    /// Whether any version is recorded on `branch`.
    func hasVersions(on branch: Branch) -> Bool {
        store.queryHistory { history in
            history.allVersionIdentifiers.contains { history.version(identifiedBy: $0)?.branch == branch }
        }
    }

    /// The tip of `branch` (nil: the main line): its most recent version that no version
    /// on the same branch is based on, or nil when no version is on it. A branch's tip is not
    /// always a head: work on another branch may be based on it.
    func tip(of branch: Branch?) -> Version.ID? {
        store.queryHistory { history in
            history.allVersionIdentifiers.compactMap(history.version(identifiedBy:))
                .filter { version in
                    version.branch == branch && !((try? history.successorIdentifiers(of: version.id)) ?? []).contains {
                        history.version(identifiedBy: $0)?.branch == branch
                    }
                }
                .max { ($0.timestamp, $0.id) < ($1.timestamp, $1.id) }?.id
        }
    }

    /// Total bytes and files under the store's directory.
    func diskUsage() -> (bytes: Int64, files: Int) {
        var bytes: Int64 = 0, files = 0
        let keys: [URLResourceKey] = [.fileSizeKey, .isRegularFileKey]
        guard let enumerator = FileManager.default.enumerator(at: storeURL, includingPropertiesForKeys: keys) else { return (0, 0) }
        for case let file as URL in enumerator {
            guard let values = try? file.resourceValues(forKeys: Set(keys)), values.isRegularFile == true else { continue }
            bytes += Int64(values.fileSize ?? 0)
            files += 1
        }
        return (bytes, files)
    }

    /// Opens (creating) `url` and takes an exclusive `flock` on it, waiting for other commands.
    private static func lock(_ url: URL) throws -> Int32 {
        let descriptor = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw CLIError.failed("cannot open the lock file \(url.path): \(String(cString: strerror(errno)))") }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                throw CLIError.failed("cannot lock \(url.path): \(reason)")
            }
        }
        return descriptor
    }
}

extension Version.MetadataKey {
    /// The message `llvs put/rm/merge -m` records with a version.
    static let message = Version.MetadataKey(rawValue: "message")
}

extension JSONEncoder {
    /// Sorted keys, pretty-printed, ISO 8601 dates: the tool's JSON style.
    static var llvs: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}
