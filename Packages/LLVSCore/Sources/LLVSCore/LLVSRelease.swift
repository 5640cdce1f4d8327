/// This release of LLVS for Swift on Linux: what `llvs --version`, `llvs-server --version`
/// and the other tools print, and the heading of its entry in CHANGELOG.md.
///
/// Versions are semantic (CHANGELOG.md, "Version policy"): the public API of the libraries,
/// the formats of SPEC.md, the sync server's HTTP API and the tools' commands change
/// incompatibly only in a new major version (a new minor version while it is 0).
public enum LLVSRelease {
    /// The semantic version, `MAJOR.MINOR.PATCH`.
    public static let version = "0.8.0"
}
