import Foundation
import LLVSCore
import LLVSTesting
import LLVSZones
import Testing
@testable import LLVSMap

@Suite struct MapTests {
    @Test func emptyMapHasNothing() throws {
        let map = Map(zone: MemoryZone())
        #expect(try map.reference(of: "a", in: nil) == nil)
        #expect(try map.references(in: nil).isEmpty)
        let update = try map.update(nil, applying: [.remove("a")], location: "v")
        #expect(update.root == nil)
        #expect(update.newNodes.isEmpty)
    }

    @Test func insertUpdateRemove() throws {
        var history = MapHistory(map: Map(zone: MemoryZone()))
        try history.commit([.set(reference("a", "v0")), .set(reference("b", "v0"))])
        try history.commit([.set(reference("a", "v1")), .remove("b"), .set(reference("c", "v1"))])
        let map = history.map
        #expect(try map.reference(of: "a", in: history.roots[0]) == reference("a", "v0"))
        #expect(try map.reference(of: "a", in: history.roots[1]) == reference("a", "v1"))
        #expect(try map.reference(of: "b", in: history.roots[1]) == nil)
        #expect(try map.reference(of: "b", in: history.roots[0]) == reference("b", "v0"))
        #expect(history.roots[1]?.count == 2)
        #expect(try map.differences(from: history.roots[0], to: history.roots[1]).sorted { $0.valueId < $1.valueId } == [
            MapDifference(valueId: "a", old: reference("a", "v0"), new: reference("a", "v1")),
            MapDifference(valueId: "b", old: reference("b", "v0"), new: nil),
            MapDifference(valueId: "c", old: nil, new: reference("c", "v1")),
        ])
    }

    /// A new map of more than ``NodeBuilder/bulkEntryCount`` entries keeps its nodes as
    /// bytes only, listing each node of the new map once; the map reads the same through an
    /// overlay (which decodes them), after being remembered (which skips them), and from
    /// the zone; a further update of it works.
    @Test func aBulkBuildKeepsItsNodesAsBytesAndReadsTheSame() throws {
        let zone = MemoryZone()
        let map = Map(zone: zone)
        let count = NodeBuilder.bulkEntryCount + 1_000
        let references = (0..<count).map { reference("key \($0)", "v") }
        let update = try map.update(nil, applying: references.map(MapChange.set), location: "v")
        #expect(update.newNodes.allSatisfy { $0.node == nil })
        // Each node once, each the root or a child of another: exactly the new map's nodes.
        let hashes = Set(update.newNodes.map(\.hash))
        #expect(hashes.count == update.newNodes.count)
        var children: Set<Digest> = []
        for node in update.newNodes {
            if case .interior(_, let nodeChildren) = try node.decoded() { children.formUnion(nodeChildren.map(\.hash)) }
        }
        #expect(children.isSubset(of: hashes))
        #expect(hashes.subtracting(children) == update.root.map { [$0.hash] })
        // The same entries added to a small map make the same root.
        let small = try map.update(nil, applying: references.prefix(100).map(MapChange.set), location: "v")
        let grown = try map.update(small.root, applying: references.dropFirst(100).map(MapChange.set), location: "v", overlay: overlay(small))
        #expect(grown.root == update.root)
        let overlay = MapOverlay()
        overlay.keep(update)
        #expect(try map.references(in: update.root, overlay: overlay).count == count)
        #expect(try map.reference(of: "key 77", in: update.root, overlay: overlay) == reference("key 77", "v"))
        map.remember(update)
        try map.write(update)
        let fresh = Map(zone: zone)
        #expect(Set(try fresh.references(in: update.root)) == Set(references))
        let next = try map.update(update.root, applying: [.remove("key 77"), .set(reference("new", "w"))], location: "w")
        try map.write(next)
        #expect(try fresh.reference(of: "key 77", in: next.root) == nil)
        #expect(try fresh.reference(of: "new", in: next.root) == reference("new", "w"))
        #expect(next.root?.count == count)
        // A small new map keeps every node decoded.
        #expect(try map.update(nil, applying: references.prefix(100).map(MapChange.set), location: "x").newNodes.allSatisfy { $0.node != nil })
    }

    @Test func lastChangeForAnIdentifierWins() throws {
        let map = Map(zone: MemoryZone())
        let update = try map.update(nil, applying: [.set(reference("a", "x")), .remove("a"), .set(reference("a", "y"))], location: "v")
        #expect(try map.reference(of: "a", in: update.root, overlay: overlay(update)) == reference("a", "y"))
    }

    @Test func noOpChangesKeepTheRoot() throws {
        var history = MapHistory(map: Map(zone: MemoryZone()))
        try history.commit((0..<100).map { .set(reference("k\($0)", "v0")) })
        let update = try history.map.update(history.roots[0], applying: [.set(reference("k5", "v0")), .remove("absent")], location: "v1")
        #expect(update.root == history.roots[0])
        #expect(update.newNodes.isEmpty)
    }

    @Test func shapeIsCanonicalWhateverTheOrderOfChanges() throws {
        let map = Map(zone: MemoryZone())
        let all = (0..<500).map { MapChange.set(reference("key-\($0)", "v")) }
        let atOnce = try map.update(nil, applying: all, location: "a")
        try map.write(atOnce)
        // One at a time, in reverse order, with detours through removals.
        var root: NodeReference?
        for (step, change) in all.reversed().enumerated() {
            var changes = [change]
            if step % 7 == 0 { changes.append(.set(reference("temporary-\(step)", "x"))) }
            let update = try map.update(root, applying: changes, location: Version.ID("b\(step)"))
            try map.write(update)
            root = update.root
        }
        let cleanup = try map.update(root, applying: (0..<500).filter { $0 % 7 == 0 }.map { .remove(Value.ID("temporary-\($0)")) }, location: "c")
        try map.write(cleanup)
        #expect(cleanup.root?.hash == atOnce.root?.hash)
        #expect(cleanup.root?.count == 500)
    }

    @Test func removingEntriesCollapsesBackToALeaf() throws {
        var history = MapHistory(map: Map(zone: MemoryZone()))
        try history.commit((0..<200).map { .set(reference("k\($0)", "v")) })
        try history.commit((3..<200).map { .remove(Value.ID("k\($0)")) })
        let direct = try history.map.update(nil, applying: (0..<3).map { .set(reference("k\($0)", "v")) }, location: "d")
        #expect(history.roots[1]?.hash == direct.root?.hash)
        #expect(direct.newNodes.count == 1, "three entries fit one leaf")
        try history.commit((0..<3).map { .remove(Value.ID("k\($0)")) })
        #expect(history.roots[2] == nil)
    }

    @Test func reopenedMapReadsNodesFromTheZone() throws {
        let directory = try TemporaryDirectory()
        let zones = try FileStorage().makeZones(rootDirectoryURL: directory.url)
        var history = MapHistory(map: Map(zone: zones.maps))
        try history.commit((0..<1_000).map { .set(reference("k\($0)", "v0")) })
        try history.commit([.set(reference("k1", "v1"))])
        let fresh = Map(zone: try FileStorage().makeZones(rootDirectoryURL: directory.url).maps)
        #expect(try fresh.reference(of: "k1", in: history.roots[1]) == reference("k1", "v1"))
        #expect(try fresh.reference(of: "k999", in: history.roots[1]) == reference("k999", "v0"))
        #expect(try snapshot(fresh, history.roots[1]).count == 1_000)
    }

    @Test func missingAndCorruptNodesAreNamed() throws {
        let zone = MemoryZone()
        let map = Map(zone: zone)
        let update = try map.update(nil, applying: [.set(reference("a", "v"))], location: "v")
        let root = try #require(update.root)
        #expect(throws: MapError.missingNode(hash: root.hash, location: "v")) {
            _ = try Map(zone: zone).reference(of: "a", in: root)
        }
        try zone.store(Data("L\u{1}\u{1}b\u{1}v".utf8), for: ZoneReference(key: .init(root.hash.hex), version: "v"))
        #expect(throws: MapError.corruptNode(hash: root.hash, location: "v")) {
            _ = try Map(zone: zone).reference(of: "a", in: root)
        }
    }

    @Test(arguments: [Data(), Data([0x58]), Data([0x4C, 0x05]), Data([0x49, 0x00, 0x00]), Data([0x49, 0x00, 0x01, 0x01]),
                      Data([0x4C, 0x01, 0x01, 0x61, 0x01, 0x76, 0x00])])
    func malformedNodeBytesThrow(_ bytes: Data) {
        #expect(throws: MapError.self) { _ = try MapNode.decode(bytes) }
    }

    @Test func digestsParseTheirHex() throws {
        let digest = Digest.of("hello")
        #expect(Digest(hex: digest.hex) == digest)
        #expect(digest.hex == "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824")
        #expect(digest.nibble(at: 0) == 2 && digest.nibble(at: 1) == 0xC && digest.nibble(at: 63) == 4)
        #expect(Digest(hex: "zz") == nil)
    }

    private func overlay(_ update: MapUpdate) -> MapOverlay {
        let overlay = MapOverlay()
        overlay.keep(update)
        return overlay
    }
}
