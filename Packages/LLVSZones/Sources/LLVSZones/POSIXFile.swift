import Foundation
import LLVSCore
import LLVSSupport
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few system calls the file backend needs that Foundation does not offer with the
/// guarantees required (fsync of files and directories, rename over an existing file,
/// exclusive creation, appends), each reporting failure as
/// ``ZoneError/io(operation:path:reason:)``.
enum POSIXFile {
    /// Writes `data` to `url` atomically and durably: a uniquely named temporary file in the
    /// same directory is written and fsynced, renamed over `url`, and the directory fsynced.
    /// Readers see either no file or the whole file.
    static func writeAtomically(_ data: Data, to url: URL) throws {
        let temporary = try writeTemporaryFile(data, in: url.deletingLastPathComponent())
        guard rename(temporary.path, url.path) == 0 else {
            let failure = ioError("rename into place", url.path)
            _ = unlink(temporary.path)
            throw failure
        }
        try syncDirectory(url.deletingLastPathComponent())
    }

    /// Writes `data` atomically and durably under the first of `candidates` that does not
    /// exist yet, never replacing an existing file (a hard link of a fsynced temporary file
    /// fails when the name is taken). Returns the name used, or nil when every name is taken.
    static func writeAtomicallyWithoutReplacing(_ data: Data, in directory: URL, candidates: [String]) throws -> String? {
        let temporary = try writeTemporaryFile(data, in: directory)
        defer { _ = unlink(temporary.path) }
        return try linkWithoutReplacing(temporary, in: directory, candidates: candidates)
    }

    /// Hard-links the durable file `file` into `directory` under the first of `candidates`
    /// that is free, fsyncing the directory. Returns the name used, or nil when every name
    /// is taken. `file` must be on the same file system and already fsynced.
    static func linkWithoutReplacing(_ file: URL, in directory: URL, candidates: [String], syncingDirectory: Bool = true) throws -> String? {
        for name in candidates {
            let target = directory.appendingPathComponent(name)
            if link(file.path, target.path) == 0 {
                if syncingDirectory { try syncDirectory(directory) }
                return name
            }
            guard errno == EEXIST else { throw ioError("link into place", target.path) }
        }
        return nil
    }

    /// Writes and fsyncs a uniquely named temporary file in `directory`.
    static func writeTemporaryFile(_ data: Data, in directory: URL, syncing: Bool = true) throws -> URL {
        let temporary = directory.appendingPathComponent(".tmp-\(uniqueName())")
        let descriptor = try openFile(temporary.path, flags: O_WRONLY | O_CREAT | O_EXCL, operation: "create")
        do {
            try writeAll(data, to: descriptor, path: temporary.path)
            if syncing { try syncDescriptor(descriptor, path: temporary.path) }
            try closeFile(descriptor, path: temporary.path)
        } catch {
            _ = close(descriptor)
            _ = unlink(temporary.path)
            throw error
        }
        return temporary
    }

    /// Creates `directory` if it is missing, fsyncing its parent (unless told not to) so
    /// the entry is durable. The parent must exist. Returns whether it was created.
    @discardableResult
    static func createDirectory(_ directory: URL, syncingParent: Bool = true) throws -> Bool {
        if mkdir(directory.path, 0o755) == 0 {
            if syncingParent { try syncDirectory(directory.deletingLastPathComponent()) }
            return true
        } else if errno != EEXIST {
            throw ioError("create directory", directory.path)
        }
        return false
    }

    /// A name no other writer uses: process identifier, a per-process counter and 64
    /// random bits (from the system generator, without opening a device per name).
    static func uniqueName() -> String {
        let sequence = nameCounter.add(1, ordering: .relaxed).newValue
        return "\(getpid())-\(sequence)-\(String(UInt64.random(in: 0...UInt64.max), radix: 16))"
    }

    private static let nameCounter = Atomic<Int>(0)

    /// Fsyncs a directory so that entries created or renamed in it are durable.
    static func syncDirectory(_ url: URL) throws {
        let descriptor = try openFile(url.path, flags: O_RDONLY | O_DIRECTORY, operation: "open directory")
        defer { _ = close(descriptor) }
        try syncDescriptor(descriptor, path: url.path)
    }

    /// Called after each successful sync with the descriptor and path synced. Set only by
    /// tests that model a power loss: what was not synced when the power went is gone. (No
    /// code of LLVS calls a machine-wide `sync()`, which would flush every process's dirty
    /// pages.)
    static let syncObserver = Locked<(@Sendable (_ descriptor: Int32?, _ path: String?) -> Void)?>(nil)

    /// Opens a file with close-on-exec, returning its descriptor.
    static func openFile(_ path: String, flags: Int32, operation: String) throws -> Int32 {
        let descriptor = open(path, flags | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw ioError(operation, path) }
        return descriptor
    }

