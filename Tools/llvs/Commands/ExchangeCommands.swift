import ArgumentParser
import Foundation
import LLVS

/// The remote of `push`, `pull` and `sync`: a remote's name (`llvs remote add`), a shared
/// directory, or a store URL with its access token.
struct RemoteOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("A remote's name (llvs remote ls), a shared directory, a store URL (http[s]://HOST[:PORT]/v1/stores/NAME), or a WebDAV folder (webdav+https://HOST[:PORT]/PATH).",
                                 valueName: "remote"))
    var remote: String

    @Option(help: ArgumentHelp("The access token for a store URL (default: the named remote's, else $LLVS_TOKEN).", valueName: "token"))
    var token: String?

    @Option(help: ArgumentHelp("How many times a request to a server that does not answer is tried again.", valueName: "count"))
    var retries = 7

    func validate() throws {
        if retries < 0 { throw ValidationError("--retries cannot be negative") }
    }

    /// The remote named or written in the argument, with the token a named remote keeps.
    ///
    /// - Throws: `ValidationError` for a bad URL or a token given for a directory.
    func resolve(in storeURL: URL) throws -> ResolvedRemote {
        let resolved = try ResolvedRemote(argument: remote, in: storeURL)
        if token != nil, !resolved.location.isServer { throw ValidationError("--token is for store URLs; a directory needs none, and a WebDAV folder takes its credentials from the environment or ~/.netrc") }
        return resolved
    }
}

/// A remote as an exchange uses it: where, and with which token.
struct ResolvedRemote {
    /// The directory or store URL.
    var location: RemoteLocation
    /// The remote's name when it was named.
    var name: String?
    /// The token the named remote keeps.
    var storedToken: String?

    /// Reads `argument`: the name of one of the store's remotes, else a directory or URL.
    ///
    /// - Throws: `ValidationError` for a bad URL, ``CLIError/invalidStoreConfiguration(path:reason:)``
    ///   for an unreadable `remotes.json`.
    init(argument: String, in storeURL: URL?) throws {
        if NamedRemotes.isValidName(argument), let storeURL, let entry = try NamedRemotes.load(from: storeURL).remotes[argument] {
            location = try RemoteLocation(argument: entry.location)
            name = argument
            storedToken = entry.token
        } else {
            location = try RemoteLocation(argument: argument)
        }
    }
}

extension RemoteOptions {
    /// The token sent to a server: `--token`, else the named remote's, else `$LLVS_TOKEN`.
    func accessToken(for resolved: ResolvedRemote) -> String? {
        token ?? resolved.storedToken ?? TokenEnvironment.token
    }

    /// An exchange with the remote, resuming from what the last exchange with it remembered;
    /// for an encrypted store, sealed (``EncryptedRemote/wrap(_:for:phrase:)``), restoring
    /// from `phrase` when the store has no keyring yet.
    ///
    /// - Throws: `HTTPExchangeError.invalidStoreURL` when the exchange refuses the URL;
    ///   ``CLIError/encryption(_:)``; ``CLIError/usage(_:)`` for a blind store URL and a store
    ///   that is not encrypted.
    func exchange(_ resolved: ResolvedRemote, for directory: StoreDirectory, phrase: RecoveryPhrase? = nil) async throws -> any Exchange {
        var exchange = try resolved.location.makeExchange(store: directory.store, accessToken: accessToken(for: resolved), retries: retries)
        if let encryption = try StoreEncryption.load(from: directory.url) {
            exchange = try await EncryptedRemote.wrap(exchange, for: encryption, phrase: phrase)
        } else if resolved.location.isBlindStore {
            throw CLIError.usage("\(resolved.location) is a blind store: it keeps only the sealed versions of an encrypted store (llvs init --encrypted, or llvs clone --phrase)")
        }
        exchange.restorationState = directory.state.remotes[resolved.location.key]
        return exchange
    }

