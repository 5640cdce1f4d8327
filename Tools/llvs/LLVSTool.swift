import ArgumentParser
import Foundation
import LLVS

/// `llvs`: the command-line tool for LLVS stores.
@main
struct LLVSTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "llvs",
        abstract: "Work with an LLVS store: a versioned, decentralized key-value store.",
        discussion: """
            The store is the directory named by --store, else $LLVS_STORE, else the .llvs \
            directory in the current directory or the nearest parent directory that has one (as git \
            finds .git). Versions can be named by a unique prefix of their identifier (any case), by \
            HEAD (the current version), by a branch's name (its tip), and by NAME~N (the N-th first \
            predecessor).

            push, pull and sync exchange through a shared directory, or with a store served over \
            HTTP (`llvs serve`, llvs-server) named by its URL, http[s]://HOST[:PORT]/v1/stores/NAME; \
            the access token comes from --token, else $LLVS_TOKEN.

            Exit statuses: 0 success; 1 other failure; 2 no store; 3 unknown or ambiguous \
            version; 4 no such value; 5 the merge needs an arbiter; 6 verify found damage; \
            7 encryption (a wrong phrase, a device not enrolled, sealed data that does not hold \
            up); 64 usage error.
            """,
        version: LLVSRelease.version,
        subcommands: commands)

    /// The commands: `serve` only with the SyncServer trait (every build but the demo's).
    static var commands: [any ParsableCommand.Type] {
        var commands: [any ParsableCommand.Type] = [
            InitCommand.self, PutCommand.self, GetCommand.self, RemoveCommand.self, ListCommand.self,
            LogCommand.self, HeadsCommand.self, DiffCommand.self, MergeCommand.self, BranchCommand.self,
            SwitchCommand.self, CheckoutCommand.self, PushCommand.self, PullCommand.self, SyncCommand.self,
        ]
        #if SyncServer
        commands.append(ServeCommand.self)
        #endif
        commands += [
            SnapshotCommand.self, VerifyCommand.self, StatsCommand.self, RemoteCommand.self, CloneCommand.self,
            RevertCommand.self, ConflictsCommand.self, KeyValueCommand.self, QueryCommand.self, KeyCommand.self,
        ]
        return commands
    }

    /// Parses the arguments, runs the command, and turns errors into a message and an exit
    /// status: every error is printed as `llvs: error: …` (as JSON under `--json`).
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        #if !SyncServer
        if arguments.first == "serve" {
            report(CLIError.usage("this llvs was built without the sync server (only the CommandLineTool trait, as Scripts/demo builds it): "
                                  + "build it with the default traits (swift build --product llvs) for `llvs serve`"))
        }
        #endif
        if let mistyped = CommandSuggestion.unknownCommand(in: arguments, root: LLVSTool.self) { report(CLIError.usage(mistyped)) }
        if let note = CommandSuggestion.deprecationNote(for: arguments, root: LLVSTool.self) { Output.note("llvs: note: \(note)") }
        let command: any ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            reportParsingError(error)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                var syncCommand = command
                try syncCommand.run()
            }
        } catch let error as ExitCode {
            exit(withError: error)
        } catch let error as CleanExit {
            exit(withError: error)
        } catch let error as ValidationError {
            reportParsingError(error)
        } catch {
            // `llvs COMMAND --help` runs the parser's help command, which throws its help request.
            if exitCode(for: error) == .success { exit(withError: error) }
            report(CLIError.classify(error))
        }
    }

    /// Reports an error of the argument parser (or a `ValidationError`) in the tool's style,
    /// with the parser's usage lines; help and version requests print as the parser prints them.
    static func reportParsingError(_ error: any Error) -> Never {
        let status = exitCode(for: error)
        if status == .success { exit(withError: error) }
        var message = fullMessage(for: error)
        if message.hasPrefix("Error: ") { message.removeFirst("Error: ".count) }
        if let first = message.first, let second = message.dropFirst().first, first.isUppercase, second.isLowercase {
            message = first.lowercased() + message.dropFirst()
        }
        while message.hasSuffix("\n") { message.removeLast() }
        report(status == .validationFailure ? CLIError.usage(message) : CLIError.failed(message))
    }

    /// Prints `error` on stderr (as JSON under `--json`) and exits with its status.
    static func report(_ error: any Error) -> Never {
        let cliError = error as? CLIError
        let status = cliError?.exitStatus ?? 1
        if CommandLine.arguments.contains("--json") {
            struct Body: Encodable { var error: Detail }
            struct Detail: Encodable { var code: String; var message: String; var exitStatus: Int32; var conflicts: [MergeConflict]? }
            var conflicts: [MergeConflict]?
            if case .conflictsNeedArbiter(let list) = cliError { conflicts = list }
            let body = Body(error: Detail(code: cliError?.code ?? "\(type(of: error))", message: "\(error)", exitStatus: status, conflicts: conflicts))
            if let data = try? JSONEncoder.llvs.encode(body) { FileHandle.standardError.write(data + Data("\n".utf8)) }
        } else {
            Output.note("llvs: error: \(error)")
        }
        Foundation.exit(status)
    }
}

/// The options every command takes: where the store is, and JSON output.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The store directory (default: $LLVS_STORE, else .llvs in this directory or the nearest parent that has one).", valueName: "path"))
    var store: String?

    @Flag(name: .long, help: "Print the result as JSON, for scripts.")
    var json = false

    /// The store's directory.
    var location: URL { StoreDirectory.location(store) }

    /// Opens the store; commands that change it pass `locking: true`.
    func open(locking: Bool) throws -> StoreDirectory {
        try StoreDirectory(url: location, locking: locking)
    }
}
