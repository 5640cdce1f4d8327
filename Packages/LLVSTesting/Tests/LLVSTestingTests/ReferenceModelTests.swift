import Foundation
import LLVSCore
import LLVSTesting
import PropertyBased
import Testing

/// The oracle checked against its own definitions, so a wrong oracle cannot silently bless
/// a wrong store.
@Suite struct ReferenceModelTests {
    /// Random DAGs: `(kind, first parent seed, second parent seed)` per version.
    static let dags = zip(Gen.int(in: 0...9), Gen.int(in: 0...100), Gen.int(in: 0...100)).array(of: 1...25)

    static func model(_ steps: [(Int, Int, Int)]) -> (ReferenceModel, [Version.ID]) {
        var model = ReferenceModel()
        var ids: [Version.ID] = []
        for (i, (kind, a, b)) in steps.enumerated() {
            let id = Version.ID("v\(i)")
            var predecessors: [Version.ID] = []
            if i > 0, kind != 0 { predecessors.append(ids[a % i]) }
            if i > 1, kind >= 7, ids[b % i] != predecessors.first { predecessors.append(ids[b % i]) }
            model.addVersion(id: id, predecessors: predecessors, timestamp: Double(i), changes: [Value.ID("k\(i % 3)"): Data([UInt8(i)])])
            ids.append(id)
        }
        return (model, ids)
    }

    @Test func bestCommonAncestorsMeetTheirDefinition() async {
        await propertyCheck(count: 1_000, input: zip(Self.dags, Gen.int(in: 0...100), Gen.int(in: 0...100))) { steps, x, y in
            let (model, ids) = Self.model(steps)
            let a = ids[x % ids.count], b = ids[y % ids.count]
            let bases = model.bestCommonAncestors(of: [a], and: [b])
            let common = model.ancestors(of: a).intersection(model.ancestors(of: b))
            #expect(Set(bases).isSubset(of: common), "every base is a common ancestor")
            for base in bases {
                #expect(!bases.contains { $0 != base && model.isAncestorOrSelf(base, of: $0) }, "no base is below another")
            }
            for ancestor in common {
                #expect(bases.contains { model.isAncestorOrSelf(ancestor, of: $0) }, "every common ancestor is below a base")
            }
            #expect(bases == bases.sorted())
        }
    }

    @Test func threeWayMergeFollowsTheTextbookRules() {
        var model = ReferenceModel()
        model.addVersion(id: "O", predecessors: [], timestamp: 0, changes: ["same": Data([0]), "left": Data([0]), "both": Data([0]), "gone": Data([0])])
        model.addVersion(id: "A", predecessors: ["O"], timestamp: 1, changes: ["left": Data([1]), "both": Data([1]), "gone": nil])
        model.addVersion(id: "B", predecessors: ["O"], timestamp: 2, changes: ["both": Data([2]), "gone": Data([2])])
        let change = model.mergedValues(first: "A", second: "B", rule: .mostRecentChange)
        #expect(change["same"]?.data == Data([0]))
        #expect(change["left"]?.data == Data([1]), "changed on one side only")
        #expect(change["both"]?.data == Data([2]), "the newer change")
        #expect(change["gone"]?.data == Data([2]), "an update beats a removal")
        let branch = model.mergedValues(first: "B", second: "A", rule: .mostRecentBranch)
        #expect(branch["both"]?.data == Data([2]) && branch["gone"]?.data == Data([2]), "B is the newer branch")
    }
}