    /// Keeps the exchange's restoration state for next time, and an encrypted exchange's
    /// keyring (``EncryptedRemote/finish(_:encryption:phrase:in:)``).
    func remember(_ exchange: any Exchange, at resolved: ResolvedRemote, in directory: StoreDirectory, phrase: RecoveryPhrase? = nil) async throws {
        directory.state.remotes[resolved.location.key] = exchange.restorationState
        try directory.saveState()
        if let sealed = exchange as? EncryptedExchange, let encryption = try StoreEncryption.load(from: directory.url) {
            try await EncryptedRemote.finish(sealed, encryption: encryption, phrase: phrase, in: directory.url)
        }
    }
}

/// `llvs push`: sends the versions the remote lacks.
struct PushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "push", abstract: "Send the store's new versions to a shared directory or a served store.")

    @OptionGroup var options: StoreOptions
    @OptionGroup var remote: RemoteOptions

    func run() async throws {
        let directory = try options.open(locking: true)
        let resolved = try remote.resolve(in: directory.url)
        let sent = try await ExchangeRun.push(directory, remote: remote, resolved, json: options.json)
        if options.json { return try Output.json(ExchangeSummary(sent: sent.count)) }
        Output.line("Pushed \(Output.count(sent.count, "version")) to \(resolved.location)")
    }
}

/// `llvs pull`: adds the versions the remote has and the store lacks.
struct PullCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pull", abstract: "Retrieve new versions from a shared directory or a served store.",
        discussion: "HEAD moves forward when exactly one new head descends from it; otherwise run `llvs merge`.")

    @OptionGroup var options: StoreOptions
    @OptionGroup var remote: RemoteOptions

    func run() async throws {
        let directory = try options.open(locking: true)
        let previousHead = directory.state.head
        let resolved = try remote.resolve(in: directory.url)
        let retrieved = try await ExchangeRun.pull(directory, remote: remote, resolved, json: options.json)
        let moved = try directory.fastForwardHead()
        try directory.saveState()
        let headCount = directory.store.queryHistory { $0.headIdentifiers.count }
        if options.json {
            return try Output.json(ExchangeSummary(retrieved: retrieved.count, head: directory.state.head, branch: directory.state.branch?.rawValue, headCount: headCount))
        }
        Output.line("Pulled \(Output.count(retrieved.count, "version")) from \(resolved.location)")
        if moved { directory.printHeadMove(from: previousHead) }
        try directory.printOtherHeads(headCount: headCount)
    }
}

extension StoreDirectory {
    /// Says where `HEAD` went after an exchange: forward, or (from none) to a version and branch.
    func printHeadMove(from previousHead: Version.ID?) {
        guard let head = state.head else { return }
        if previousHead == nil {
            Output.line("HEAD is now \(abbreviation(of: head))\(state.branch.map { " on branch \($0.rawValue)" } ?? "").")
        } else {
            Output.line("Fast-forwarded HEAD to \(abbreviation(of: head)).")
        }
    }

    /// Says what `llvs merge` would still do: several heads, heads on other branches.
    func printOtherHeads(headCount: Int) throws {
        let others = try headsOnOtherBranches()
        if let head = state.head, try !headsToMerge(into: head, selection: headSelection).isEmpty {
            Output.line("The store has \(Output.count(headCount, "head")); `llvs merge` merges them.")
        }
        for branch in Set(others.map(\.branch)).sorted() {
            Output.line("Branch \(branch.rawValue) has new versions; `llvs merge --branch \(branch.rawValue)` merges them, `llvs branch \(branch.rawValue)` switches to it.")
        }
    }
}

