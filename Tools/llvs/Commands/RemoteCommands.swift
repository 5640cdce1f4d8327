import ArgumentParser
import Foundation
import LLVS

/// `llvs remote add|ls|rm`: names for remotes, with their access tokens.
struct RemoteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remote", abstract: "Name remotes (directories or store URLs), with their access tokens.",
        discussion: """
            push, pull, sync and clone take a remote's name wherever they take a directory or URL. \
            Remotes and their tokens are kept in remotes.json in the store directory, readable by \
            its owner only (mode 0600).
            """,
        subcommands: [RemoteAddCommand.self, RemoteListCommand.self, RemoteRemoveCommand.self],
        defaultSubcommand: RemoteListCommand.self)
}

/// `llvs remote add NAME DIR|URL [--token T]`.
struct RemoteAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Name a remote: a shared directory, a store URL or a WebDAV folder.")

    @OptionGroup var options: StoreOptions

    @Argument(help: "The remote's name (1-64 of A-Z a-z 0-9 . _ -).")
    var name: String

    @Argument(help: ArgumentHelp("A shared directory, a store URL (http[s]://HOST[:PORT]/v1/stores/NAME), or a WebDAV folder (webdav+https://HOST[:PORT]/PATH).", valueName: "directory-or-url"),
              transform: RemoteLocation.init(argument:))
    var location: RemoteLocation

    @Option(help: ArgumentHelp("The access token to keep for a store URL.", valueName: "token"))
    var token: String?

    func validate() throws {
        guard NamedRemotes.isValidName(name) else {
            throw ValidationError("\"\(name)\" is not a remote name (1-64 of A-Z a-z 0-9 . _ -, not starting with a dot or a dash)")
        }
        if token != nil, !location.isServer { throw ValidationError("--token is for store URLs; a directory needs none, and a WebDAV folder takes its credentials from the environment or ~/.netrc") }
    }

    func run() throws {
        let directory = try options.open(locking: true)
        var remotes = try NamedRemotes.load(from: directory.url)
        if remotes.remotes[name] != nil { throw CLIError.usage("there is already a remote named \(name) (`llvs remote rm \(name)` first)") }
        remotes.remotes[name] = NamedRemotes.Entry(location: location.key, token: token)
        try remotes.save(to: directory.url)
        if options.json { return try Output.json(RemoteListing(name: name, location: location.key, hasToken: token != nil)) }
        Output.line("Added remote \(name): \(location)")
    }
}

/// `llvs remote ls`.
struct RemoteListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ls", abstract: "List the named remotes (tokens are not shown).", aliases: ["list"])

    @OptionGroup var options: StoreOptions

    func run() throws {
        let directory = try options.open(locking: false)
        let remotes = try NamedRemotes.load(from: directory.url).remotes
        let listed = remotes.keys.sorted().compactMap { name in
            remotes[name].map { RemoteListing(name: name, location: $0.location, hasToken: $0.token != nil) }
        }
        if options.json { return try Output.json(listed) }
        for remote in listed { Output.line("\(remote.name)\t\(remote.location)\(remote.hasToken ? "\t(token kept)" : "")") }
    }
}

/// `llvs remote rm NAME`.
struct RemoteRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rm", abstract: "Forget a named remote and its token.", aliases: ["remove"])

    @OptionGroup var options: StoreOptions

    @Argument(help: "The remote's name.")
    var name: String

    func run() throws {
        let directory = try options.open(locking: true)
        var remotes = try NamedRemotes.load(from: directory.url)
        guard remotes.remotes.removeValue(forKey: name) != nil else { throw CLIError.usage("there is no remote named \(name) (`llvs remote ls` lists them)") }
        try remotes.save(to: directory.url)
        if options.json {
            struct Removed: Encodable { var removed: String }
            return try Output.json(Removed(removed: name))
        }
        Output.line("Removed remote \(name)")
    }
}

/// A remote in `llvs remote ls --json`.
struct RemoteListing: Encodable {
    var name: String
    var location: String
    var hasToken: Bool
}

