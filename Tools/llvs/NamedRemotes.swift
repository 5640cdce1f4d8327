import Foundation
import LLVS
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The store's named remotes (`llvs remote add NAME DIR|URL [--token T]`), kept in
/// `remotes.json` in the store directory. The file holds access tokens, so it is written
/// with owner-only permissions (0600) from its first byte, and made so again on every write.
struct NamedRemotes: Codable, Equatable {
    /// One remote: where it is, and the token sent to it when it is a store URL.
    struct Entry: Codable, Equatable {
        /// A directory path (absolute) or a store URL, as `RemoteLocation` reads it.
        var location: String
        /// The access token for a store URL.
        var token: String?
    }

    /// The remotes by name.
    var remotes: [String: Entry] = [:]

    /// The file's name in the store directory.
    static let fileName = "remotes.json"

    /// True for a usable remote name: 1-64 of A-Z a-z 0-9 . _ -, not starting with a dot or a dash.
    static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.unicodeScalars.count <= 64, first != ".", first != "-" else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0)) }
    }

    /// The remotes of the store at `directory` (none when it has no file yet).
    ///
    /// - Throws: ``CLIError/invalidStoreConfiguration(path:reason:)`` for an unreadable file.
    static func load(from directory: URL) throws -> NamedRemotes {
        let url = directory.appendingPathComponent(fileName)
        guard let data = FileManager.default.contents(atPath: url.path) else { return NamedRemotes() }
        do {
            return try JSONDecoder().decode(NamedRemotes.self, from: data)
        } catch {
            throw CLIError.invalidStoreConfiguration(path: url.path, reason: "\(error)")
        }
    }

    /// Writes the file atomically with mode 0600 (``SecretFile/write(_:to:)``).
    ///
    /// - Throws: ``CLIError/failed(_:)`` naming the path and the system's reason.
    func save(to directory: URL) throws {
        try SecretFile.write(try JSONEncoder.llvs.encode(self), to: directory.appendingPathComponent(Self.fileName))
    }
}
