// the-message: the LLVS README's "TheMessage" sample on Linux. One message, shared by
// everyone who uses the app: post a new one, read the current one. The reference app syncs
// through CloudKit; this one syncs through a shared directory (a FileSystemExchange), which
// can be a network or synced folder. The LLVS code is the reference's, line for line.

import ArgumentParser
import Foundation
import LLVS

/// The app: a store coordinator with an exchange, and the message's value identifier.
final class MessageApp: Sendable {
    let storeCoordinator: StoreCoordinator
    let messageId = Value.ID("MESSAGE")

    /// Opens the app's store (in the XDG data directory unless `storeDirectory` is given) and
    /// attaches the shared directory as its exchange.
    init(storeDirectory: String?, exchangeDirectory: String) throws {
        if let storeDirectory {
            let root = URL(fileURLWithPath: storeDirectory).standardizedFileURL
            storeCoordinator = try StoreCoordinator(withStoreDirectoryAt: root.appendingPathComponent("store"),
                                                    cacheDirectoryAt: root.appendingPathComponent("cache"))
        } else {
            storeCoordinator = try StoreCoordinator()
        }
        let exchange = FileSystemExchange(rootDirectoryURL: URL(fileURLWithPath: exchangeDirectory).standardizedFileURL,
                                          store: storeCoordinator.store)
        storeCoordinator.exchange = exchange
    }

    /// Update the message in the store, and sync it to the shared directory.
    func post(message: String) async throws {
        let newValue = Value(id: messageId, data: Data(message.utf8))
        try storeCoordinator.save(updating: [newValue])
        try await sync()
    }

    /// Fetch the message for the current version from the store.
    func fetchMessage() throws -> String? {
        guard let value = try storeCoordinator.value(id: messageId) else { return nil }
        return String(data: value.data, encoding: .utf8)
    }

    /// Exchange with the shared directory, then merge what arrived: `sync()` retrieves,
    /// merges the heads (the most recent post wins) and sends the result.
    func sync() async throws {
        _ = try await storeCoordinator.sync()
    }
}

@main
struct TheMessage: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "the-message",
        abstract: "Post and read one message shared by everyone using the same exchange directory.",
        discussion: "The LLVS README's TheMessage sample, on Linux: `the-message post 'Hello'` on one machine, `the-message read` on another.",
        version: LLVSRelease.version,
        subcommands: [Post.self, Read.self, Watch.self])

    struct Options: ParsableArguments {
        @Option(help: ArgumentHelp("The shared exchange directory (default: $THE_MESSAGE_EXCHANGE).", valueName: "directory"))
        var exchange: String?

        @Option(help: ArgumentHelp("This replica's own directory (default: the XDG data directory).", valueName: "directory"))
        var store: String?

        func makeApp() throws -> MessageApp {
            guard let directory = exchange ?? ProcessInfo.processInfo.environment["THE_MESSAGE_EXCHANGE"] else {
                throw ValidationError("name the shared directory with --exchange or THE_MESSAGE_EXCHANGE")
            }
            return try MessageApp(storeDirectory: store, exchangeDirectory: directory)
        }
    }

    struct Post: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Post a new message and sync it.")
        @OptionGroup var options: Options
        @Argument(help: "The message.") var message: String

        func run() async throws {
            let app = try options.makeApp()
            try await app.post(message: message)
            print("Posted: \(try app.fetchMessage() ?? "")")
        }
    }

    struct Read: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Sync, then print the current message.")
        @OptionGroup var options: Options

        func run() async throws {
            let app = try options.makeApp()
            try await app.sync()
            print(try app.fetchMessage() ?? "(no message yet)")
        }
    }

    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the message, then again whenever someone posts a new one.",
            discussion: "Syncs when the exchange signals new versions, and prints on every change of the current version — the role Combine's subject plays in the reference app.")
        @OptionGroup var options: Options
        @Option(help: "Stop after this many seconds (default: run until interrupted).") var seconds: Double?

        func run() async throws {
            let app = try options.makeApp()
            try await app.sync()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    var last: String?? = .none
                    for await _ in app.storeCoordinator.currentVersions {
                        let message = try app.fetchMessage()
                        if last != .some(message) { FileHandle.standardOutput.write(Data(((message ?? "(no message yet)") + "\n").utf8)) }
                        last = .some(message)
                    }
                }
                group.addTask {
                    guard let exchange = app.storeCoordinator.exchange else { return }
                    for await _ in exchange.newVersionsAvailable { try await app.sync() }
                }
                if let seconds {
                    group.addTask { try await Task.sleep(for: .seconds(seconds)) }
                    try await group.next()
                    group.cancelAll()
                } else {
                    try await group.waitForAll()
                }
            }
        }
    }
}