/// `llvs clone`: a new store with everything a remote has, `HEAD` at its head.
struct CloneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clone", abstract: "Make a new store from a remote: every version, HEAD at its head, the remote named origin.",
        discussion: """
            REMOTE is a shared directory, a store URL, or the name of a remote of the current store. \
            PATH is the new store's directory (default ./.llvs). HEAD goes to the remote's most \
            recent head, on its branch when it has one. On failure the new store is removed.

            With --phrase, REMOTE holds an encrypted store: the new store is restored from its \
            recovery phrase and the remote alone, and this device enrolls itself with the phrase. \
            The phrase is read from $LLVS_RECOVERY_PHRASE, or from --phrase-file (- reads standard \
            input); nothing is asked for at a terminal. A wrong phrase exits with status 7 and \
            writes nothing.
            """)

    @Flag(name: .long, help: "Print the result as JSON, for scripts.")
    var json = false

    @Option(name: .long, help: ArgumentHelp("The store whose named remotes REMOTE may name (default: found as for other commands).", valueName: "path"))
    var store: String?

    @OptionGroup var remote: RemoteOptions

    @Argument(help: ArgumentHelp("The new store's directory (default: ./.llvs).", valueName: "path"))
    var path: String?

    @Option(help: "The new store's storage backend: file or sqlite.")
    var storage: StorageKind = .file

    @Flag(help: "Restore an encrypted store from its recovery phrase ($LLVS_RECOVERY_PHRASE or --phrase-file).")
    var phrase = false

    @Option(help: ArgumentHelp("A file holding the recovery phrase; - reads standard input.", valueName: "path"))
    var phraseFile: String?

    @Option(help: ArgumentHelp("This device's name in the keyring (default: the host name).", valueName: "name"))
    var deviceName: String?

    func validate() throws {
        if !phrase && (phraseFile != nil || deviceName != nil) { throw ValidationError("--phrase-file and --device-name go with --phrase") }
    }

    /// The phrase given, read and checked before anything is written.
    ///
    /// - Throws: ``CLIError/usage(_:)`` when none is given, ``CLIError/encryption(_:)`` for
    ///   words that are not a phrase.
    private func recoveryPhrase() throws -> RecoveryPhrase? {
        guard phrase else { return nil }
        let text: String
        if let phraseFile {
            let data = phraseFile == "-" ? FileHandle.standardInput.readDataToEndOfFile() : FileManager.default.contents(atPath: phraseFile)
            guard let data else { throw CLIError.usage("cannot read the recovery phrase from \(phraseFile)") }
            text = String(decoding: data, as: UTF8.self)
        } else if let variable = ProcessInfo.processInfo.environment["LLVS_RECOVERY_PHRASE"] {
            text = variable
        } else {
            throw CLIError.usage("--phrase reads the recovery phrase from $LLVS_RECOVERY_PHRASE or --phrase-file (- reads standard input)")
        }
        do {
            return try RecoveryPhrase(text)
        } catch {
            throw CLIError.encryption(error)
        }
    }

    func run() async throws {
        let currentStore = store.map { StoreDirectory.location($0) } ?? StoreDirectory.discoveredLocation()
        let resolved = try remote.resolve(in: currentStore)
        let phrase = try recoveryPhrase()
        let device = try phrase.map { _ in try DeviceIdentity.named(deviceName) }
        let target = URL(fileURLWithPath: path ?? ".llvs").standardizedFileURL
        let directory = try StoreDirectory.create(at: target, storage: storage)
        do {
            if let device { try StoreEncryption(device: device, keyring: nil).save(to: directory.url) }
            var remotes = NamedRemotes()
            remotes.remotes["origin"] = NamedRemotes.Entry(location: resolved.location.key, token: remote.token ?? resolved.storedToken)
            try remotes.save(to: directory.url)
            let retrieved = try await ExchangeRun.pull(directory, remote: remote, resolved, json: json, phrase: phrase)
            _ = try directory.fastForwardHead()
            try directory.saveState()
            struct Cloned: Encodable { var path: String; var retrieved: Int; var head: Version.ID?; var branch: String? }
            if json {
                return try Output.json(Cloned(path: directory.url.path, retrieved: retrieved.count, head: directory.state.head, branch: directory.state.branch?.rawValue))
            }
            Output.line("Cloned \(Output.count(retrieved.count, "version")) from \(resolved.location) into \(directory.url.path)")
            directory.printHeadMove(from: nil)
        } catch {
            try? FileManager.default.removeItem(at: target)
            throw error
        }
    }
}
