@testable import LLVSExchange
import PropertyBased
import Testing

/// How a send and a retrieve cut versions into batches (`Exchange.batches`): every version
/// once, in order; within the limit unless a single version is larger; a send's first and
/// last batches small, growing by doubling and shrinking by a third; and no small batch left
/// over between large ones.
///
/// Replay a failure by adding the `.fixedSeed("…")` trait the failure message prints.
@Suite struct ExchangeBatchingPropertyTests {
    /// Item sizes, a limit, and a first and last size (0: none).
    static let input = zip(Gen<Int64>.value(in: 0...1_000).array(of: 0...60), Gen.int(in: 100...3_000), Gen.int(in: 0...3_000))

    @Test func batchesHoldEveryItemOnceInOrderWithinTheirLimits() async {
        await propertyCheck(count: 500, input: Self.input) { sizes, limit, edge in
            let items = Array(sizes.indices)
            let bounded = edge == 0 ? nil : min(edge, limit)
            let runs = MemoryExchange.batches(of: items, byteLimit: limit, growingFrom: bounded, shrinkingTo: bounded) { sizes[$0] }
            let total = { (run: [Int]) in run.reduce(Int64(0)) { $0 + sizes[$1] } }
            #expect(Array(runs.joined()) == items)
            #expect(!runs.contains { $0.isEmpty })
            for run in runs where run.count > 1 { #expect(total(run) <= Int64(limit), "\(run) over \(limit)") }
            if let bounded, let last = runs.last, last.count > 1 { #expect(total(last) <= Int64(bounded), "the last batch, within \(bounded)") }
            // However few the items, the first batch is small too (the two ends take turns).
            if let bounded, let first = runs.first, first.count > 1 {
                #expect(total(first) <= Int64(bounded), "the first batch, within \(bounded)")
            }
        }
    }

    /// Joining parts for an exchange that prefers few batches (`Exchange.lastPartsOfJoinedBatches`):
    /// every part in exactly one batch, in order; a batch of several parts within the limit;
    /// each batch as large as the limit allows (the next part would pass it). Limits of 0 or
    /// less and sizes near `Int64.max` (an exchange's or a peer's numbers) neither trap nor
    /// leave a part out.
    @Test func joinedPartsFillBatchesInOrderWithinTheLimit() async {
        let input = zip(Gen<Int64>.value(in: 0...1_000).array(of: 0...20).array(of: 0...30), Gen.int(in: -10...5_000), Gen.bool)
        await propertyCheck(count: 500, input: input) { parts, limit, huge in
            let items = huge ? parts.map { $0.map { _ in Int64.max - 1 } } : parts
            let size = { (part: [Int64]) in part.reduce(Int64(0)) { MemoryExchange.saturatingSum($0, $1) } }
            let lastParts = MemoryExchange.lastPartsOfJoinedBatches(items, byteLimit: limit) { $0 }
            #expect(lastParts.allSatisfy { items.indices.contains($0) })
            #expect(items.isEmpty || lastParts.contains(items.count - 1))
            var start = 0
            for last in lastParts.sorted() {
                let batch = items[start...last].map(size).reduce(Int64(0)) { MemoryExchange.saturatingSum($0, $1) }
                if last > start { #expect(batch <= Int64(max(1, limit)), "parts \(start)...\(last) over \(limit)") }
                if last + 1 < items.count {
                    #expect(MemoryExchange.saturatingSum(batch, size(items[last + 1])) > Int64(max(1, limit)), "part \(last + 1) would fit")
                }
                start = last + 1
            }
        }
    }

    /// A sealed send's shape (1,000 versions of 1,000 bytes, batches of at most 1 MiB growing
    /// from and shrinking to 64 KiB): the batches grow up to the largest, then shrink by at
    /// most a third each (a send prepares each while it reads the next, smaller one: halving
    /// left the preparing behind at every step), with nothing small left where the two ends
    /// meet.
    @Test func batchesGrowThenShrinkByAThirdAtMost() {
        let runs = MemoryExchange.batches(of: Array(0..<1_000), byteLimit: 1 << 20, growingFrom: 65_536, shrinkingTo: 65_536) { _ in 1_000 }
        let counts = runs.map(\.count)
        #expect(counts.reduce(0, +) == 1_000)
        #expect(counts.first == 65 && counts.last == 65, "\(counts)")
        let largest = counts.indices.max { counts[$0] < counts[$1] } ?? 0
        for index in counts.indices.dropFirst() where index <= largest {
            #expect(counts[index] > counts[index - 1], "growing: \(counts)")
        }
        for index in counts.indices.dropFirst() where index > largest {
            #expect(2 * counts[index - 1] <= 3 * counts[index] + 2, "shrinking: \(counts)")
        }
        #expect(counts.allSatisfy { $0 >= 65 }, "\(counts)")
    }

    /// Without a first or last size, versions far smaller than the limit go in batches of
    /// more than a quarter of it each: as few as the limit allows, none left nearly empty.
    @Test func smallItemsFillEveryBatch() async {
        let input = zip(Gen<Int64>.value(in: 0...50).array(of: 1...200), Gen.int(in: 400...1_000))
        await propertyCheck(count: 500, input: input) { sizes, limit in
            let runs = MemoryExchange.batches(of: Array(sizes.indices), byteLimit: limit) { sizes[$0] }
            let totals = runs.map { $0.reduce(Int64(0)) { $0 + sizes[$1] } }
            let all = sizes.reduce(0, +)
            #expect(runs.count <= max(1, Int((all + Int64(limit) - 1) / Int64(limit))) + 1, "\(totals) under \(limit)")
            if runs.count > 1 { #expect(totals.allSatisfy { $0 > Int64(limit / 4) }, "\(totals) under \(limit)") }
        }
    }
}
