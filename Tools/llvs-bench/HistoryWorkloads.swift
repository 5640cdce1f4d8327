import LLVS

/// The history-graph parts of W4 and W5, on the in-memory `History` alone (backend
/// `history`). The store-level figures of these workloads (full merge, opening a store
/// from disk) arrive with the store package.
enum HistoryWorkloads {
    /// W4, merge-base part: serial histories of 1,000 / 10,000 / 100,000 versions, then two
    /// 5-version branches off the head; the time of `mergeBases` between the branch tips.
    static func mergeBaseAtDepth(backend: String, scale: Scale, report: Report) throws {
        let depths = scale == .full ? [1_000, 10_000, 100_000] : [1_000, 10_000]
        let callsPerRun = 1_000
        var perCall: [Double] = []
        for depth in depths {
            let history = try forkedSerialHistory(depth: depth, branchLength: 5)
            var bases: [Version.ID] = []
            let runMilliseconds = try medianMilliseconds {
                for _ in 0..<callsPerRun {
                    bases = try history.mergeBases("a5", "b5")
                }
            }
            guard bases == [Version.ID("s\(depth)")] else {
                throw BenchmarkError.wrongResult("merge bases at depth \(depth) were \(bases)")
            }
            perCall.append(runMilliseconds / Double(callsPerRun))
            report.record("W4", backend, "merge_base_ms", runMilliseconds / Double(callsPerRun), unit: "ms",
                          parameters: ["depth": depth, "branch_length": 5])
        }
        if let shallowest = perCall.first, let deepest = perCall.last {
            report.record("W4", backend, "merge_base_ratio_deepest_shallowest", deepest / shallowest, unit: "ratio",
                          parameters: ["deepest": depths.last ?? 0, "shallowest": depths.first ?? 0])
        }
    }

    /// W5, history part: loading 1,000 / 10,000 / 100,000 versions, handed over in a
    /// scrambled order as a reload from disk would, into a new `History`.
    static func historyLoad(backend: String, scale: Scale, report: Report) throws {
        let sizes = scale == .full ? [1_000, 10_000, 100_000] : [1_000, 10_000]
        for size in sizes {
            let versions = scrambled(serialVersions(count: size))
            var loaded = 0
            let time = try medianMilliseconds {
                loaded = try History(versions: versions).count
            }
            guard loaded == size else { throw BenchmarkError.wrongResult("loaded \(loaded) of \(size) versions") }
            report.record("W5", backend, "history_load_ms", time, unit: "ms", parameters: ["versions": size])
        }
    }

    /// `s1 … s<depth>` in a line, then `a1 … a<n>` and `b1 … b<n>` off `s<depth>`.
    static func forkedSerialHistory(depth: Int, branchLength: Int) throws -> History {
        var versions = serialVersions(count: depth)
        for side in ["a", "b"] {
            for i in 1...branchLength {
                let predecessor = Version.ID(i == 1 ? "s\(depth)" : "\(side)\(i - 1)")
                versions.append(Version(id: Version.ID("\(side)\(i)"), predecessors: .init(idOfFirst: predecessor),
                                        timestamp: Double(depth + i)))
            }
        }
        return try History(versions: versions)
    }

    static func serialVersions(count: Int) -> [Version] {
        (1...count).map { i in
            Version(id: Version.ID("s\(i)"), predecessors: i == 1 ? nil : .init(idOfFirst: Version.ID("s\(i - 1)")),
                    timestamp: Double(i))
        }
    }

    /// A fixed permutation far from the original order: position `i` takes element
    /// `i × step mod n` for a step coprime with `n`.
    static func scrambled<T>(_ elements: [T]) -> [T] {
        let n = elements.count
        var step = max(1, (n * 61) / 100) | 1
        while gcd(step, n) != 1 { step += 2 }
        return (0..<n).map { elements[($0 * step) % n] }
    }

    private static func gcd(_ a: Int, _ b: Int) -> Int {
        b == 0 ? a : gcd(b, a % b)
    }
}
