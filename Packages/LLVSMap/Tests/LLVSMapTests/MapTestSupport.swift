import Foundation
import LLVSCore
import LLVSSupport
import LLVSZones
@testable import LLVSMap

/// A zone that counts reads, to check how many nodes an operation loads.
final class CountingZone: Zone {
    let base: any Zone
    private let reads = Locked(0)

    init(_ base: any Zone = MemoryZone()) {
        self.base = base
    }

    var readCount: Int { reads.withLock { $0 } }

    func resetCount() { reads.withLock { $0 = 0 } }

    func store(_ items: [ZoneItem]) throws { try base.store(items) }

    func data(for references: [ZoneReference]) throws -> [Data?] {
        reads.withLock { $0 += references.count }
        return try base.data(for: references)
    }
}

/// Builds and writes successive versions of a map.
struct MapHistory {
    let map: Map
    private(set) var roots: [NodeReference?] = []

    init(map: Map) {
        self.map = map
    }

    /// Applies `changes` to the latest root (or to `base`) as version `v<n>`; returns its index.
    @discardableResult
    mutating func commit(_ changes: [MapChange], basedOn base: Int? = nil) throws -> Int {
        let location = Version.ID("v\(roots.count)")
        let parent = base.map { roots[$0] } ?? roots.last ?? nil
        let update = try map.update(parent, applying: changes, location: location)
        try map.write(update)
        roots.append(update.root)
        return roots.count - 1
    }
}

func reference(_ id: String, _ version: String) -> Value.Reference {
    Value.Reference(valueId: Value.ID(id), storedVersionId: Version.ID(version))
}

/// A snapshot as a plain dictionary.
func snapshot(_ map: Map, _ root: NodeReference?) throws -> [Value.ID: Value.Reference] {
    Dictionary(uniqueKeysWithValues: try map.references(in: root).map { ($0.valueId, $0) })
}