    /// Writes all of `data`, retrying short writes and interrupted calls.
    static func writeAll(_ data: Data, to descriptor: Int32, path: String) throws {
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw ioError("write", path)
                }
                offset += written
            }
        }
    }

    /// Writes all of `data` at `offset`, retrying short writes and interrupted calls.
    static func writeAll(_ data: Data, to descriptor: Int32, path: String, at offset: Int) throws {
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            guard let base = buffer.baseAddress else { return }
            var done = 0
            while done < buffer.count {
                let written = pwrite(descriptor, base + done, buffer.count - done, off_t(offset + done))
                if written < 0 {
                    if errno == EINTR { continue }
                    throw ioError("write", path)
                }
                done += written
            }
        }
    }

    /// Creates the append-only file `name` in `directory` (creating the directory, and any
    /// missing parent, durably), never replacing a file, writes `magic` at its start and
    /// makes both the bytes and the name durable: how a pack segment or a log segment begins.
    /// Returns the descriptor, open for writing.
    ///
    /// - Throws: ``ZoneError/io(operation:path:reason:)``.
    static func createSegmentFile(named name: String, in directory: URL, magic: [UInt8]) throws -> (descriptor: Int32, path: String) {
        if !FileManager.default.fileExists(atPath: directory.path) {
            try DurableFile.createDirectory(directory)
        }
        let path = directory.appendingPathComponent(name).path
        let descriptor = try openFile(path, flags: O_WRONLY | O_CREAT | O_EXCL, operation: "create segment")
        do {
            try writeAll(Data(magic), to: descriptor, path: path, at: 0)
            try syncData(descriptor, path: path)
            try syncDirectory(directory)
        } catch {
            _ = close(descriptor)
            throw error
        }
        return (descriptor, path)
    }

    /// Makes sure the file has written, durable zeros from `allocated` through at least
    /// `needed` bytes, in whole `step`s, so that later writes there overwrite blocks the file
    /// already has (their sync then writes no size or block map). Returns the new allocated
    /// size (`allocated` when nothing was needed).
    ///
    /// - Throws: ``ZoneError/io(operation:path:reason:)``.
    static func preallocate(_ descriptor: Int32, path: String, allocated: Int, through needed: Int, step: Int) throws -> Int {
        guard needed > allocated else { return allocated }
        let target = (needed / step + 1) * step
        try writeAll(Data(count: target - allocated), to: descriptor, path: path, at: allocated)
        try syncData(descriptor, path: path)
        return target
    }

    /// Flushes a descriptor's data to stable storage.
    static func syncDescriptor(_ descriptor: Int32, path: String) throws {
        while fsync(descriptor) != 0 {
            if errno != EINTR { throw ioError("fsync", path) }
        }
        syncObserver.withLock { $0 }?(descriptor, path)
    }

    /// Flushes a descriptor's data, and the metadata needed to read it back (its size),
    /// to stable storage: the cheaper sync for appends.
    static func syncData(_ descriptor: Int32, path: String) throws {
        #if canImport(Glibc)
        while fdatasync(descriptor) != 0 {
            if errno != EINTR { throw ioError("fdatasync", path) }
        }
        syncObserver.withLock { $0 }?(descriptor, path)
        #else
        try syncDescriptor(descriptor, path: path)
        #endif
    }

    /// The size of an open file.
    static func size(of descriptor: Int32, path: String) throws -> Int {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw ioError("stat", path) }
        return Int(status.st_size)
    }

    /// Reads `count` bytes at `offset`, retrying short reads; fewer only at the end of the
    /// file.
    static func read(_ descriptor: Int32, path: String, offset: Int, count: Int) throws -> Data {
        guard count > 0 else { return Data() }
        var data = Data(count: count)
        let read = try data.withUnsafeMutableBytes { (buffer: UnsafeMutableRawBufferPointer) -> Int in
            guard let base = buffer.baseAddress else { return 0 }
            var done = 0
            while done < count {
                let got = pread(descriptor, base + done, count - done, off_t(offset + done))
                if got < 0 {
                    if errno == EINTR { continue }
                    throw ioError("read", path)
                }
                if got == 0 { break }
                done += got
            }
            return done
        }
        if read < count { data.removeSubrange(read...) }
        return data
    }

    /// Closes a descriptor, reporting failure.
    static func closeFile(_ descriptor: Int32, path: String) throws {
        guard close(descriptor) == 0 else { throw ioError("close", path) }
    }

    /// The error for the failed `operation` on `path`, from `errno`.
    static func ioError(_ operation: String, _ path: String) -> ZoneError {
        .io(operation: operation, path: path, reason: String(cString: strerror(errno)))
    }
}
