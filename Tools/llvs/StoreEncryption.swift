import Foundation
import LLVS
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The encryption of a store made with `llvs init --encrypted` (or cloned with `--phrase`,
/// or made with `llvs init --join`), in the store directory's `encryption/`:
///
/// - `device`: this device's private keys (`DeviceIdentity.serialized`), mode 0600;
/// - `keyring.json`: the keyring as this device last took it, `{"revisions": [base64…]}`;
///   absent while the device waits to be added by an enrolled one.
///
/// Every exchange of such a store goes through an `EncryptedExchange` that follows the
/// keyring: the remote holds only sealed blobs.
struct StoreEncryption {
    /// This device.
    var device: DeviceIdentity
    /// The keyring taken last; nil while waiting to be enrolled.
    var keyring: Keyring?

    /// The encryption directory of the store directory `url`.
    static func directory(in url: URL) -> URL { url.appendingPathComponent("encryption", isDirectory: true) }

    /// The store directory's encryption, nil for a store in the clear.
    ///
    /// - Throws: ``CLIError/invalidStoreConfiguration(path:reason:)`` for a damaged file.
    static func load(from url: URL) throws -> StoreEncryption? {
        let directory = directory(in: url)
        let deviceURL = directory.appendingPathComponent("device")
        guard let deviceBytes = FileManager.default.contents(atPath: deviceURL.path) else { return nil }
        let device: DeviceIdentity
        do {
            device = try DeviceIdentity(serialized: deviceBytes)
        } catch {
            throw CLIError.invalidStoreConfiguration(path: deviceURL.path, reason: error.description)
        }
        let keyringURL = directory.appendingPathComponent("keyring.json")
        guard let keyringBytes = FileManager.default.contents(atPath: keyringURL.path) else { return StoreEncryption(device: device, keyring: nil) }
        do {
            let file = try JSONDecoder().decode(KeyringFile.self, from: keyringBytes)
            return StoreEncryption(device: device, keyring: try Keyring(revisions: file.revisions))
        } catch {
            throw CLIError.invalidStoreConfiguration(path: keyringURL.path, reason: "\(error)")
        }
    }

    /// Writes the device (owner-only) and the keyring into the store directory `url`.
    ///
    /// - Throws: ``CLIError/failed(_:)`` when a file cannot be written.
    func save(to url: URL) throws {
        let directory = Self.directory(in: url)
        try DurableFile.createDirectory(directory)
        try SecretFile.write(device.serialized, to: directory.appendingPathComponent("device"))
        if let keyring {
            try DurableFile.write(try JSONEncoder.llvs.encode(KeyringFile(revisions: keyring.revisions)),
                                  to: directory.appendingPathComponent("keyring.json"))
        }
    }

    /// The keyring, or the error that says this device waits to be added.
    ///
    /// - Throws: ``CLIError/encryption(_:)`` while the device is not enrolled.
    func requireKeyring() throws -> Keyring {
        guard let keyring else { throw waitingToBeAdded }
        return keyring
    }

    /// The error of a device not enrolled yet, with its enrollment code.
    var waitingToBeAdded: CLIError {
        CLIError.encryption(.notEnrolled(reason: "this device (\(device.record.name)) waits to be added: on an enrolled device run "
            + "`llvs key add-device \(device.record.enrollmentCode) REMOTE`, then pull again"))
    }

    /// The secrets the keyring holds for this device.
    ///
    /// - Throws: ``CLIError/encryption(_:)`` when it holds none.
    func secrets() throws -> KeyringSecrets {
        do {
            return try requireKeyring().secrets(for: device)
        } catch let error as EncryptionError {
            throw CLIError.encryption(error)
        }
    }

    /// The JSON of `keyring.json`.
    private struct KeyringFile: Codable {
        var revisions: [Data]
    }
}

/// Files only their owner may read: written atomically with mode 0600 from their first byte.
enum SecretFile {
    /// Writes `data` to `url` atomically with mode 0600: a temporary file created owner-only,
    /// synced, then renamed over the old one.
    ///
    /// - Throws: ``CLIError/failed(_:)`` naming the path and the system's reason.
    static func write(_ data: Data, to url: URL) throws {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(DurableFile.uniqueName())")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("create", temporary) }
        var written = 0
        let ok = data.withUnsafeBytes { buffer -> Bool in
            while written < buffer.count {
                let count = systemWrite(descriptor, buffer.baseAddress.map { $0 + written }, buffer.count - written)
                if count < 0 { if errno == EINTR { continue }; return false }
                written += count
            }
            return fchmod(descriptor, 0o600) == 0 && fsync(descriptor) == 0
        }
        let failed = ok ? nil : failure("write", temporary)
        close(descriptor)
        if let failed {
            unlink(temporary.path)
            throw failed
        }
        guard rename(temporary.path, url.path) == 0 else {
            let failed = failure("rename", url)
            unlink(temporary.path)
            throw failed
        }
    }

    private static func failure(_ operation: String, _ url: URL) -> CLIError {
        CLIError.failed("cannot \(operation) \(url.path): \(String(cString: strerror(errno)))")
    }
}

/// The system's `write(2)` (the name `write` is taken inside ``SecretFile``).
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}

