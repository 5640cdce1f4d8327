import Crypto
import Foundation
import LLVSCore
import LLVSSupport

/// How identifiers become file names in the file backend (SPEC.md, "File storage").
/// Identifiers are caller and peer input, so a name is either a conservative literal form
/// or a hash — never a path that could leave the store directory.
public enum FileNaming {
    /// The directory name of a version: the identifier itself when it is 1–100 characters
    /// of `A–Z a–z 0–9 . _ -` starting with a letter or digit (every UUID), otherwise `~`
    /// followed by the hex SHA-256 of its UTF-8 bytes. Names that collide (only possible on
    /// case-insensitive file systems) are told apart by the version stored inside each pack.
    public static func directoryName(for version: Version.ID) -> String {
        let bytes = Array(version.rawValue.utf8)
        if (1...100).contains(bytes.count), let first = bytes.first, isAlphanumeric(first),
           bytes.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }) {
            return version.rawValue
        }
        return "~" + sha256Hex(bytes)
    }

    /// The shard directory of a version: the first two hex digits of the SHA-256 of its
    /// identifier, which spreads versions evenly over 256 directories.
    public static func shardName(for version: Version.ID) -> String {
        String(sha256Hex(Array(version.rawValue.utf8)).prefix(2))
    }

    /// Lower-case hex of the SHA-256 digest of `bytes`.
    public static func sha256Hex<D: DataProtocol>(_ bytes: D) -> String {
        Hex.encode(Array(SHA256.hash(data: bytes)))
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
