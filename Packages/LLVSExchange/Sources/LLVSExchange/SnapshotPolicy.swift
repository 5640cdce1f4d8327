import Foundation

/// When a `StoreCoordinator` uploads a snapshot of its store after an exchange: once
/// ``minimumInterval`` has passed since the last one and at least ``minimumNewVersions``
/// versions were added since.
public struct SnapshotPolicy: Hashable, Sendable {
    /// Whether snapshots are uploaded at all.
    public var enabled: Bool
    /// The least time between two uploads, in seconds.
    public var minimumInterval: TimeInterval
    /// The least number of versions added since the last upload.
    public var minimumNewVersions: Int

    /// A custom policy.
    public init(enabled: Bool, minimumInterval: TimeInterval, minimumNewVersions: Int) {
        self.enabled = enabled
        self.minimumInterval = minimumInterval
        self.minimumNewVersions = minimumNewVersions
    }

    /// Every 7 days at most, once 20 new versions have accumulated.
    public static let auto = SnapshotPolicy(enabled: true, minimumInterval: 7 * 24 * 3600, minimumNewVersions: 20)

    /// Never upload (the default).
    public static let disabled = SnapshotPolicy(enabled: false, minimumInterval: 0, minimumNewVersions: 0)

    /// Whether to upload now, given the last upload's date and version count.
    public func isDue(now: Date, lastSnapshot: Date?, versionCount: Int, versionCountAtLastSnapshot: Int) -> Bool {
        guard enabled else { return false }
        if let lastSnapshot, now.timeIntervalSince(lastSnapshot) < minimumInterval { return false }
        return versionCount - versionCountAtLastSnapshot >= minimumNewVersions
    }
}
