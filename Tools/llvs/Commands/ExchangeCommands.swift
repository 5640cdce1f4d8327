import ArgumentParser
import Foundation
import LLVS

/// The remote of `push`, `pull` and `sync`: a shared directory, or a store URL with its
/// access token.
struct RemoteOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("The shared directory, or the store URL: http[s]://HOST[:PORT]/v1/stores/NAME.", valueName: "directory-or-url"),
              transform: RemoteLocation.init(argument:))
    var location: RemoteLocation

    @Option(help: ArgumentHelp("The access token for a store URL (default: $LLVS_TOKEN).", valueName: "token"))
    var token: String?

    func validate() throws {
        if token != nil, !location.isServer { throw ValidationError("--token is for store URLs; a directory needs none") }
    }

    /// The token sent to a server: `--token`, else `$LLVS_TOKEN`, else none.
    var accessToken: String? {
        token ?? TokenEnvironment.token
    }

    /// An exchange with the remote, resuming from what the last exchange with it remembered.
    ///
    /// - Throws: `HTTPExchangeError.invalidStoreURL` when the exchange refuses the URL.
    func exchange(for directory: StoreDirectory) throws -> any Exchange {
        let exchange = try location.makeExchange(store: directory.store, accessToken: accessToken)
        exchange.restorationState = directory.state.remotes[location.key]
        return exchange
    }

    /// Keeps the exchange's restoration state for next time.
    func remember(_ exchange: any Exchange, in directory: StoreDirectory) throws {
        directory.state.remotes[location.key] = exchange.restorationState
        try directory.saveState()
    }
}

/// `llvs push`: sends the versions the remote lacks.
struct PushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "push", abstract: "Send the store's new versions to a shared directory or a served store.")

    @OptionGroup var options: StoreOptions
    @OptionGroup var remote: RemoteOptions

    func run() async throws {
        let directory = try options.open(locking: true)
        let sent = try await ExchangeRun.push(directory, remote: remote, json: options.json)
        if options.json { return try Output.json(ExchangeSummary(sent: sent.count)) }
        Output.line("Pushed \(sent.count) version(s) to \(remote.location)")
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
        let retrieved = try await ExchangeRun.pull(directory, remote: remote, json: options.json)
        let moved = try directory.fastForwardHead()
        try directory.saveState()
        let headCount = directory.store.queryHistory { $0.headIdentifiers.count }
        if options.json {
            return try Output.json(ExchangeSummary(retrieved: retrieved.count, head: directory.state.head, headCount: headCount))
        }
        Output.line("Pulled \(retrieved.count) version(s) from \(remote.location)")
        if moved, let head = directory.state.head { Output.line("Fast-forwarded HEAD to \(directory.abbreviation(of: head)).") }
        if headCount > 1 { Output.line("The store has \(headCount) heads; `llvs merge` merges them.") }
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
        let retrieved = try await ExchangeRun.pull(directory, remote: remote, json: options.json)
        _ = try directory.fastForwardHead()
        try directory.saveState()
        var merge: MergeOutcome?
        if directory.state.head != nil {
            merge = try MergeOutcome.merge(directory, selection: directory.headSelection, arbiter: arbiter, message: nil)
            try directory.saveState()
        }
        let sent = try await ExchangeRun.push(directory, remote: remote, json: options.json)
        if options.json {
            var summary = ExchangeSummary(retrieved: retrieved.count, sent: sent.count, head: directory.state.head)
            summary.merge = merge
            return try Output.json(summary)
        }
        Output.line("Pulled \(retrieved.count) version(s) from \(remote.location)")
        if let merge, merge.result != .upToDate { try merge.print(json: false, directory: directory) }
        Output.line("Pushed \(sent.count) version(s)")
    }
}

/// The exchanges behind `push`, `pull` and `sync`, with progress bars.
enum ExchangeRun {
    /// Sends what the remote lacks; returns the versions sent.
    static func push(_ directory: StoreDirectory, remote: RemoteOptions, json: Bool) async throws -> [Version.ID] {
        try await transfer("push", directory, remote: remote, json: json) { exchange, progress in
            try await exchange.send(progress: progress)
        }
    }

    /// Retrieves what the store lacks; returns the versions added. A directory must exist;
    /// a server creates a store on its first push, so a URL is tried as it is.
    static func pull(_ directory: StoreDirectory, remote: RemoteOptions, json: Bool) async throws -> [Version.ID] {
        if case .directory(let url) = remote.location, !FileManager.default.fileExists(atPath: url.path) {
            throw CLIError.failed("there is no exchange directory at \(url.path)")
        }
        return try await transfer("pull", directory, remote: remote, json: json) { exchange, progress in
            try await exchange.retrieve(progress: progress)
        }
    }

    /// Runs `body` on the remote's exchange with a progress bar, and remembers the
    /// exchange's restoration state afterwards — also after a failure, since what it
    /// remembers is true and the next exchange resumes from it.
    private static func transfer(_ label: String, _ directory: StoreDirectory, remote: RemoteOptions, json: Bool,
                                 _ body: (any Exchange, @escaping ExchangeProgressHandler) async throws -> [Version.ID]) async throws -> [Version.ID] {
        let exchange = try remote.exchange(for: directory)
        let bar = ProgressBar(label, json: json)
        defer { bar.finish() }
        do {
            let versions = try await body(exchange) { bar.update($0) }
            try remote.remember(exchange, in: directory)
            return versions
        } catch {
            try? remote.remember(exchange, in: directory)
            throw error
        }
    }
}

/// The JSON of `push`, `pull` and `sync`.
struct ExchangeSummary: Encodable {
    var retrieved: Int?
    var sent: Int?
    var head: Version.ID?
    var headCount: Int?
    var merge: MergeOutcome?
}
