import Foundation
import LLVSCore
import LLVSSupport
import LLVSTesting
@testable import LLVSStore
@testable import LLVSZones
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Acknowledged versions of the file backend survive a power loss. A model of the disk
/// records what each sync made durable (`POSIXFile.syncObserver`): a file's bytes when it
/// is fsynced, a directory's entries when the directory is fsynced, both by inode. The
/// power loss keeps only that — a file never synced is empty, a name whose directory was
/// never synced after it appeared is gone — and every version whose `makeVersion` or
/// `merge` returned must still be there, whole. (The SQLite backend is tested the same way
/// through a VFS, `SQLitePowerLossTests`.)
@Suite(.serialized) struct FilePowerLossTests {
    /// What the disk holds durably, by inode.
    final class DurableDisk: Sendable {
        struct Entry: Hashable { var inode: UInt64; var isDirectory: Bool }
        struct State {
            var files: [UInt64: Data] = [:]
            var directories: [UInt64: [String: Entry]] = [:]
        }
        let root: URL
        let state = Locked(State())

        init(root: URL) throws {
            self.root = root.resolvingSymlinksInPath()
            try record(path: self.root.path, everything: true)
        }

        static func stat(_ path: String) -> (inode: UInt64, isDirectory: Bool)? {
            var info = Glibc.stat()
            guard lstat(path, &info) == 0 else { return nil }
            return (UInt64(info.st_ino), (info.st_mode & S_IFMT) == S_IFDIR)
        }

        /// Records `path` as synced: a file's bytes, or a directory's entries; with
        /// `everything`, the whole tree below it too.
        func record(path: String, everything: Bool = false) throws {
            guard let (inode, isDirectory) = Self.stat(path) else { return }
            if isDirectory {
                var entries: [String: Entry] = [:]
                for name in try FileManager.default.contentsOfDirectory(atPath: path) {
                    let child = path + "/" + name
                    guard let (childInode, childIsDirectory) = Self.stat(child) else { continue }
                    entries[name] = Entry(inode: childInode, isDirectory: childIsDirectory)
                    if everything { try record(path: child, everything: true) }
                }
                state.withLock { $0.directories[inode] = entries }
            } else if let bytes = FileManager.default.contents(atPath: path) {
                state.withLock { $0.files[inode] = bytes }
            }
        }

        /// Writes what survives a power loss into `target`.
        func restore(into target: URL) throws {
            guard let (rootInode, _) = Self.stat(root.path) else { return }
            let state = state.withLock { $0 }
            func rebuild(_ inode: UInt64, at url: URL) throws {
                for (name, entry) in state.directories[inode] ?? [:] {
                    let child = url.appendingPathComponent(name)
                    if entry.isDirectory {
                        try FileManager.default.createDirectory(at: child, withIntermediateDirectories: false)
                        try rebuild(entry.inode, at: child)
                    } else {
                        try (state.files[entry.inode] ?? Data()).write(to: child)
                    }
                }
            }
            try rebuild(rootInode, at: target)
        }
    }

    /// A version of the file backend costs one `fdatasync`: its value pack, map pack and
    /// commit record written together to the writer's pack segment (store format 4; format
    /// 3 synced the packs, then a log record of its own: two; with a segment per zone it was
    /// three, which ext4 serialises even on two threads).
    @Test func aVersionCostsOneSync() throws {
        let directory = try TemporaryDirectory()
        let store = try Store(rootDirectoryURL: directory.url, storage: FileStorage())
        // The first version creates the segments and preallocates their space.
        var head = try store.makeVersion(basedOnPredecessor: nil, inserting: [value("warm", "up")]).id
        let syncs = Locked<[String]>([])
        let prefix = directory.url.resolvingSymlinksInPath().path + "/"
        POSIXFile.syncObserver.withLock { observer in
            observer = { _, path in
                guard let path, path.hasPrefix(prefix) else { return }
                syncs.withLock { $0.append(String(path.dropFirst(prefix.count))) }
            }
        }
        defer { POSIXFile.syncObserver.withLock { $0 = nil } }
        for index in 0..<10 {
            head = try store.makeVersion(basedOnPredecessor: head, inserting: [value("key \(index)", "value \(index)")],
                                         updating: [value("warm", "update \(index)")]).id
        }
        POSIXFile.syncObserver.withLock { $0 = nil }
        let synced = syncs.withLock { $0 }
        #expect(synced.count == 10, "\(synced)")
        #expect(synced.allSatisfy { $0.hasPrefix("packs/") }, "\(synced)")
    }

    @Test func everyAcknowledgedVersionSurvives() throws {
        let directory = try TemporaryDirectory()
        let disk = try DurableDisk(root: directory.url)
        let prefix = disk.root.path + "/"
        POSIXFile.syncObserver.withLock { observer in
            observer = { _, path in
                if let path {
                    guard path.hasPrefix(prefix) || path == disk.root.path else { return }
                    try? disk.record(path: path)
                } else {
                    try? disk.record(path: disk.root.path, everything: true)
                }
            }
        }
        defer { POSIXFile.syncObserver.withLock { $0 = nil } }

        // Versions with a branch and a merge; each counts once its call returned.
        let store = try Store(rootDirectoryURL: directory.url, storage: FileStorage())
        var acknowledged: [Version.ID] = []
        var head: Version.ID?
        for index in 0..<8 {
            head = try store.makeVersion(basedOnPredecessor: head, inserting: [value("key \(index)", "value \(index)")],
                                         updating: index > 0 ? [value("key 0", "update \(index)")] : []).id
            acknowledged.append(try #require(head))
        }
        let side = try store.makeVersion(basedOnPredecessor: acknowledged[2], inserting: [value("side", "S")])
        acknowledged.append(side.id)
        acknowledged.append(try store.merge(version: try #require(head), with: side.id, resolvingWith: MostRecentBranchFavoringArbiter()).id)
        var expected: [Version.ID: [String: String]] = [:]
        for id in acknowledged { expected[id] = try store.texts(at: id) }
        POSIXFile.syncObserver.withLock { $0 = nil }

        let survivor = try TemporaryDirectory()
        try disk.restore(into: survivor.url)
        let reopened = try Store(rootDirectoryURL: survivor.url, storage: FileStorage())
        for id in acknowledged {
            #expect(try reopened.texts(at: id) == expected[id], "version \(id) after the power loss")
        }
        #expect(reopened.verify().isIntact)
    }
}
