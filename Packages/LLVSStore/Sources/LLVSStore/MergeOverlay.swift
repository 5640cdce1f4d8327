import Foundation
import LLVSCore
import LLVSMap
import LLVSSupport
import LLVSZones

/// The virtual versions of one merge: when two versions have several best common
/// ancestors, the merge first merges those ancestors into a virtual version that exists
/// only in memory (its map nodes and any new value data included), and compares the two
/// versions against it.
final class MergeOverlay: Sendable {
    struct VirtualVersion: Sendable {
        var version: Version
        var root: NodeReference?
    }

    let maps = MapOverlay()
    private let versions = Locked<[Version.ID: VirtualVersion]>([:])
    private let values = Locked<[Value.Reference: Data]>([:])

    func version(_ id: Version.ID) -> VirtualVersion? {
        versions.withLock { $0[id] }
    }

    func data(for reference: Value.Reference) -> Data? {
        values.withLock { $0[reference] }
    }

    /// Records a virtual version with its map and the value data it stores.
    func add(_ version: Version, update: MapUpdate, data: [Value.Reference: Data]) {
        maps.keep(update)
        versions.withLock { $0[version.id] = VirtualVersion(version: version, root: update.root) }
        values.withLock { $0.merge(data) { existing, _ in existing } }
    }
}
