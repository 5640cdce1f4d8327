import Foundation
import LLVSCore
import LLVSExchange
import LLVSExchangeTesting
import LLVSStore
import LLVSStoreTesting
import LLVSTesting
import Testing

/// The storage backends the exchange tests run against.
typealias Backend = StoreReplica.Backend

/// A store in its own temporary directory (file storage unless told otherwise).
final class Replica: Sendable {
    let directory: TemporaryDirectory
    let store: Store

    init(_ name: String = "replica", backend: Backend = .file) throws {
        directory = try TemporaryDirectory(prefix: "llvs-exchange-\(name)")
        store = try Store(rootDirectoryURL: directory.url, storage: backend.makeStorage())
    }

    /// Saves `values` (id → text) on `base` (the most recent head by default).
    @discardableResult
    func save(_ values: [String: String], basedOn base: Version.ID?? = nil) throws -> Version {
        let predecessor = base ?? store.mostRecentHead?.id
        let changes = values.sorted { $0.key < $1.key }.map { Value.Change.update(Value(idString: $0.key, data: Data($0.value.utf8))) }
        return try store.makeVersion(basedOnPredecessor: predecessor, storing: changes)
    }

    /// The text of every value at `version` (the single head by default).
    func texts(at version: Version.ID? = nil) throws -> [String: String] {
        guard let version = version ?? store.mostRecentHead?.id else { return [:] }
        var result: [String: String] = [:]
        for reference in try store.valueReferences(at: version) {
            result[reference.valueId.rawValue] = try store.value(storedAt: reference).map { String(decoding: $0.data, as: UTF8.self) }
        }
        return result
    }

    var versionIds: Set<Version.ID> {
        store.queryHistory { Set($0.allVersionIdentifiers) }
    }

    var heads: Set<Version.ID> {
        store.queryHistory { $0.headIdentifiers }
    }
}

/// The layouts of a shared directory, for tests that run on both.
typealias DirectoryFormat = FileSystemExchange.DirectoryFormat

/// A shared exchange directory: empty for format 2 (the exchange creates it in the format
/// new directories get), or with the marker a sender of format 1 wrote.
func makeSharedDirectory(_ format: DirectoryFormat = .batches) throws -> TemporaryDirectory {
    let directory = try TemporaryDirectory(prefix: "llvs-exchange-shared")
    if format == .versionFiles {
        let marker = #"{"checksums":true,"format":"llvs-file-exchange","formatVersion":1,"identifier":"\#(UUID().uuidString)"}"#
        try Data(marker.utf8).write(to: directory.url.appendingPathComponent("llvs-exchange.json"))
    }
    return directory
}

/// Every backend with every directory format.
let backendsAndFormats: [(Backend, DirectoryFormat)] = Backend.allCases.flatMap { backend in
    DirectoryFormat.allCases.map { (backend, $0) }
}

/// Files under `directory` with their sizes, to check that nothing changed.
func fileListing(_ directory: URL) -> [String: Int] {
    var result: [String: Int] = [:]
    let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.fileSizeKey])
    while let url = enumerator?.nextObject() as? URL {
        let size = (try? url.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? -1
        result[String(url.path.dropFirst(directory.path.count))] = size
    }
    return result
}

/// A task executor with threads of its own. A test that blocks one of its threads (a progress
/// report waiting on a semaphore) leaves the others free for the work it waits for, however
/// busy the cooperative pool is with the tests running beside it; on two cores, a blocked
/// cooperative thread can leave that work queued for longer than any timeout.
final class DedicatedThreadsExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var isShutDown = false
    private let identifier = UUID().uuidString
    private static let threadKey = "DedicatedThreadsExecutor"

    /// Starts `threadCount` threads that run the jobs enqueued, in order of arrival.
    init(threadCount: Int) {
        for _ in 0..<threadCount {
            Thread { [self] in runJobs() }.start()
        }
    }

    /// Whether the calling thread is one of this executor's.
    var ownsCurrentThread: Bool {
        Thread.current.threadDictionary[Self.threadKey] as? String == identifier
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Lets the threads end once the jobs enqueued are run.
    func shutDown() {
        condition.lock()
        isShutDown = true
        condition.broadcast()
        condition.unlock()
    }

    private func runJobs() {
        Thread.current.threadDictionary[Self.threadKey] = identifier
        while true {
            condition.lock()
            while jobs.isEmpty && !isShutDown { condition.wait() }
            guard !jobs.isEmpty else {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
