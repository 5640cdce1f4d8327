import Foundation
import LLVSCore
import LLVSStore
import Testing

/// Merges whose criss-crosses go thousands of levels deep, or ask for the same virtual
/// ancestors exponentially often: each virtual ancestor is made once, without recursion.
/// The histories are written version by version, as a peer's would arrive.
@Suite struct DeepHistoryMergeTests {
    /// A ladder: two strands from one root; each rung's version on one strand has both
    /// versions of the rung below as predecessors, the other strand's in the other order
    /// (what two replicas make when each merges the other's last merge with an
    /// order-dependent arbiter). The top two versions have two merge bases, and so do
    /// those, down to the root: one virtual ancestor per rung. Made by recursion, 5,000
    /// rungs overflowed the stack and killed the process.
    @Test func aMergeAtopAFiveThousandRungLadderMakesOneVirtualAncestorPerRung() throws {
        let rungs = 5_000
        let storeHome = try TestStore(.memory)
        defer { withExtendedLifetime(storeHome) {} }
        let store = storeHome.store
        let root = try store.makeVersion(basedOnPredecessor: nil, inserting: [value("a", "root"), value("b", "root")])
        var a = try store.makeVersion(basedOnPredecessor: root.id, updating: [value("a", "a0")])
        var b = try store.makeVersion(basedOnPredecessor: root.id, updating: [value("b", "b0")])
        for rung in 1...rungs {
            let nextA = try store.makeVersion(basedOn: .init(idOfFirst: a.id, idOfSecond: b.id), storing: [.update(value("a", "a\(rung)"))])
            let nextB = try store.makeVersion(basedOn: .init(idOfFirst: b.id, idOfSecond: a.id), storing: [.update(value("b", "b\(rung)"))])
            (a, b) = (nextA, nextB)
        }
        let recording = RecordingArbiter()
        let merged = try store.merge(version: a.id, with: b.id, resolvingWith: recording)
        #expect(recording.merges.count == rungs + 1)
        #expect(recording.merges.last?.mergeBaseIds == [a.predecessors?.idOfFirst, b.predecessors?.idOfFirst].compactMap { $0 }.sorted())
        #expect(try store.texts(at: merged.id)["a"] == "a\(rungs)")
    }

    /// A braid: three strands from one root; at every level each strand merges all three
    /// strands of the level below (two merge versions, as a version has two
    /// predecessors). Two top versions have three merge bases; each pairwise step of
    /// merging those has the three strands of the level below as bases again. Without a
    /// memo of the virtual ancestors the arbiter ran 2^(L+1) − 1 times for L levels (8,191
    /// here); each set of bases merged once, it runs twice per level and once on top.
    @Test func aMergeAtopATwelveLevelBraidMakesEachVirtualAncestorOnce() throws {
        let levels = 12
        let storeHome = try TestStore(.memory)
        defer { withExtendedLifetime(storeHome) {} }
        let store = storeHome.store
        let root = try store.makeVersion(basedOnPredecessor: nil, inserting: (0..<3).map { value("s\($0)", "root") })
        var strands = try (0..<3).map { try store.makeVersion(basedOnPredecessor: root.id, updating: [value("s\($0)", "0")]) }
        for level in 1...levels {
            strands = try (0..<3).map { strand in
                let pair = try store.makeVersion(basedOn: .init(idOfFirst: strands[strand].id, idOfSecond: strands[(strand + 1) % 3].id),
                                                 storing: [])
                return try store.makeVersion(basedOn: .init(idOfFirst: pair.id, idOfSecond: strands[(strand + 2) % 3].id),
                                             storing: [.update(value("s\(strand)", "\(level)"))])
            }
        }
        let below = try #require(store.queryHistory { try? $0.mergeBases(strands[0].id, strands[1].id) })
        #expect(below.count == 3)
        let recording = RecordingArbiter()
        let merged = try store.merge(version: strands[0].id, with: strands[1].id, resolvingWith: recording)
        #expect(recording.merges.count == 2 * levels + 1)
        #expect(try store.texts(at: merged.id)["s0"] == "\(levels)")
    }
}
