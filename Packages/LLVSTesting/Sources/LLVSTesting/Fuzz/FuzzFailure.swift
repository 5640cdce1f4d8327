import Foundation

/// A failing fuzz case as `llvs-fuzz` writes it: the minimal history, where it came from
/// and what it broke. Regression tests load these files and check that the history now
/// satisfies every property on every backend.
public struct FuzzFailure: Codable, Hashable, Sendable {
    /// The seed of the case, which `llvs-fuzz --case-seed` replays.
    public var caseSeed: UInt64
    /// The zone backend the case failed on.
    public var backend: String
    /// The property that failed.
    public var property: ConvergenceProperty
    /// What failed, for the reader (the violation, or the error a replica threw).
    public var message: String
    /// The minimal failing history.
    public var history: FuzzHistory

    /// Creates a failure record.
    public init(caseSeed: UInt64, backend: String, property: ConvergenceProperty, message: String, history: FuzzHistory) {
        self.caseSeed = caseSeed
        self.backend = backend
        self.property = property
        self.message = message
        self.history = history
    }

    /// The record as pretty-printed JSON with sorted keys.
    ///
    /// - Throws: `EncodingError` (not expected for these plain values).
    public func jsonData() throws -> Data {
        try FuzzHistory.prettyJSON(self)
    }

    /// Reads a record written by `llvs-fuzz`.
    ///
    /// - Throws: The file system's error, or `DecodingError` naming what is malformed.
    public init(contentsOf url: URL) throws {
        self = try JSONDecoder().decode(FuzzFailure.self, from: Data(contentsOf: url))
    }
}
