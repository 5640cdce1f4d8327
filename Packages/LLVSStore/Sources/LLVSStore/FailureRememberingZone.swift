import Foundation
import LLVSCore
import LLVSSupport
import LLVSZones

/// A view of a zone for one verification run that remembers, per version, the storage
/// error a read of that version's items threw, and throws it again for the version's other
/// items without reading. A damaged pack fails every item in it, and reading and hashing it
/// once per item would make checking a large damaged version quadratic. (A version's items
/// are then all reported with the first error, even if only a later pack of the version is
/// damaged.)
final class FailureRememberingZone: Zone {
    private let base: any Zone
    private let failures = Locked<[Version.ID: ZoneError]>([:])

    /// A view of `base`.
    init(_ base: any Zone) {
        self.base = base
    }

    /// Stores through to the underlying zone (verification never writes).
    ///
    /// - Throws: The underlying zone's errors.
    func store(_ items: [ZoneItem]) throws {
        try base.store(items)
    }

    /// The items' bytes, or the error remembered for one of their versions.
    ///
    /// - Throws: ``ZoneError`` from the underlying zone, or remembered for a version.
    func data(for references: [ZoneReference]) throws -> [Data?] {
        let remembered = failures.withLock { failures -> ZoneError? in
            for reference in references { if let error = failures[reference.version] { return error } }
            return nil
        }
        if let remembered {
            throw remembered
        }
        do {
            return try base.data(for: references)
        } catch let error as ZoneError {
            if references.count == 1, let only = references.first {
                failures.withLock { $0[only.version] = error }
            }
            throw error
        }
    }
}