/// The exchanges of an encrypted store: each wraps the remote's exchange in an
/// `EncryptedExchange` that follows the store's keyring.
enum EncryptedRemote {
    /// `inner` sealed for `encryption`'s device: following its keyring (published first, so
    /// the remote holds it); restoring from `phrase` when the store has no keyring yet and a
    /// phrase was given; else joining, which publishes the device's request and, until an
    /// enrolled device adds it, fails with its enrollment code.
    ///
    /// - Throws: ``CLIError/encryption(_:)`` for a wrong phrase, a device not enrolled, or a
    ///   keyring on the remote that does not hold up; what the remote throws.
    static func wrap(_ inner: any Exchange, for encryption: StoreEncryption, phrase: RecoveryPhrase?) async throws -> EncryptedExchange {
        let transport = blobTransport(for: inner)
        do {
            if let keyring = encryption.keyring {
                let exchange = try EncryptedExchange(blobs: transport, store: inner.store, keyring: keyring, member: .device(encryption.device))
                try await exchange.publish(keyring)
                return exchange
            }
            if let phrase {
                return try await EncryptedExchange.restoring(through: transport, store: inner.store, phrase: phrase)
            }
            do {
                return try await EncryptedExchange.joining(through: transport, store: inner.store, as: encryption.device)
            } catch EncryptionError.notEnrolled {
                try await EncryptedExchange.requestEnrollment(of: encryption.device.record, through: transport)
                throw encryption.waitingToBeAdded
            }
        } catch let error as EncryptionError {
            throw CLIError.encryption(error)
        }
    }

    /// Where the blobs go: a blind store's own API for a blind store URL, else carriers in
    /// the remote's exchange.
    static func blobTransport(for inner: any Exchange) -> any SealedBlobTransport {
        #if HTTPClient
        if let http = inner as? HTTPExchange, HTTPBlobTransport.isBlindStoreURL(http.storeURL) {
            return HTTPBlobTransport(sameServerAs: http)
        }
        #endif
        return CarrierBlobTransport(inner)
    }

    /// After an exchange: a store restored from `phrase` enrolls this device with it; the
    /// keyring the exchange followed is saved.
    ///
    /// - Throws: ``CLIError/encryption(_:)``; what the remote throws; ``CLIError/failed(_:)``
    ///   when the files cannot be written.
    static func finish(_ exchange: EncryptedExchange, encryption: StoreEncryption, phrase: RecoveryPhrase?, in directory: URL) async throws {
        guard var keyring = exchange.keyring else { return }
        do {
            if let phrase, !keyring.devices.contains(encryption.device.record) {
                keyring = try keyring.adding(encryption.device.record, byPhrase: phrase)
                try await exchange.publish(keyring)
            }
        } catch let error as EncryptionError {
            throw CLIError.encryption(error)
        }
        var saved = encryption
        saved.keyring = keyring
        try saved.save(to: directory)
    }
}
