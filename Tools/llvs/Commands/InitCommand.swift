import ArgumentParser
import Foundation
import LLVS

/// `llvs init`: makes an empty store, in the clear or encrypted.
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init", abstract: "Create an empty store.",
        discussion: """
            With --encrypted, everything the store exchanges is sealed on this device: remotes \
            (directories, servers) hold only opaque blobs. The store's recovery phrase is printed \
            once; `llvs key show-phrase` prints it again. With --join, the store is made for a \
            device to be added to an existing encrypted store: pull from its remote to ask to \
            join, run `llvs key add-device CODE REMOTE` on an enrolled device, then pull again.
            """)

    @OptionGroup var options: StoreOptions

    @Option(help: "The storage backend: file (append-only packs) or sqlite (one database file).")
    var storage: StorageKind = .file

    @Flag(help: "Encrypt everything the store exchanges, with a new store key, recovery phrase and keyring.")
    var encrypted = false

    @Flag(help: "Make an encrypted store for a device that joins an existing encrypted store.")
    var join = false

    @Option(help: ArgumentHelp("This device's name in the keyring (default: the host name).", valueName: "name"))
    var deviceName: String?

    func validate() throws {
        if encrypted && join { throw ValidationError("--encrypted makes a new encrypted store and --join joins one; give one of them") }
        if deviceName != nil && !encrypted && !join { throw ValidationError("--device-name is for --encrypted or --join") }
    }

    func run() throws {
        let location = StoreDirectory.location(options.store, discovering: false)
        var encryption: StoreEncryption?
        var phrase: RecoveryPhrase?
        if encrypted || join {
            let device = try DeviceIdentity.named(deviceName)
            encryption = StoreEncryption(device: device, keyring: nil)
            if encrypted {
                let storeKey = StoreEncryptionKey()
                encryption?.keyring = try Keyring.founding(storeKey: storeKey, founder: device)
                phrase = RecoveryPhrase(storeKey: storeKey)
            }
        }
        let directory = try StoreDirectory.create(at: location, storage: storage)
        try encryption?.save(to: directory.url)
        try directory.saveState()
        if options.json {
            struct Created: Encodable {
                var path: String; var storage: StorageKind; var encrypted: Bool
                var device: String?; var enrollmentCode: String?; var recoveryPhrase: String?
            }
            return try Output.json(Created(path: directory.url.path, storage: storage, encrypted: encryption != nil,
                                           device: encryption?.device.record.name, enrollmentCode: encryption?.device.record.enrollmentCode,
                                           recoveryPhrase: phrase?.description))
        }
        guard let encryption else {
            return Output.line("Created an empty LLVS store (\(storage.rawValue) storage) in \(directory.url.path)")
        }
        let record = encryption.device.record
        Output.line("Created an empty encrypted LLVS store (\(storage.rawValue) storage) in \(directory.url.path)")
        Output.line("This device: \(record.name), enrollment code \(record.enrollmentCode)")
        if let phrase {
            Output.line("Recovery phrase (write it down and keep it safe: it restores the store, and reads it):")
            Output.line(KeyCommand.lines(of: phrase))
            Output.line("`llvs key show-phrase` prints it again on an enrolled device.")
        } else {
            Output.line("To join: `llvs pull REMOTE` asks to join; on an enrolled device run "
                + "`llvs key add-device \(record.enrollmentCode) REMOTE`; then `llvs pull REMOTE` here.")
        }
    }
}

extension DeviceIdentity {
    /// A new device named `name`, else by the host name.
    ///
    /// - Throws: `ValidationError` for a name the keyring cannot hold.
    static func named(_ name: String?) throws -> DeviceIdentity {
        // A host name is ASCII; one that is not, or too long, gives way to "device".
        let host = ProcessInfo.processInfo.hostName
        do {
            return try DeviceIdentity(name: name ?? (host.isEmpty || host.utf8.count > 64 ? "device" : host))
        } catch {
            throw ValidationError("--device-name: \(error)")
        }
    }
}
