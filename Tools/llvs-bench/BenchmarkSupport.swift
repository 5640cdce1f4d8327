import Foundation
import LLVS

/// A fixed-seed random number generator (SplitMix64), so every run makes the same choices.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A store for a workload, in a temporary directory removed at the end of the run.
final class BenchmarkStore {
    let directory: URL
    let backend: String
    let storage: any Storage
    private(set) var store: Store

    init(backend: String) throws {
        self.backend = backend
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("llvs-bench-\(UUID().uuidString)")
        switch backend {
        case "file": storage = FileStorage()
        case "memory": storage = MemoryStorage()
        case "sqlite": storage = SQLiteStorage()
        default: throw BenchmarkError.unsupportedBackend(backend)
        }
        store = try Store(rootDirectoryURL: directory, storage: storage)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Opens the store again, with empty caches, in place of ``store``.
    func reopen() throws -> Store {
        store = try openAgain()
        return store
    }

    /// A second, independent opening of the store, with empty caches.
    func openAgain() throws -> Store {
        try Store(rootDirectoryURL: directory, storage: storage)
    }

    /// Bytes and files under the store directory (zero for the memory backend).
    func diskUsage() -> (bytes: Int, files: Int) {
        guard let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey]) else {
            return (0, 0)
        }
        var bytes = 0, files = 0
        for case let url as URL in enumerator {
            guard let values = try? url.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey]), values.isRegularFile == true else { continue }
            bytes += values.fileSize ?? 0
            files += 1
        }
        return (bytes, files)
    }
}

/// Values with UUID identifiers and 100-byte payloads (BENCHMARKS.md).
func payload(_ generator: inout SeededGenerator) -> Data {
    Data((0..<100).map { _ in UInt8.random(in: 0...255, using: &generator) })
}

func uuidValues(count: Int, generator: inout SeededGenerator) -> [Value] {
    (0..<count).map { _ in Value(id: Value.ID(uuidString(&generator)), data: payload(&generator)) }
}

/// A UUID string drawn from `generator` (the ids of BENCHMARKS.md).
func uuidString(_ generator: inout SeededGenerator) -> String {
    UUID(uuid: randomUUIDBytes(&generator)).uuidString
}

private func randomUUIDBytes(_ generator: inout SeededGenerator) -> uuid_t {
    let a = generator.next(), b = generator.next()
    return withUnsafeBytes(of: (a, b)) { raw in
        (raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[7], raw[8], raw[9], raw[10], raw[11], raw[12], raw[13], raw[14], raw[15])
    }
}

/// An arbiter that counts the forks it sees, then defers to another.
final class ForkCountingArbiter: MergeArbiter, @unchecked Sendable {
    let base = MostRecentChangeFavoringArbiter()
    private(set) var forks = 0
    private(set) var conflictingForks = 0

    func changes(toResolve merge: Merge, in store: AnyMergeContext) throws -> [Value.Change] {
        forks += merge.forksByValueIdentifier.count
        conflictingForks += merge.forksByValueIdentifier.values.filter(\.isConflicting).count
        return try base.changes(toResolve: merge, in: store)
    }
}

/// Why a benchmark could not produce its figures.
enum BenchmarkError: Error, CustomStringConvertible {
    /// The workload computed something other than what it defines.
    case wrongResult(String)
    /// The workload does not run on this backend.
    case unsupportedBackend(String)

    var description: String {
        switch self {
        case .wrongResult(let detail): return "Benchmark produced a wrong result: \(detail)"
        case .unsupportedBackend(let backend): return "No such backend: \(backend)"
        }
    }
}

/// The floor of a durable commit on this disk: the median time of appending 4 KiB to a
/// file and `fdatasync`ing it, measured in `directory` (the store's file system) over
/// `count` appends. W1 reports its figure beside this one, so that a run on a busy or
/// slow disk can still be read.
func fdatasyncFloorMilliseconds(in directory: URL, count: Int = 200) throws -> Double {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let path = directory.appendingPathComponent("fdatasync-floor-\(UUID().uuidString)").path
    let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw BenchmarkError.wrongResult("cannot create \(path)") }
    defer {
        close(descriptor)
        unlink(path)
    }
    let block = [UInt8](repeating: 0x5A, count: 4_096)
    var times: [Double] = []
    times.reserveCapacity(count)
    for _ in 0..<count {
        let time = try milliseconds {
            guard block.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) == block.count, fdatasync(descriptor) == 0 else {
                throw BenchmarkError.wrongResult("append and fdatasync of \(path) failed")
            }
        }
        times.append(time)
    }
    return times.sorted()[count / 2]
}
