import Foundation

/// The durable, append-only record of a store's versions. A store appends one record per
/// version as the last step of writing it, so a version is visible exactly when its record
/// is readable. Records are opaque bytes to the log (the store defines their content).
///
/// Several writers (threads or processes) may append at once; every reader eventually sees
/// every complete record, in an order that may differ between readers. A record whose
/// append did not return (a killed process) may be seen or not, but never partially.
public protocol VersionLog: Sendable {
    /// Appends records durably; returns once they would survive a process crash.
    ///
    /// - Throws: ``ZoneError`` when the records cannot be written.
    func append(_ records: [Data]) throws

    /// The records appended after `cursor` (by any writer) and the cursor to continue from.
    /// Start with ``VersionLogCursor/start``.
    ///
    /// - Throws: ``ZoneError`` when the log cannot be read or holds a corrupt record that
    ///   is not a torn final record.
    func records(after cursor: VersionLogCursor) throws -> (records: [Data], cursor: VersionLogCursor)
}

/// A position in a ``VersionLog``: how far each of its segments has been read.
public struct VersionLogCursor: Hashable, Sendable {
    /// Bytes (or records) consumed per segment name.
    public var positions: [String: Int]

    /// Creates a cursor from per-segment positions.
    public init(positions: [String: Int] = [:]) {
        self.positions = positions
    }

    /// Before every record.
    public static let start = VersionLogCursor()
}
