// Only with the SyncServer trait: `llvs serve` runs the sync server in the process.
#if SyncServer
import ArgumentParser
import Foundation
import LLVS
import LLVSSyncProtocol
import LLVSSyncServer
import LLVSSyncStorage
import Logging

/// `llvs serve`: serves the store over HTTP, so other replicas push, pull and sync with it
/// directly, peer to peer, through `llvs push/pull/sync URL`.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Serve the store over HTTP, for `llvs push/pull/sync URL` from other replicas.",
        discussion: """
            Prints the store URL (http://HOST:PORT/v1/stores/NAME) and the access token, then serves \
            until SIGINT or SIGTERM. The token is --token, else $LLVS_TOKEN, else a new random one. \
            The store is not locked while serving: other llvs commands keep working on it. Versions \
            pushed here become heads of the store; `llvs merge` brings HEAD to them.
            """)

    @OptionGroup var options: StoreOptions

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0 picks a free one).")
    var port = 7421

    @Option(help: ArgumentHelp("The store's name in its URL (1-64 of A-Z a-z 0-9 . _ -).", valueName: "name"))
    var name = "default"

    @Option(help: ArgumentHelp("The access token clients must present (default: $LLVS_TOKEN, else a new random one).", valueName: "token"))
    var token: String?

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("the port must be in 0...65535") }
        guard SyncStoreName.isValid(name) else {
            throw ValidationError("\"\(name)\" is not a store name (1-64 of A-Z a-z 0-9 . _ -, not starting with a dot)")
        }
    }

    func run() async throws {
        let directory = try options.open(locking: false)
        let accessToken = token ?? TokenEnvironment.token ?? AccessTokens.generateToken()
        let accessTokens: AccessTokens
        do {
            accessTokens = try AccessTokens([name: [accessToken]])
        } catch let error as AccessTokensError {
            throw CLIError.usage("\(error)")
        }
        guard let storeName = SyncStoreName(rawValue: name) else { throw CLIError.usage("\"\(name)\" is not a store name") }
        let storage = StoreSyncStorage(store: directory.store, storeName: storeName)
        // The server's defaults (timeouts, connection and body caps) apply; like llvs-server,
        // raise the open-file limit so the connection cap is not cut to the usual 1,024.
        OpenFileLimit.raiseToHardLimit()
        let configuration = SyncServerConfiguration(host: host, port: port, accessTokens: accessTokens, logger: Self.logger())
        let announcement = ServeAnnouncement(storePath: directory.url.path, host: host, name: name, token: accessToken, json: options.json)
        do {
            try await SyncServer(storage: storage, configuration: configuration).run(handlingSignals: true) { port in
                announcement.print(port: port)
            }
        } catch {
            throw CLIError.failed("cannot serve on \(host):\(port): \(error)")
        }
    }

    /// The server's logger: warnings and errors on stderr, so stdout carries only the announcement.
    private static func logger() -> Logger {
        var logger = Logger(label: "llvs.serve", factory: StreamLogHandler.standardError(label:))
        logger.logLevel = .warning
        return logger
    }
}

/// What `llvs serve` prints once it listens: the store URL and the token, as text or JSON.
struct ServeAnnouncement: Sendable {
    var storePath: String
    var host: String
    var name: String
    var token: String
    var json: Bool

    /// The store URL for the bound `port`; an IPv6 address goes in brackets.
    func url(port: Int) -> String {
        let authority = host.contains(":") ? "[\(host)]" : host
        return "http://\(authority):\(port)\(SyncAPI.storesPath)/\(name)"
    }

    /// Prints the announcement on stdout and flushes it, for scripts waiting on the URL.
    func print(port: Int) {
        struct Body: Encodable { var url: String; var token: String }
        if json {
            do {
                try Output.json(Body(url: url(port: port), token: token))
            } catch {
                Output.note("llvs: error: cannot encode the announcement: \(error)")
            }
        } else {
            Output.line("Serving \(storePath) at \(url(port: port))")
            Output.line("Token: \(token)")
        }
        // Output writes to the descriptor unbuffered; this flushes anything buffered by C stdio.
        fflush(nil)
    }
}
#endif
