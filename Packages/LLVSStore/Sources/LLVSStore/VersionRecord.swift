import Foundation
import LLVSCore
import LLVSMap

/// What the store appends to its version log for each version (SPEC.md, "Version
/// records"): the version and the root of its map. Canonical JSON:
/// `{"map":{"count":n,"hash":"<64 hex>","location":"<version id>"},"version":{…}}`, with
/// `map` absent for an empty map.
struct VersionRecord: Codable, Sendable {
    struct MapRoot: Codable, Sendable {
        var count: Int
        var hash: String
        var location: Version.ID
    }

    var version: Version
    var map: MapRoot?

    init(version: Version, root: NodeReference?) {
        self.version = version
        self.map = root.map { MapRoot(count: $0.count, hash: $0.hash.hex, location: $0.location) }
    }

    /// The map root, or nil for an empty map.
    ///
    /// - Throws: ``StoreError/corruptVersionRecord(reason:)`` for a malformed hash.
    func root() throws(StoreError) -> NodeReference? {
        guard let map else { return nil }
        guard let hash = Digest(hex: map.hash), map.count > 0 else {
            throw .corruptVersionRecord(reason: "version \(version.id) has an invalid map root")
        }
        return NodeReference(hash: hash, location: map.location, count: map.count)
    }

    func encoded() throws(StoreError) -> Data {
        do {
            return try CanonicalJSON.encode(self)
        } catch {
            throw .corruptVersionRecord(reason: "version \(version.id) cannot be encoded: \(error)")
        }
    }

    static func decode(_ data: Data) throws(StoreError) -> VersionRecord {
        do {
            return try CanonicalJSON.decode(VersionRecord.self, from: data)
        } catch {
            throw .corruptVersionRecord(reason: "\(error)")
        }
    }
}
