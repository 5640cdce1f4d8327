import ArgumentParser
import Foundation

/// `llvs init`: makes an empty store.
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "init", abstract: "Create an empty store.")

    @OptionGroup var options: StoreOptions

    @Option(help: "The storage backend: file (append-only packs) or sqlite (one database file).")
    var storage: StorageKind = .file

    func run() throws {
        let directory = try StoreDirectory.create(at: StoreDirectory.location(options.store, discovering: false), storage: storage)
        try directory.saveState()
        if options.json {
            struct Created: Encodable { var path: String; var storage: StorageKind }
            try Output.json(Created(path: directory.url.path, storage: storage))
        } else {
            Output.line("Created an empty LLVS store (\(storage.rawValue) storage) in \(directory.url.path)")
        }
    }
}
