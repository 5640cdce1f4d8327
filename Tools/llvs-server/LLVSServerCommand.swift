import ArgumentParser
import Foundation
import Logging
import LLVSSyncPostgres
import LLVSSyncServer
import LLVSSyncStorage

/// `llvs-server`: the LLVS sync server. With no arguments it serves on 127.0.0.1:7420 with
/// an embedded SQLite database in `./llvs-server-data`, and a token it generates once.
@main
struct LLVSServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "llvs-server",
        abstract: "Serve LLVS stores over HTTP, for HTTPExchange clients and `llvs push/pull URL`.",
        discussion: """
            Stores live at /v1/stores/NAME. Tokens come from --tokens FILE, else the environment variable \
            LLVS_SERVER_TOKENS (NAME=TOKEN,TOKEN;*=TOKEN), else DATA/tokens.json, which is created with one \
            random token for every store (*) on first start. The API is in SPEC.md section 15.
            """)

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0 picks a free one).")
    var port = 7420

    @Option(name: .customLong("data-directory"), help: ArgumentHelp("Where the embedded database and generated tokens live.", valueName: "path"))
    var dataDirectory = "llvs-server-data"

    @Option(help: ArgumentHelp("postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE, or the path of a SQLite file (default DATA/server.sqlite).",
                               valueName: "url-or-path"))
    var database: String?

    @Option(help: ArgumentHelp("A JSON token file: {\"stores\": {\"NAME\": [\"TOKEN\"], \"*\": [\"TOKEN\"]}}.", valueName: "file"))
    var tokens: String?

    @Option(name: .customLong("max-body-bytes"), help: "The largest request body accepted.")
    var maximumBodyByteCount = 64 << 20

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown log level \(logLevel)") }
        guard (0...65_535).contains(port) else { throw ValidationError("the port must be in 0...65535") }
        guard maximumBodyByteCount >= 1_024 else { throw ValidationError("--max-body-bytes must be at least 1024") }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "llvs-server")
        let dataURL = URL(fileURLWithPath: dataDirectory).standardizedFileURL
        do {
            let storage = try await makeStorage(dataURL: dataURL, logger: logger)
            let accessTokens = try TokenSource.load(file: tokens, dataURL: dataURL, logger: logger)
            let configuration = SyncServerConfiguration(host: host, port: port, accessTokens: accessTokens,
                                                        maximumBodyByteCount: maximumBodyByteCount, logger: logger)
            try await SyncServer(storage: storage, configuration: configuration).run(handlingSignals: true) { port in
                print("llvs-server listening on http://\(host):\(port) (stores at /v1/stores/NAME)")
                fflush(nil)
            }
        } catch let error as SyncStorageError {
            throw ValidationError(error.description)
        } catch let error as AccessTokensError {
            throw ValidationError(error.description)
        }
    }

    /// The storage `--database` names: PostgreSQL for a postgres:// URL, else a SQLite file.
    func makeStorage(dataURL: URL, logger: Logger) async throws -> any SyncStorage {
        if let database, database.hasPrefix("postgres://") || database.hasPrefix("postgresql://") {
            return try await PostgresSyncStorage(url: database, logger: logger)
        }
        let fileURL = database.map { URL(fileURLWithPath: $0) } ?? dataURL.appendingPathComponent("server.sqlite")
        return try SQLiteSyncStorage(fileURL: fileURL)
    }
}
