import Foundation
import GRDBSQLite
import Synchronization

/// A power loss for SQLite, the way SQLite's own crash tests model one: an SQLite VFS that
/// works exactly like the default (`unix`) one, but remembers, for every file of a watched
/// directory, the bytes it held when it was last synced (`xSync`). ``simulatePowerLoss()``
/// then puts every file back to those bytes — every write that was never synced is
/// dropped — and files never synced disappear.
///
/// Installed as SQLite's default VFS while a test runs (GRDB opens connections with the
/// default), so other suites running meanwhile go through it too; their files are not
/// watched and their calls go straight to the `unix` VFS.
final class PowerLossFileSystem: Sendable {
    /// The one instance: SQLite's callbacks are C functions and find it here.
    static let shared = PowerLossFileSystem()

    private struct State {
        /// The name of the watched directory (a unique temporary directory's last component).
        var watchedDirectory: URL?
        var recording = false
        /// The bytes of each watched file at its last sync, by path.
        var durableBytes: [String: Data] = [:]
        /// The path of each open watched file, by the address of its `sqlite3_file`.
        var openPaths: [Int: String] = [:]
        /// The `unix` VFS's methods behind each patched table, both by address.
        var realMethods: [Int: Int] = [:]
        /// The patched copy of each `unix` methods table, by the real table's address.
        var patchedMethods: [Int: Int] = [:]
    }

    private let state = Mutex(State())

    /// The `unix` VFS and the copy of it registered as `llvs-power-loss`, made once.
    nonisolated(unsafe) private let base: UnsafeMutablePointer<sqlite3_vfs>?
    nonisolated(unsafe) private let shim: UnsafeMutablePointer<sqlite3_vfs>?

    private init() {
        base = sqlite3_vfs_find("unix")
        guard let base else {
            shim = nil
            return
        }
        let shim = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
        shim.initialize(to: base.pointee)
        shim.pointee.pNext = nil
        shim.pointee.zName = UnsafePointer(strdup("llvs-power-loss"))
        shim.pointee.xOpen = { _, name, file, flags, outFlags in
            PowerLossFileSystem.shared.open(name: name, file: file, flags: flags, outFlags: outFlags)
        }
        self.shim = shim
    }

    /// Makes the VFS SQLite's default and starts recording the files of `directory`: their
    /// present bytes count as synced.
    func watch(_ directory: URL) throws {
        guard let shim else { throw CocoaError(.featureUnsupported) }
        var baseline: [String: Data] = [:]
        for url in try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil) {
            baseline[url.resolvingSymlinksInPath().path] = try Data(contentsOf: url)
        }
        state.withLock {
            $0.watchedDirectory = directory.resolvingSymlinksInPath()
            $0.durableBytes = baseline
            $0.recording = true
        }
        sqlite3_vfs_register(shim, 1)
    }

    /// Stops recording and makes the `unix` VFS the default again. Then, once the caller has
    /// closed its connections, call ``restoreDurableBytes()``.
    func simulatePowerLoss() {
        state.withLock { $0.recording = false }
        if let base { sqlite3_vfs_register(base, 1) }
    }

    /// Puts every file of the watched directory back to its bytes at its last sync, and
    /// removes the files that were never synced. Returns the number of files changed.
    @discardableResult
    func restoreDurableBytes() throws -> Int {
        let (directory, durable) = state.withLock { ($0.watchedDirectory, $0.durableBytes) }
        guard let directory else { return 0 }
        var changed = 0
        for url in try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil) {
            let path = url.resolvingSymlinksInPath().path
            let present = try Data(contentsOf: url)
            if let bytes = durable[path] {
                if bytes != present {
                    try bytes.write(to: url)
                    changed += 1
                }
            } else {
                try FileManager.default.removeItem(at: url)
                changed += 1
            }
        }
        state.withLock { $0 = State(realMethods: $0.realMethods, patchedMethods: $0.patchedMethods) }
        return changed
    }

    // MARK: SQLite's calls

    private func isWatched(_ path: String) -> Bool {
        state.withLock { state in
            guard state.recording, let directory = state.watchedDirectory else { return false }
            return URL(fileURLWithPath: path).resolvingSymlinksInPath().deletingLastPathComponent().path == directory.path
        }
    }

    private func open(name: UnsafePointer<CChar>?, file: UnsafeMutablePointer<sqlite3_file>?, flags: Int32,
                      outFlags: UnsafeMutablePointer<Int32>?) -> Int32 {
        guard let base, let realOpen = base.pointee.xOpen else { return SQLITE_ERROR }
        let result = realOpen(base, name, file, flags, outFlags)
        guard result == SQLITE_OK, let file, let methods = file.pointee.pMethods, let name else { return result }
        let path = URL(fileURLWithPath: String(cString: name)).resolvingSymlinksInPath().path
        guard isWatched(path) else { return result }
        file.pointee.pMethods = patched(methods)
        state.withLock { $0.openPaths[Int(bitPattern: file)] = path }
        return result
    }

    /// A copy of `methods` whose `xSync` records the synced bytes and whose `xClose` forgets
    /// the file, made once per table.
    private func patched(_ methods: UnsafePointer<sqlite3_io_methods>) -> UnsafePointer<sqlite3_io_methods> {
        state.withLock { state in
            if let existing = state.patchedMethods[Int(bitPattern: methods)],
               let pointer = UnsafePointer<sqlite3_io_methods>(bitPattern: existing) {
                return pointer
            }
            let copy = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
            copy.initialize(to: methods.pointee)
            copy.pointee.xSync = { file, flags in PowerLossFileSystem.shared.sync(file, flags: flags) }
            copy.pointee.xClose = { file in PowerLossFileSystem.shared.close(file) }
            state.patchedMethods[Int(bitPattern: methods)] = Int(bitPattern: copy)
            state.realMethods[Int(bitPattern: copy)] = Int(bitPattern: methods)
            return UnsafePointer(copy)
        }
    }

    private func real(_ file: UnsafeMutablePointer<sqlite3_file>) -> (methods: UnsafePointer<sqlite3_io_methods>?, path: String?) {
        state.withLock { state in
            let methods = file.pointee.pMethods.flatMap { state.realMethods[Int(bitPattern: $0)] }
                .flatMap { UnsafePointer<sqlite3_io_methods>(bitPattern: $0) }
            return (methods, state.openPaths[Int(bitPattern: file)])
        }
    }

    private func sync(_ file: UnsafeMutablePointer<sqlite3_file>?, flags: Int32) -> Int32 {
        guard let file else { return SQLITE_ERROR }
        let (methods, path) = real(file)
        guard let realSync = methods?.pointee.xSync else { return SQLITE_ERROR }
        let result = realSync(file, flags)
        if result == SQLITE_OK, let path, let bytes = FileManager.default.contents(atPath: path) {
            state.withLock { if $0.recording { $0.durableBytes[path] = bytes } }
        }
        return result
    }

    private func close(_ file: UnsafeMutablePointer<sqlite3_file>?) -> Int32 {
        guard let file else { return SQLITE_ERROR }
        let (methods, _) = real(file)
        state.withLock { _ = $0.openPaths.removeValue(forKey: Int(bitPattern: file)) }
        guard let realClose = methods?.pointee.xClose else { return SQLITE_ERROR }
        return realClose(file)
    }
}
