import Foundation
import LLVSCore
import LLVSZones
import Testing
@testable import LLVSMap

/// The language-neutral map vectors (SPEC.md section 6): the same entries must give the
/// same root hash and node count in every implementation. The Python port
/// (`ports/python`, run by `Scripts/check-port`) checks them independently.
@Suite struct MapVectorTests {
    struct VectorFile: Decodable {
        struct Case: Decodable {
            var name: String
            var entries: [[String]]
            var rootHash: String
            var nodeCount: Int
        }
        var format: String
        var formatVersion: Int
        var cases: [Case]
    }

    @Test func mapRootsMatchTheVectors() throws {
        let url = try #require(Bundle.module.url(forResource: "map-roots", withExtension: "json", subdirectory: "Vectors"))
        let file = try JSONDecoder().decode(VectorFile.self, from: Data(contentsOf: url))
        #expect(file.format == "llvs-map-roots" && file.formatVersion == 1)
        #expect(file.cases.count >= 5)
        for vector in file.cases {
            let changes = vector.entries.map { MapChange.set(Value.Reference(valueId: Value.ID($0[0]), storedVersionId: Version.ID($0[1]))) }
            // Applying the entries in reverse, in two batches, must not matter.
            let map = Map(zone: MemoryZone())
            let half = changes.count / 2
            let first = try map.update(nil, applying: Array(changes.reversed().prefix(half)), location: "one")
            try map.write(first)
            let second = try map.update(first.root, applying: Array(changes.reversed().dropFirst(half)), location: "two")
            #expect(second.root?.hash.hex == vector.rootHash, "\(vector.name)")
            let direct = try map.update(nil, applying: changes, location: "direct")
            #expect(direct.root?.hash.hex == vector.rootHash, "\(vector.name)")
            #expect(direct.newNodes.count == vector.nodeCount, "\(vector.name)")
        }
    }
}
