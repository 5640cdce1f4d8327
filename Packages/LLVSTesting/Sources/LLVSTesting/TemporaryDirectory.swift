import Foundation

/// A fresh directory under the system's temporary directory, removed when the value is
/// released. Tests use one per test so they never share or leave files.
public final class TemporaryDirectory: Sendable {
    /// The directory.
    public let url: URL

    /// Creates a new, empty directory whose name starts with `prefix`.
    ///
    /// - Throws: The file system's error when the directory cannot be created.
    public init(prefix: String = "llvs-test") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
