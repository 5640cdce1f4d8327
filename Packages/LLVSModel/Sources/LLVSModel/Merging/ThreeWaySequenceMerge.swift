/// A three-way merge of sequences (the diff3 of Khanna, Kunal and Pierce, "A Formal
/// Investigation of Diff3", 2007): the parts where the base and both sides agree are kept,
/// and each part between them is taken from the side that changed it. The text strategy
/// runs it on Unicode scalars (SPEC.md section 17).
enum ThreeWaySequenceMerge {
    /// The merged sequence, and whether some part was changed on both sides in different
    /// ways (a conflict).
    ///
    /// A part changed on one side only takes that side's; a part both changed alike takes
    /// it once. A part both changed differently is a conflict: when the base had nothing
    /// there (both inserted at the same place) it takes the older side's insertion and then
    /// the newer's, otherwise the newer side's part. `newer` and `older` are the sides in
    /// recency order, so the result never depends on which side was merged into which.
    static func merge<Element: Equatable>(base: [Element], newer: [Element], older: [Element]) -> (merged: [Element], conflicted: Bool) {
        let toNewer = Dictionary(uniqueKeysWithValues: SequenceMatching.matches(base, newer))
        let toOlder = Dictionary(uniqueKeysWithValues: SequenceMatching.matches(base, older))
        var merged: [Element] = []
        var conflicted = false
        var o = 0, a = 0, b = 0

        func resolve(_ baseChunk: ArraySlice<Element>, _ newerChunk: ArraySlice<Element>, _ olderChunk: ArraySlice<Element>) {
            if newerChunk.elementsEqual(baseChunk) {
                merged.append(contentsOf: olderChunk)
            } else if olderChunk.elementsEqual(baseChunk) || newerChunk.elementsEqual(olderChunk) {
                merged.append(contentsOf: newerChunk)
            } else {
                conflicted = true
                if baseChunk.isEmpty { merged.append(contentsOf: olderChunk) }
                merged.append(contentsOf: newerChunk)
            }
        }

        while true {
            // The longest run from here matched in lockstep in both sides: a stable part.
            var run = 0
            while o + run < base.count, toNewer[o + run] == a + run, toOlder[o + run] == b + run { run += 1 }
            if run > 0 {
                merged.append(contentsOf: base[o..<(o + run)])
                o += run
                a += run
                b += run
                continue
            }
            // The next base element matched in both sides ends an unstable part.
            var next = o
            while next < base.count, toNewer[next] == nil || toOlder[next] == nil { next += 1 }
            guard next < base.count, let nextA = toNewer[next], let nextB = toOlder[next] else {
                if o < base.count || a < newer.count || b < older.count {
                    resolve(base[o...], newer[a...], older[b...])
                }
                return (merged, conflicted)
            }
            resolve(base[o..<next], newer[a..<nextA], older[b..<nextB])
            (o, a, b) = (next, nextA, nextB)
        }
    }
}
