/// Names the format of the data an application keeps in a database, and its version.
///
/// Store one in every database (``KeyValueDatabase/setApplicationIdentifier(_:)``, or open
/// with an ``ApplicationDataUpgrader``) so an older application never misreads a file made
/// by a newer one.
public struct ApplicationIdentifier: Hashable, Codable, Sendable, CustomStringConvertible {
    /// The format's name, such as `org.brians-brain.library-notes`.
    public var id: String
    /// Incremented for changes older readers cannot handle.
    public var majorVersion: Int
    /// Incremented for compatible changes.
    public var minorVersion: Int

    /// Creates an identifier.
    public init(id: String, majorVersion: Int, minorVersion: Int) {
        self.id = id
        self.majorVersion = majorVersion
        self.minorVersion = minorVersion
    }

    /// `id major.minor`.
    public var description: String {
        "\(id) \(majorVersion).\(minorVersion)"
    }

    /// True when this version number is lower than `other`'s (major, then minor).
    func isOlder(than other: ApplicationIdentifier) -> Bool {
        (majorVersion, minorVersion) < (other.majorVersion, other.minorVersion)
    }
}

/// Checks, and upgrades, the application data of a database as it opens
/// (``KeyValueDatabase/init(fileURL:authorDescription:upgrader:)``):
///
/// 1. A database whose identifier has another `id` is refused
///    (``KeyValueDatabaseError/applicationIdentifierMismatch(expected:found:)``).
/// 2. A database whose `majorVersion` is greater than expected is refused
///    (``KeyValueDatabaseError/applicationDataTooNew(expected:found:)``).
/// 3. A database whose `(majorVersion, minorVersion)` is lower than expected — or that has
///    data but no identifier — is passed to ``upgradeApplicationData(in:)``; when it returns,
///    the database's identifier becomes the expected one.
/// 4. Otherwise the database opens as it is. A new, empty database gets the expected
///    identifier.
public protocol ApplicationDataUpgrader {
    /// The identifier of the data this application reads and writes.
    var expectedApplicationIdentifier: ApplicationIdentifier { get }

    /// Upgrades data written by an older version of the application.
    ///
    /// - Throws: Anything; the database then fails to open and its identifier is unchanged.
    func upgradeApplicationData(in database: KeyValueDatabase) throws
}
