import Foundation

/// A named line of development, recorded in a version's metadata under
/// ``Version/MetadataKey/branch``. Heads can be selected by branch, so an app can keep
/// work on a branch (a draft, an import) apart from the main line until it merges it.
///
/// Codable form: a JSON string.
public struct Branch: StringIdentifier {
    /// The branch name.
    public var rawValue: String

    /// Creates a branch from its name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates a unique branch name: `base` (if not empty), an underscore, and a UUID.
    public init(randomizedNameBasedOn base: String = "") {
        let separator = base.isEmpty ? "" : "_"
        self.init(rawValue: "\(base)\(separator)\(UUID().uuidString)")
    }
}
