import Foundation
import LLVSCore
import LLVSMerge

extension KeyValueDatabase {
    /// The identifier of the application data in the database, or nil if none was set. If
    /// concurrent writes left several, the greatest (by id, then version) is returned.
    ///
    /// - Throws: ``KeyValueDatabaseError/unreadableValue(_:reason:)`` when the stored
    ///   identifier is corrupt, or a `StoreError`.
    public var applicationIdentifier: ApplicationIdentifier? {
        get throws { try applicationIdentifier(at: currentVersionId) }
    }

    /// The identifier of the application data at store version `versionId`.
    func applicationIdentifier(at versionId: LLVSCore.Version.ID?) throws -> ApplicationIdentifier? {
        let stored = try register(StoreKeys.applicationIdentifier, at: versionId)?.liveEntries ?? []
        return try stored.compactMap { entry -> ApplicationIdentifier? in
            guard case .json(let json) = entry.payload else { return nil }
            do {
                return try CanonicalJSON.decode(ApplicationIdentifier.self, from: Data(json.utf8))
            } catch {
                throw KeyValueDatabaseError.unreadableValue(StoreKeys.applicationIdentifier.rawValue, reason: "\(error)")
            }
        }.max { ($0.id, $0.majorVersion, $0.minorVersion) < ($1.id, $1.majorVersion, $1.minorVersion) }
    }

    /// Records the identifier of the application data in the database (a store version).
    ///
    /// - Throws: See ``writeText(_:to:scope:)``.
    public func setApplicationIdentifier(_ identifier: ApplicationIdentifier) throws {
        let json = String(decoding: try CanonicalJSON.encode(identifier), as: UTF8.self)
        try commit([:], records: [StoreKeys.applicationIdentifier: .json(json)])
    }

    /// Applies the four rules of ``ApplicationDataUpgrader``. A database without an
    /// identifier (new, or written by an app that never set one) goes through the upgrader,
    /// as in KeyValueCRDT.
    func applyUpgrader(_ upgrader: some ApplicationDataUpgrader) throws {
        let expected = upgrader.expectedApplicationIdentifier
        guard let found = try applicationIdentifier else {
            try upgrader.upgradeApplicationData(in: self)
            try setApplicationIdentifier(expected)
            return
        }
        guard found.id == expected.id else { throw KeyValueDatabaseError.applicationIdentifierMismatch(expected: expected, found: found) }
        guard found.majorVersion <= expected.majorVersion else { throw KeyValueDatabaseError.applicationDataTooNew(expected: expected, found: found) }
        if found.isOlder(than: expected) {
            try upgrader.upgradeApplicationData(in: self)
            try setApplicationIdentifier(expected)
        }
    }
}