/// `llvs sync`: pull, merge, push.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync", abstract: "Pull from a shared directory or a served store, merge the heads into HEAD, and push.",
        discussion: "With conflicts and no --arbiter, stops after the pull with exit status 5; merge with an arbiter, then push.")

    @OptionGroup var options: StoreOptions
    @OptionGroup var remote: RemoteOptions

    @Option(help: ArgumentHelp("How to resolve conflicts: \(ArbiterChoice.allValueStrings.joined(separator: ", ")).", valueName: "name"))
    var arbiter: ArbiterChoice = .none

    func run() async throws {
        let directory = try options.open(locking: true)
        let previousHead = directory.state.head
        let resolved = try remote.resolve(in: directory.url)
        let retrieved = try await ExchangeRun.pull(directory, remote: remote, resolved, json: options.json)
        let moved = try directory.fastForwardHead()
        try directory.saveState()
        var merge: MergeOutcome?
        if directory.state.head != nil {
            try directory.committing {
                merge = try MergeOutcome.merge(directory, selection: directory.headSelection, arbiter: arbiter, message: nil)
                return merge?.version
            }
        }
        let sent = try await ExchangeRun.push(directory, remote: remote, resolved, json: options.json)
        if options.json {
            var summary = ExchangeSummary(retrieved: retrieved.count, sent: sent.count, head: directory.state.head, branch: directory.state.branch?.rawValue)
            summary.merge = merge
            return try Output.json(summary)
        }
        Output.line("Pulled \(Output.count(retrieved.count, "version")) from \(resolved.location)")
        if moved, previousHead == nil { directory.printHeadMove(from: nil) }
        if let merge, merge.result != .upToDate { try merge.print(json: false, directory: directory) }
        Output.line("Pushed \(Output.count(sent.count, "version"))")
    }
}

/// The exchanges behind `push`, `pull`, `sync` and `clone`, with progress bars.
enum ExchangeRun {
    /// Sends what the remote lacks; returns the versions sent.
    static func push(_ directory: StoreDirectory, remote: RemoteOptions, _ resolved: ResolvedRemote, json: Bool) async throws -> [Version.ID] {
        // Versions abandoned by commands that did not complete stay here (PendingCommit.swift).
        let abandoned = directory.abandonedVersions
        let heads = abandoned.isEmpty ? nil : try directory.store.queryHistory { try directory.liveHeads(of: $0).sorted() }
        return try await transfer("push", directory, remote: remote, resolved, json: json) { exchange, progress in
            try await exchange.send(upTo: heads, progress: progress)
        }
    }

    /// Retrieves what the store lacks; returns the versions added. A directory must exist;
    /// a server creates a store on its first push, so a URL is tried as it is.
    static func pull(_ directory: StoreDirectory, remote: RemoteOptions, _ resolved: ResolvedRemote, json: Bool,
                     phrase: RecoveryPhrase? = nil) async throws -> [Version.ID] {
        if case .directory(let url) = resolved.location, !FileManager.default.fileExists(atPath: url.path) {
            throw CLIError.failed("there is no exchange directory at \(url.path)")
        }
        return try await transfer("pull", directory, remote: remote, resolved, json: json, phrase: phrase) { exchange, progress in
            try await exchange.retrieve(progress: progress)
        }
    }

    /// Runs `body` on the remote's exchange with a progress bar, and remembers the
    /// exchange's restoration state afterwards — also after a failure, since what it
    /// remembers is true and the next exchange resumes from it.
    private static func transfer(_ label: String, _ directory: StoreDirectory, remote: RemoteOptions, _ resolved: ResolvedRemote, json: Bool,
                                 phrase: RecoveryPhrase? = nil,
                                 _ body: (any Exchange, @escaping ExchangeProgressHandler) async throws -> [Version.ID]) async throws -> [Version.ID] {
        let exchange = try await remote.exchange(resolved, for: directory, phrase: phrase)
        let bar = ProgressBar(label, json: json)
        defer { bar.finish() }
        do {
            let versions = try await body(exchange) { bar.update($0) }
            try await remote.remember(exchange, at: resolved, in: directory, phrase: phrase)
            return versions
        } catch {
            // A failed transfer restored from a phrase enrolls nothing.
            try? await remote.remember(exchange, at: resolved, in: directory)
            throw error
        }
    }
}

/// The JSON of `push`, `pull` and `sync`.
struct ExchangeSummary: Encodable {
    var retrieved: Int?
    var sent: Int?
    var head: Version.ID?
    var branch: String?
    var headCount: Int?
    var merge: MergeOutcome?
}
