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

    /// Writes the file atomically with mode 0600: a temporary file created owner-only, synced,
    /// then renamed over the old one.
    ///
    /// - Throws: ``CLIError/failed(_:)`` naming the path and the system's reason.
    func save(to directory: URL) throws {
        let url = directory.appendingPathComponent(Self.fileName)
        let temporary = directory.appendingPathComponent(".\(Self.fileName).\(DurableFile.uniqueName())")
        let data = try JSONEncoder.llvs.encode(self)
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Self.failure("create", temporary) }
        var written = 0
        let ok = data.withUnsafeBytes { buffer -> Bool in
            while written < buffer.count {
                let count = write(descriptor, buffer.baseAddress.map { $0 + written }, buffer.count - written)
                if count < 0 { if errno == EINTR { continue }; return false }
                written += count
            }
            return fchmod(descriptor, 0o600) == 0 && fsync(descriptor) == 0
        }
        let failure = ok ? nil : Self.failure("write", temporary)
        close(descriptor)
        if let failure {
            unlink(temporary.path)
            throw failure
        }
        guard rename(temporary.path, url.path) == 0 else {
            let failure = Self.failure("rename", url)
            unlink(temporary.path)
            throw failure
        }
    }

    private static func failure(_ operation: String, _ url: URL) -> CLIError {
        CLIError.failed("cannot \(operation) \(url.path): \(String(cString: strerror(errno)))")
    }
}
