import Foundation
import LLVSCore
import PropertyBased
import Testing
import LLVSZones

/// `ZoneItem.positionsByVersion(in:)`, which every backend groups a batch by.
@Suite struct ZoneItemTests {
    /// Every position once, in its version's group, in the batch's order; versions in
    /// increasing order; nothing for an empty batch.
    @Test func positionsAreGroupedByVersionInOrder() async {
        await propertyCheck(count: 300, input: Gen.int(in: 0...3).array(of: 0...40)) { versions in
            let items = versions.enumerated().map { index, version in
                ZoneItem(reference: ZoneReference(key: .init("k\(index)"), version: .init("V\(version)")), data: Data())
            }
            let groups = ZoneItem.positionsByVersion(in: items)
            #expect(groups.flatMap(\.positions).sorted() == Array(items.indices))
            #expect(groups.map(\.version) == Set(items.map(\.reference.version)).sorted())
            for (version, positions) in groups {
                #expect(positions == positions.sorted())
                #expect(positions.allSatisfy { items[$0].reference.version == version })
            }
        }
    }
}
