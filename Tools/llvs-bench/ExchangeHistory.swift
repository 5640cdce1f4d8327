import Foundation
import LLVS

/// Makes versions shaped as the exchange workloads (W6, W9) define them: a first version
/// inserting 100 values, then serial versions each updating 10 random values of those
/// (100-byte payloads, UUID ids, fixed seed).
struct ExchangeHistory {
    /// How many values the first version inserts.
    static let initialValueCount = 100
    /// How many random values each later version updates (duplicates collapse).
    static let updatesPerVersion = 10

    private var generator: SeededGenerator
    private var ids: [Value.ID] = []
    /// The last version made, nil before the first.
    private(set) var head: Version.ID?

    /// A maker of versions whose random choices follow `seed`.
    init(seed: UInt64) {
        generator = SeededGenerator(seed: seed)
    }

    /// Adds the next version to `store`, on top of the previous one.
    @discardableResult
    mutating func addVersion(to store: Store) throws -> Version.ID {
        let version: Version
        if let head {
            let updates = (0..<Self.updatesPerVersion).map { _ in
                Value(id: ids[Int.random(in: 0..<ids.count, using: &generator)], data: payload(&generator))
            }
            let unique = Array(Dictionary(updates.map { ($0.id, $0) }, uniquingKeysWith: { $1 }).values)
            version = try store.makeVersion(basedOnPredecessor: head, updating: unique)
        } else {
            let initial = uuidValues(count: Self.initialValueCount, generator: &generator)
            ids = initial.map(\.id)
            version = try store.makeVersion(basedOnPredecessor: nil, inserting: initial)
        }
        head = version.id
        return version.id
    }

    /// A new store on `backend` holding `versionCount` (at least 1) such versions, and its head.
    static func makeStore(backend: String, versionCount: Int, seed: UInt64) throws -> (bench: BenchmarkStore, head: Version.ID) {
        let bench = try BenchmarkStore(backend: backend)
        var history = ExchangeHistory(seed: seed)
        var head = try history.addVersion(to: bench.store)
        for _ in 1..<max(1, versionCount) {
            head = try history.addVersion(to: bench.store)
        }
        return (bench, head)
    }
}
