import ArgumentParser
import Foundation
import LLVS

/// `llvs key`: the keys of an encrypted store (`llvs init --encrypted`).
struct KeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key", abstract: "Manage the keys of an encrypted store: its recovery phrase and its devices.",
        discussion: """
            Each enrolled device holds the store's keys, sealed to it in the keyring the remote \
            keeps beside the sealed versions. Adding a device gives it every key so far. Removing \
            one starts a new epoch and a new recovery phrase, sealed only to the devices that \
            remain: nothing is uploaded again, and what the removed device already pulled stays \
            readable to it.
            """,
        subcommands: [KeyShowPhraseCommand.self, KeyDevicesCommand.self, KeyAddDeviceCommand.self,
                      KeyRemoveDeviceCommand.self, KeyRotateCommand.self])

    /// The phrase as four lines of six numbered words.
    static func lines(of phrase: RecoveryPhrase) -> String {
        stride(from: 0, to: 24, by: 6).map { start in
            "  " + (start..<(start + 6)).map { "\($0 + 1). \(phrase.words[$0])" }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    /// The encryption of the store, or an error saying the store is in the clear.
    ///
    /// - Throws: ``CLIError/usage(_:)`` for a store in the clear.
    static func encryption(of directory: StoreDirectory) throws -> StoreEncryption {
        guard let encryption = try StoreEncryption.load(from: directory.url) else {
            throw CLIError.usage("the store at \(directory.url.path) is not encrypted (make one with `llvs init --encrypted`)")
        }
        return encryption
    }

    /// Opens the remote's sealed exchange, pulls (so the keyring and the requests to join
    /// are current), applies `change` to the keyring, publishes the result and saves it.
    static func changeKeyring(_ directory: StoreDirectory, remote: RemoteOptions,
                              _ change: (Keyring, StoreEncryption, EncryptedExchange) throws -> Keyring) async throws -> Keyring {
        let encryption = try Self.encryption(of: directory)
        _ = try encryption.requireKeyring()
        let resolved = try remote.resolve(in: directory.url)
        guard let exchange = try await remote.exchange(resolved, for: directory) as? EncryptedExchange else {
            throw CLIError.failed("the exchange with \(resolved.location) is not sealed")
        }
        try await exchange.retrieve()
        guard let keyring = exchange.keyring else { throw encryption.waitingToBeAdded }
        let changed: Keyring
        do {
            changed = try change(keyring, encryption, exchange)
            try await exchange.publish(changed)
        } catch let error as EncryptionError {
            throw CLIError.encryption(error)
        }
        try await remote.remember(exchange, at: resolved, in: directory)
        return changed
    }
}

/// `llvs key show-phrase`.
struct KeyShowPhraseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show-phrase", abstract: "Print the store's current recovery phrase.")

    @OptionGroup var options: StoreOptions

    func run() throws {
        let directory = try options.open(locking: false)
        let phrase = try KeyCommand.encryption(of: directory).secrets().recoveryPhrase
        if options.json {
            struct Shown: Encodable { var recoveryPhrase: String }
            return try Output.json(Shown(recoveryPhrase: phrase.description))
        }
        Output.line(KeyCommand.lines(of: phrase))
    }
}

/// `llvs key devices`.
struct KeyDevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "devices", abstract: "List the enrolled devices (this one marked *) and the current epoch.")

    @OptionGroup var options: StoreOptions

    func run() throws {
        let directory = try options.open(locking: false)
        let encryption = try KeyCommand.encryption(of: directory)
        let keyring = try encryption.requireKeyring()
        struct Device: Encodable { var name: String; var id: String; var enrollmentCode: String; var isThisDevice: Bool }
        let devices = keyring.devices.map {
            Device(name: $0.name, id: $0.idHex, enrollmentCode: $0.enrollmentCode, isThisDevice: $0 == encryption.device.record)
        }
        if options.json {
            struct Listed: Encodable { var epoch: UInt32; var devices: [Device] }
            return try Output.json(Listed(epoch: keyring.currentEpoch, devices: devices))
        }
        for device in devices {
            Output.line("\(device.isThisDevice ? "*" : " ") \(device.id.prefix(12))  \(device.enrollmentCode)  \(device.name)")
        }
        Output.line("Epoch \(keyring.currentEpoch), \(Output.count(devices.count, "device"))")
    }
}

