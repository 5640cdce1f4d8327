/// Matches two sequences: which elements of one are kept, in order, in the other (a longest
/// common subsequence). The text merge and the list merge use it, and SPEC.md section 17
/// fixes every step, so every port matches the same elements:
///
/// 1. The common prefix is matched, then the common suffix of what remains.
/// 2. The rest goes to Myers' greedy algorithm (Myers 1986, "An O(ND) Difference Algorithm
///    and Its Variations"), stepping down (an insertion) when `k == -d`, or when `k != d`
///    and `V[k-1] < V[k+1]`, and right (a deletion) otherwise; the path is traced back from
///    its end.
/// 3. When that part needs more than `min(1000, 10,000,000 / (n + m))` edits (`n`, `m` its
///    lengths), none of it is matched: a bound on time and memory whatever a peer sends.
enum SequenceMatching {
    /// The most edits the middle part may need before it is left unmatched.
    static func editLimit(_ n: Int, _ m: Int) -> Int {
        min(1000, 10_000_000 / max(1, n + m))
    }

    /// The matched index pairs `(i, j)` with `a[i] == b[j]`, both increasing.
    ///
    /// - Complexity: O((n + m) · d) time and O(d²) memory for d edits, d bounded as above.
    static func matches<Element: Equatable>(_ a: [Element], _ b: [Element]) -> [(Int, Int)] {
        let n = a.count, m = b.count
        var prefix = 0
        while prefix < n, prefix < m, a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < n - prefix, suffix < m - prefix, a[n - 1 - suffix] == b[m - 1 - suffix] { suffix += 1 }
        var pairs: [(Int, Int)] = (0..<prefix).map { ($0, $0) }
        let middle = myers(a, prefix..<(n - suffix), b, prefix..<(m - suffix))
        pairs.append(contentsOf: middle)
        pairs.append(contentsOf: (0..<suffix).map { (n - suffix + $0, m - suffix + $0) })
        return pairs
    }

    /// Myers' greedy forward search over `a[aRange]` and `b[bRange]`, traced back; pairs
    /// in the indices of `a` and `b`.
    private static func myers<Element: Equatable>(_ a: [Element], _ aRange: Range<Int>,
                                                  _ b: [Element], _ bRange: Range<Int>) -> [(Int, Int)] {
        let n = aRange.count, m = bRange.count
        guard n > 0, m > 0 else { return [] }
        let limit = editLimit(n, m)
        // v[k + offset] is the furthest x on diagonal k; trace[d] is v before step d, kept
        // for diagonals -d-1...d+1 only.
        let offset = min(n + m, limit + 1) + 1
        var v = [Int](repeating: 0, count: 2 * offset + 1)
        var trace: [[Int]] = []
        var end: Int?
        search: for d in 0...min(n + m, limit) {
            trace.append(Array(v[(offset - d - 1)...(offset + d + 1)]))
            for k in stride(from: -d, through: d, by: 2) {
                var x: Int
                if k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]) {
                    x = v[offset + k + 1]
                } else {
                    x = v[offset + k - 1] + 1
                }
                var y = x - k
                while x < n, y < m, a[aRange.lowerBound + x] == b[bRange.lowerBound + y] {
                    x += 1
                    y += 1
                }
                v[offset + k] = x
                if x >= n, y >= m {
                    end = d
                    break search
                }
            }
        }
        guard let end else { return [] }
        var pairs: [(Int, Int)] = []
        var x = n, y = m
        for d in stride(from: end, through: 0, by: -1) {
            let saved = trace[d]
            func stored(_ k: Int) -> Int { saved[k + d + 1] }
            let k = x - y
            let previousK = (k == -d || (k != d && stored(k - 1) < stored(k + 1))) ? k + 1 : k - 1
            let previousX = stored(previousK), previousY = previousX - previousK
            while x > previousX, y > previousY {
                x -= 1
                y -= 1
                pairs.append((aRange.lowerBound + x, bRange.lowerBound + y))
            }
            if d > 0 {
                x = previousX
                y = previousY
            }
        }
        return pairs.reversed()
    }
}
