import Foundation
import LLVSCore
@testable import LLVSStore
import LLVSSupport

/// A storage that opens another storage's zones with some value items hidden, as if their
/// data had been lost: damage for the memory backend, which has no files.
struct HidingStorage: Storage {
    let base: any Storage
    let hidden: Set<ZoneReference>

    func makeZones(rootDirectoryURL: URL) throws -> StoreZones {
        var zones = try base.makeZones(rootDirectoryURL: rootDirectoryURL)
        zones.values = HidingZone(base: zones.values, hidden: hidden)
        return zones
    }
}

/// A zone that answers nil for the hidden references.
final class HidingZone: Zone {
    let base: any Zone
    let hidden: Set<ZoneReference>

    init(base: any Zone, hidden: Set<ZoneReference>) {
        self.base = base
        self.hidden = hidden
    }

    func store(_ items: [ZoneItem]) throws {
        try base.store(items)
    }

    func data(for references: [ZoneReference]) throws -> [Data?] {
        try zip(references, base.data(for: references)).map { hidden.contains($0) ? nil : $1 }
    }
}

/// A storage that opens another storage's zones with the reads of the values zone counted
/// per version.
struct CountingStorage: Storage {
    let base: any Storage
    let reads = Locked<[Version.ID: Int]>([:])

    func makeZones(rootDirectoryURL: URL) throws -> StoreZones {
        var zones = try base.makeZones(rootDirectoryURL: rootDirectoryURL)
        zones.values = CountingZone(base: zones.values, reads: reads)
        return zones
    }
}

/// A zone that counts the reads that reach it, per version.
final class CountingZone: Zone {
    let base: any Zone
    let reads: Locked<[Version.ID: Int]>

    init(base: any Zone, reads: Locked<[Version.ID: Int]>) {
        self.base = base
        self.reads = reads
    }

    func store(_ items: [ZoneItem]) throws {
        try base.store(items)
    }

    func data(for references: [ZoneReference]) throws -> [Data?] {
        reads.withLock { reads in
            for reference in references { reads[reference.version, default: 0] += 1 }
        }
        return try base.data(for: references)
    }
}