/// `llvs key add-device CODE REMOTE`.
struct KeyAddDeviceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-device", abstract: "Add the device that asked to join through REMOTE and shows CODE.",
        discussion: "The new device asks by pulling from REMOTE after `llvs init --join`; it prints its code. This pulls from REMOTE first.")

    @OptionGroup var options: StoreOptions

    @Argument(help: ArgumentHelp("The code the new device printed (XXXXX-XXXXX).", valueName: "code"))
    var code: String

    @OptionGroup var remote: RemoteOptions

    func run() async throws {
        let directory = try options.open(locking: true)
        var added: DeviceRecord?
        _ = try await KeyCommand.changeKeyring(directory, remote: remote) { keyring, encryption, exchange in
            let matching = exchange.enrollmentRequests.filter { $0.matches(enrollmentCode: code) }
            guard matching.count == 1, let record = matching.first else {
                throw EncryptionError.notEnrolled(reason: "no device asking to join has the code \(code) "
                    + "(\(Output.count(exchange.enrollmentRequests.count, "request")) found); on the new device run `llvs init --join` and `llvs pull REMOTE`")
            }
            added = record
            return try keyring.adding(record, by: encryption.device)
        }
        guard let added else { return }
        if options.json {
            struct Added: Encodable { var name: String; var id: String }
            return try Output.json(Added(name: added.name, id: added.idHex))
        }
        Output.line("Added device \(added.name) (\(added.enrollmentCode)); it can pull now.")
    }
}

/// `llvs key remove-device DEVICE REMOTE`.
struct KeyRemoveDeviceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove-device", abstract: "Remove a device: a new epoch and a new recovery phrase for the devices that remain.",
        discussion: """
            DEVICE is a device's name, its enrollment code, or a prefix of its identifier (`llvs key \
            devices`). The removed device cannot open what is sealed from now on, and its pushes \
            are refused; what it already pulled stays readable to it. The new recovery phrase is \
            printed: the old one no longer opens the store's new keys.
            """)

    @OptionGroup var options: StoreOptions

    @Argument(help: ArgumentHelp("The device: its name, enrollment code, or identifier prefix.", valueName: "device"))
    var device: String

    @OptionGroup var remote: RemoteOptions

    func run() async throws {
        let directory = try options.open(locking: true)
        let keyring = try await KeyCommand.changeKeyring(directory, remote: remote) { keyring, encryption, _ in
            let lowered = device.lowercased()
            let matching = keyring.devices.filter {
                $0.name == device || $0.matches(enrollmentCode: device) || (lowered.count >= 4 && $0.idHex.hasPrefix(lowered))
            }
            guard matching.count == 1, let target = matching.first else {
                throw EncryptionError.invalidKey(reason: matching.isEmpty ? "no enrolled device is \(device) (`llvs key devices` lists them)"
                                                                          : "\(device) names \(matching.count) devices; give its identifier")
            }
            return try keyring.removing(deviceId: target.id, by: encryption.device)
        }
        let phrase = try StoreEncryption.load(from: directory.url).map { try $0.secrets().recoveryPhrase }
        if options.json {
            struct Removed: Encodable { var epoch: UInt32; var recoveryPhrase: String? }
            return try Output.json(Removed(epoch: keyring.currentEpoch, recoveryPhrase: phrase?.description))
        }
        Output.line("Removed \(device). Epoch \(keyring.currentEpoch) begins; the new recovery phrase (write it down, the old one is replaced):")
        if let phrase { Output.line(KeyCommand.lines(of: phrase)) }
    }
}

/// `llvs key rotate REMOTE`.
struct KeyRotateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate", abstract: "Start a new epoch: versions sealed from now on use a new key (nothing is uploaded again).")

    @OptionGroup var options: StoreOptions

    @Flag(help: "Replace the recovery phrase too, and print the new one.")
    var newPhrase = false

    @OptionGroup var remote: RemoteOptions

    func run() async throws {
        let directory = try options.open(locking: true)
        let keyring = try await KeyCommand.changeKeyring(directory, remote: remote) { keyring, encryption, _ in
            try keyring.rotating(by: encryption.device, newPhrase: newPhrase)
        }
        let phrase = newPhrase ? try StoreEncryption.load(from: directory.url).map { try $0.secrets().recoveryPhrase } : nil
        if options.json {
            struct Rotated: Encodable { var epoch: UInt32; var recoveryPhrase: String? }
            return try Output.json(Rotated(epoch: keyring.currentEpoch, recoveryPhrase: phrase?.description))
        }
        Output.line("Epoch \(keyring.currentEpoch) begins.")
        if let phrase {
            Output.line("The new recovery phrase (write it down, the old one is replaced):")
            Output.line(KeyCommand.lines(of: phrase))
        }
    }
}
