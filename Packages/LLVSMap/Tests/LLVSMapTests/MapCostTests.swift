import LLVSCore
import LLVSZones
import Testing
@testable import LLVSMap

/// The cost bounds, checked by counting nodes (timings come from llvs-bench): writing k
/// changes into a map of n references builds O(k log n) nodes, and a diff reads
/// O(changes × log n) nodes, whatever n is.
@Suite struct MapCostTests {
    static func buildMap(size: Int, zone: any Zone) throws -> (Map, NodeReference?) {
        let map = Map(zone: zone)
        let update = try map.update(nil, applying: (0..<size).map { .set(reference("value-\($0)", "base")) }, location: "base")
        try map.write(update)
        return (map, update.root)
    }

    @Test(arguments: [1_000, 100_000])
    func tenChangesBuildAFewNodesPerChange(size: Int) throws {
        let (map, root) = try Self.buildMap(size: size, zone: MemoryZone())
        let update = try map.update(root, applying: (0..<10).map { .set(reference("value-\($0 * 37)", "next")) }, location: "next")
        let depthBound = Int((log(Double(size)) / log(16)).rounded(.up)) + 1
        #expect(update.newNodes.count <= 10 * depthBound)
        #expect(update.newNodes.count >= 10)
    }

    @Test func diffReadsDoNotGrowWithMapSize() throws {
        var reads: [Int] = []
        for size in [1_000, 100_000] {
            let zone = CountingZone()
            let (builder, root) = try Self.buildMap(size: size, zone: zone)
            var current = root
            for step in 0..<10 {
                let update = try builder.update(current, applying: [.set(reference("value-\(step * 71)", "s\(step)"))], location: Version.ID("s\(step)"))
                try builder.write(update)
                current = update.root
            }
            let cold = Map(zone: zone) // empty cache: every node read comes from the zone
            zone.resetCount()
            let differences = try cold.differences(from: root, to: current)
            #expect(differences.count == 10)
            reads.append(zone.readCount)
        }
        // Depth grows by ~1.7 levels from 1,000 to 100,000 values; the reads stay within a
        // small multiple of the changes.
        #expect(reads[1] <= 2 * 10 * 6)
        #expect(Double(reads[1]) <= 2.5 * Double(reads[0]))
    }
}

import Foundation
