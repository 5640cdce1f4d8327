/// Shrinks a failing ``FuzzHistory`` to a minimal one that still fails, for `llvs-fuzz`
/// (property tests shrink with swift-property-based instead).
///
/// Greedy delta debugging: it tries, in turn, dropping runs of operations (halves, then
/// quarters, down to single operations), dropping edits, lowering picks, times and the
/// replica count, and keeps the first candidate that still fails; it stops when no
/// candidate fails. Every candidate is a valid history, because picks are taken modulo
/// the versions a replica holds.
public struct HistoryShrinker {
    /// Whether a history still fails.
    public let fails: (FuzzHistory) async -> Bool

    /// The number of candidates the last `shrink(_:)` tried.
    public private(set) var attempts = 0

    /// Creates a shrinker around a failure test.
    public init(fails: @escaping (FuzzHistory) async -> Bool) {
        self.fails = fails
    }

    /// Creates a shrinker that keeps to `failure`: a candidate counts as failing only when
    /// `check` finds a violation with the same cause (``PropertyViolation/hasSameCause(as:)``:
    /// the same property, and an error of the same class or none), so the shrinker never
    /// drifts from the failure it started from to an unrelated one.
    public init(keeping failure: PropertyViolation, check: @escaping (FuzzHistory) async -> PropertyViolation?) {
        self.fails = { candidate in await check(candidate)?.hasSameCause(as: failure) ?? false }
    }

    /// The smallest failing history found from `history`, which must fail.
    public mutating func shrink(_ history: FuzzHistory, maximumAttempts: Int = 20_000) async -> FuzzHistory {
        var current = history
        attempts = 0
        var improved = true
        while improved, attempts < maximumAttempts {
            improved = false
            for candidate in candidates(of: current) {
                attempts += 1
                if await fails(candidate) {
                    current = candidate
                    improved = true
                    break
                }
                if attempts >= maximumAttempts { break }
            }
        }
        return current
    }

    /// Simpler histories than `history`, the most aggressive first.
    func candidates(of history: FuzzHistory) -> [FuzzHistory] {
        var result: [FuzzHistory] = []
        let operations = history.operations
        var chunk = operations.count / 2
        while chunk >= 1 {
            for start in stride(from: 0, to: operations.count, by: chunk) {
                var copy = history
                copy.operations.removeSubrange(start..<min(start + chunk, operations.count))
                result.append(copy)
            }
            chunk /= 2
        }
        if history.replicaCount > 1 {
            var copy = history
            copy.replicaCount -= 1
            result.append(copy)
        }
        for index in operations.indices {
            for simpler in Self.simplifications(of: operations[index]) {
                var copy = history
                copy.operations[index] = simpler
                result.append(copy)
            }
        }
        return result
    }

    /// Simpler forms of one operation: fewer edits, smaller numbers, plainer kinds.
    static func simplifications(of operation: FuzzOperation) -> [FuzzOperation] {
        func fewer(_ edits: [KeyEdit]) -> [[KeyEdit]] {
            edits.indices.map { index in var copy = edits; copy.remove(at: index); return copy }
        }
        func lower(_ number: Int) -> [Int] { number > 0 ? [0, number / 2].filter { $0 < number } : [] }
        var result: [FuzzOperation] = []
        switch operation {
        case let .write(replica, base, time, edits):
            result += fewer(edits).map { .write(replica: replica, base: base, time: time, edits: $0) }
            result += (base.map(lower) ?? []).map { .write(replica: replica, base: $0, time: time, edits: edits) }
            result += lower(time).map { .write(replica: replica, base: base, time: $0, edits: edits) }
            result += lower(replica).map { .write(replica: $0, base: base, time: time, edits: edits) }
        case let .handMerge(replica, first, second, time, edits):
            result.append(.write(replica: replica, base: first, time: time, edits: edits))
            result += fewer(edits).map { .handMerge(replica: replica, first: first, second: second, time: time, edits: $0) }
            result += lower(first).map { .handMerge(replica: replica, first: $0, second: second, time: time, edits: edits) }
            result += lower(second).map { .handMerge(replica: replica, first: first, second: $0, time: time, edits: edits) }
            result += lower(time).map { .handMerge(replica: replica, first: first, second: second, time: $0, edits: edits) }
        case let .merge(replica, first, second, rule):
            result += lower(first).map { .merge(replica: replica, first: $0, second: second, rule: rule) }
            result += lower(second).map { .merge(replica: replica, first: first, second: $0, rule: rule) }
            result += lower(replica).map { .merge(replica: $0, first: first, second: second, rule: rule) }
        case let .mergeHeads(replica, into, rule):
            result += lower(into).map { .mergeHeads(replica: replica, into: $0, rule: rule) }
        case let .exchange(from, to, upTo):
            if upTo != nil { result.append(.exchange(from: from, to: to, upTo: nil)) }
            result += (upTo.map(lower) ?? []).map { .exchange(from: from, to: to, upTo: $0) }
        case let .ladder(replica, rungs, key):
            result += lower(rungs).map { .ladder(replica: replica, rungs: $0, key: key) }
            result += lower(key).map { .ladder(replica: replica, rungs: rungs, key: $0) }
        case let .braid(replica, levels, key):
            result += lower(levels).map { .braid(replica: replica, levels: $0, key: key) }
            result += lower(key).map { .braid(replica: replica, levels: levels, key: $0) }
        case let .concurrentExchange(from, and, to):
            result.append(.exchange(from: from, to: to, upTo: nil))
            result.append(.exchange(from: and, to: to, upTo: nil))
        case let .outOfOrderExchange(from, to):
            result.append(.exchange(from: from, to: to, upTo: nil))
        case let .conflictingCopy(replica, version):
            result += lower(version).map { .conflictingCopy(replica: replica, version: $0) }
        }
        return result
    }
}
