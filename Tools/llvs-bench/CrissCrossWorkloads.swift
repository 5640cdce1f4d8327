import Foundation
import LLVS

/// W11, this project's deep criss-cross workload (issue 19): merges atop histories whose
/// merge bases are themselves merges with several bases, level after level, as peers that
/// each merged the other's last merge with an order-dependent arbiter deliver them.
///
/// - A ladder: two strands from one root; each rung's version on one strand has both
///   versions of the rung below as predecessors, the other strand's in the other order.
///   Merging the top two makes one virtual ancestor per rung (10,000 rungs, 20,003
///   versions; 1,000 at small scale).
/// - A braid: three strands; at each level every strand merges all three strands of the
///   level below. Merging two top versions makes each set of bases once: two arbiter calls
///   per level and one on top (10 levels; a merge that remade them per path called the
///   arbiter 2^(L+1) - 1 times).
///
/// Both merges use `BranchFavoringArbiter`, counted; the run fails when the count or the
/// merged values differ from what the shape implies.
enum CrissCrossWorkloads {
    static func w11(backend: String, scale: Scale, report: Report) throws {
        let rungs = scale == .full ? 10_000 : 1_000, levels = 10
        try ladder(rungs: rungs, backend: backend, report: report)
        try braid(levels: levels, backend: backend, report: report)
    }

    static func ladder(rungs: Int, backend: String, report: Report) throws {
        let bench = try BenchmarkStore(backend: backend)
        let store = bench.store
        var a: Version.ID = "none", b: Version.ID = "none"
        let buildTime = try milliseconds {
            let root = try store.makeVersion(basedOnPredecessor: nil, inserting: [text("a", "root"), text("b", "root")])
            a = try store.makeVersion(basedOnPredecessor: root.id, updating: [text("a", "a0")]).id
            b = try store.makeVersion(basedOnPredecessor: root.id, updating: [text("b", "b0")]).id
            for rung in 1...rungs {
                let nextA = try store.makeVersion(basedOn: .init(idOfFirst: a, idOfSecond: b), storing: [.update(text("a", "a\(rung)"))])
                let nextB = try store.makeVersion(basedOn: .init(idOfFirst: b, idOfSecond: a), storing: [.update(text("b", "b\(rung)"))])
                (a, b) = (nextA.id, nextB.id)
            }
        }
        let arbiter = CallCountingArbiter(BranchFavoringArbiter(favoring: .first))
        var merged: Version.ID = "none"
        let mergeTime = try milliseconds { merged = try store.merge(version: a, with: b, resolvingWith: arbiter).id }
        let value = try store.value(id: "a", at: merged).map { String(decoding: $0.data, as: UTF8.self) }
        guard arbiter.calls == rungs + 1, value == "a\(rungs)" else {
            throw BenchmarkError.wrongResult("W11 ladder of \(rungs) rungs: \(arbiter.calls) arbiter calls (expected \(rungs + 1)), a is \(value ?? "absent")")
        }
        let parameters = ["rungs": rungs, "versions": 2 * rungs + 3]
        report.record("W11", backend, "ladder_build_ms", buildTime, unit: "ms", parameters: parameters)
        report.record("W11", backend, "ladder_merge_ms", mergeTime, unit: "ms", parameters: parameters)
        report.record("W11", backend, "ladder_arbiter_calls", Double(arbiter.calls), unit: "calls", parameters: parameters)
    }

    static func braid(levels: Int, backend: String, report: Report) throws {
        let bench = try BenchmarkStore(backend: backend)
        let store = bench.store
        let root = try store.makeVersion(basedOnPredecessor: nil, inserting: (0..<3).map { text("s\($0)", "root") })
        var strands = try (0..<3).map { try store.makeVersion(basedOnPredecessor: root.id, updating: [text("s\($0)", "0")]).id }
        for level in 1...levels {
            strands = try (0..<3).map { strand in
                let pair = try store.makeVersion(basedOn: .init(idOfFirst: strands[strand], idOfSecond: strands[(strand + 1) % 3]), storing: [])
                return try store.makeVersion(basedOn: .init(idOfFirst: pair.id, idOfSecond: strands[(strand + 2) % 3]),
                                             storing: [.update(text("s\(strand)", "\(level)"))]).id
            }
        }
        let arbiter = CallCountingArbiter(BranchFavoringArbiter(favoring: .first))
        var merged: Version.ID = "none"
        let mergeTime = try milliseconds { merged = try store.merge(version: strands[0], with: strands[1], resolvingWith: arbiter).id }
        let value = try store.value(id: "s0", at: merged).map { String(decoding: $0.data, as: UTF8.self) }
        guard arbiter.calls == 2 * levels + 1, value == "\(levels)" else {
            throw BenchmarkError.wrongResult("W11 braid of \(levels) levels: \(arbiter.calls) arbiter calls (expected \(2 * levels + 1)), s0 is \(value ?? "absent")")
        }
        let parameters = ["levels": levels, "versions": 6 * levels + 4]
        report.record("W11", backend, "braid_merge_ms", mergeTime, unit: "ms", parameters: parameters)
        report.record("W11", backend, "braid_arbiter_calls", Double(arbiter.calls), unit: "calls", parameters: parameters)
    }

    static func text(_ id: String, _ text: String) -> Value {
        Value(idString: id, data: Data(text.utf8))
    }
}

/// An arbiter that counts its calls before passing each on.
final class CallCountingArbiter<Base: MergeArbiter>: MergeArbiter, @unchecked Sendable {
    typealias Context = Base.Context
    let base: Base
    private(set) var calls = 0

    init(_ base: Base) {
        self.base = base
    }

    func changes(toResolve merge: Merge, in store: Base.Context) throws -> [Value.Change] {
        calls += 1
        return try base.changes(toResolve: merge, in: store)
    }
}
