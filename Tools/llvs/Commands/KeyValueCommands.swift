import ArgumentParser
import Foundation
import LLVS

/// `llvs kv`: the KeyValueCRDT reference's `kvcrdt` tool, on a key-value database directory.
struct KeyValueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kv", abstract: "View and change a key-value database (KeyValueDatabase) directory.",
        discussion: """
            DATABASE is a database directory as KeyValueDatabase(fileURL:) makes it (it holds \
            llvs-store.sqlite); the reference's kvcrdt tool takes the same place. Writes are \
            made as the author named by --author and leave the directory closed (its SQLite \
            file complete on its own).
            """,
        subcommands: [KVStatsCommand.self, KVListCommand.self, KVGetCommand.self, KVPutCommand.self, KVDeleteCommand.self,
                      KVSearchCommand.self, KVHistoryCommand.self, KVMergeCommand.self, KVEraseHistoryCommand.self],
        defaultSubcommand: KVStatsCommand.self)
}

/// The options every `llvs kv` command on one database takes.
struct KVDatabaseOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("The database directory.", valueName: "database"), completion: .directory)
    var database: String

    @Option(name: .long, help: "The author writes are made as (found by name in the database, else new).")
    var author = "llvs command line"

    @Flag(name: .long, help: "Print the result as JSON, for scripts.")
    var json = false

    /// Opens the database; a directory that holds no database is refused unless `creating`.
    func open(creating: Bool = false) throws -> KeyValueDatabase {
        let url = URL(fileURLWithPath: database)
        let storeFile = url.appendingPathComponent(SQLiteStorage.databaseFileName).path
        if !creating, !FileManager.default.fileExists(atPath: storeFile) {
            throw CLIError.failed("\(database) holds no key-value database (no \(SQLiteStorage.databaseFileName))")
        }
        return try KeyValueDatabase(fileURL: url, authorDescription: author)
    }
}

/// The options naming one key.
struct KVKeyOptions: ParsableArguments {
    @Argument(help: "The key.")
    var key: String

    @Option(name: .long, help: "The key's scope (default: the empty scope).")
    var scope = ""

    var scopedKey: ScopedKey { ScopedKey(scope: scope, key: key) }
}

/// One version of a key, as `llvs kv` prints it in JSON.
struct KVVersionJSON: Encodable {
    var author: UUID
    var authorName: String?
    var date: Date
    var type: String
    var value: String?
    var size: Int?

    init(_ version: KeyValueDatabase.Version, authors: [UUID: String]) {
        author = version.authorID
        authorName = authors[version.authorID]
        date = version.timestamp
        switch version.value {
        case .text(let text): (type, value) = ("text", text)
        case .json(let json): (type, value) = ("json", json)
        case .blob(let data): (type, value, size) = ("blob", data.base64EncodedString(), data.count)
        case .null: type = "deleted"
        }
    }
}

extension KeyValueDatabase {
    /// Author names by id, for printing.
    func authorNames() throws -> [UUID: String] {
        Dictionary(try authors().map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
    }
}

/// Prints a key's versions: each with its author and time when there are several.
func printVersions(_ versions: [KeyValueDatabase.Version], authors: [UUID: String], alwaysHeader: Bool = false) {
    for version in versions {
        if alwaysHeader || versions.count > 1 {
            Output.line("# \(authors[version.authorID] ?? version.authorID.uuidString) at \(Output.date(version.timestamp.timeIntervalSinceReferenceDate)):")
        }
        switch version.value {
        case .text(let text), .json(let text): Output.line(text)
        case .blob(let data): Output.line("(binary data, \(Output.bytes(Int64(data.count))))")
        case .null: Output.line("(deleted)")
        }
    }
}

/// Prints keys as a scope/key table.
func printKeys(_ keys: [ScopedKey], json: Bool) throws {
    if json {
        struct KeyJSON: Encodable { var scope: String; var key: String }
        try Output.json(keys.sorted().map { KeyJSON(scope: $0.scope, key: $0.key) })
        return
    }
    for key in keys.sorted() { Output.line(key.scope.isEmpty ? key.key : "\(key.scope)\t\(key.key)") }
}

/// `llvs kv stats`.
struct KVStatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stats", abstract: "Show the database's statistics.")

    @OptionGroup var options: KVDatabaseOptions

    func run() throws {
        let statistics = try options.open().statistics
        if options.json {
            struct StatsJSON: Encodable {
                var entries, tombstones, authors, keys, conflictedKeys, scopes, versions, heads: Int
            }
            try Output.json(StatsJSON(entries: statistics.entryCount, tombstones: statistics.tombstoneCount, authors: statistics.authorCount,
                                      keys: statistics.keyCount, conflictedKeys: statistics.conflictedKeyCount, scopes: statistics.scopeCount,
                                      versions: statistics.versionCount, heads: statistics.headCount))
            return
        }
        Output.line("""
            Entries:        \(statistics.entryCount)
            Tombstones:     \(statistics.tombstoneCount)
            Authors:        \(statistics.authorCount)
            Keys:           \(statistics.keyCount)
            Conflicted:     \(statistics.conflictedKeyCount)
            Scopes:         \(statistics.scopeCount)
            Versions:       \(statistics.versionCount)
            Heads:          \(statistics.headCount)
            """)
    }
}

/// `llvs kv list`.
struct KVListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ls", abstract: "List the keys that have a value (scope, tab, key).", aliases: ["list"])

    @OptionGroup var options: KVDatabaseOptions

    @Option(name: .long, help: "Only keys in this scope.")
    var scope: String?

    @Option(name: .long, help: "Only keys with this name (in any scope).")
    var key: String?

    func run() throws {
        try printKeys(try options.open().keys(scope: scope, key: key), json: options.json)
    }
}

/// `llvs kv get`.
struct KVGetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get", abstract: "Print every current version of a key, with its author and time when there are several.")

    @OptionGroup var options: KVDatabaseOptions
    @OptionGroup var keyOptions: KVKeyOptions

    func run() throws {
        let database = try options.open()
        let versions = try database.read(key: keyOptions.key, scope: keyOptions.scope)
        let authors = try database.authorNames()
        if options.json {
            try Output.json(versions.map { KVVersionJSON($0, authors: authors) })
            return
        }
        guard !versions.isEmpty else { throw CLIError.failed("no key \(keyOptions.scopedKey) in the database") }
        printVersions(versions, authors: authors)
    }
}

/// `llvs kv put`.
struct KVPutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "put", abstract: "Write a value to a key (creating the database if needed).",
        discussion: "The value is text, or JSON with --json, or the bytes of a file with --blob-file.")

    @OptionGroup var options: KVDatabaseOptions
    @OptionGroup var keyOptions: KVKeyOptions

    @Argument(help: "The value (text, or JSON with --json).")
    var value: String?

    @Flag(name: .customLong("json-value"), help: "Store the value as a JSON document.")
    var isJSON = false

    @Option(name: .long, help: ArgumentHelp("Store the bytes of this file as a blob.", valueName: "path"))
    var blobFile: String?

    func validate() throws {
        if (value == nil) == (blobFile == nil) { throw ValidationError("give a value, or --blob-file, but not both") }
        if isJSON, blobFile != nil { throw ValidationError("--json-value and --blob-file cannot go together") }
    }

    func run() throws {
        let database = try options.open(creating: true)
        if let blobFile {
            guard let data = FileManager.default.contents(atPath: blobFile) else { throw CLIError.failed("cannot read \(blobFile)") }
            try database.writeBlob(data, to: keyOptions.key, scope: keyOptions.scope)
        } else if let value {
            if isJSON { try database.writeJSON(value, to: keyOptions.key, scope: keyOptions.scope) }
            else { try database.writeText(value, to: keyOptions.key, scope: keyOptions.scope) }
        }
        try database.close()
        if !options.json { Output.line("wrote \(keyOptions.scopedKey)") }
    }
}

/// `llvs kv delete`.
struct KVDeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rm", abstract: "Delete a key (a tombstone that merges keep).", aliases: ["delete"])

    @OptionGroup var options: KVDatabaseOptions
    @OptionGroup var keyOptions: KVKeyOptions

    func run() throws {
        let database = try options.open()
        try database.delete(key: keyOptions.key, scope: keyOptions.scope)
        try database.close()
        if !options.json { Output.line("deleted \(keyOptions.scopedKey)") }
    }
}

/// `llvs kv search`.
struct KVSearchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "search", abstract: "Full-text search of the text values (SQLite FTS5 syntax).")

    @OptionGroup var options: KVDatabaseOptions

    @Argument(help: "The words to search for.")
    var query: String

    func run() throws {
        try printKeys(try options.open().search(for: query), json: options.json)
    }
}

/// `llvs kv history`.
struct KVHistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "history", abstract: "Every state a key has had, newest first.")

    @OptionGroup var options: KVDatabaseOptions
    @OptionGroup var keyOptions: KVKeyOptions

    func run() throws {
        let database = try options.open()
        let history = try database.history(key: keyOptions.key, scope: keyOptions.scope)
        let authors = try database.authorNames()
        if options.json {
            struct StateJSON: Encodable { var version: Version.ID; var date: Date; var versions: [KVVersionJSON] }
            try Output.json(history.map { entry in
                StateJSON(version: entry.storeVersion.id, date: Date(timeIntervalSinceReferenceDate: entry.storeVersion.timestamp),
                          versions: entry.versions.map { KVVersionJSON($0, authors: authors) })
            })
            return
        }
        guard !history.isEmpty else { throw CLIError.failed("no key \(keyOptions.scopedKey) in the database") }
        for entry in history {
            Output.line("version \(entry.storeVersion.id.rawValue.prefix(8)) at \(Output.date(entry.storeVersion.timestamp)): \(Output.count(entry.versions.count, "value"))")
            printVersions(entry.versions, authors: authors, alwaysHeader: true)
        }
    }
}

/// `llvs kv merge`.
struct KVMergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge", abstract: "Merge the source database into the destination, and list the keys that changed.")

    @Option(name: .long, help: ArgumentHelp("The database whose versions are merged in (not changed).", valueName: "database"))
    var source: String

    @Option(name: .long, help: ArgumentHelp("The database that receives the merge.", valueName: "database"))
    var dest: String

    @Flag(name: .long, help: "Change nothing: only list the keys the merge would change.")
    var dryRun = false

    @Option(name: .long, help: "The author the merge is made as.")
    var author = "llvs command line"

    @Flag(name: .long, help: "Print the result as JSON, for scripts.")
    var json = false

    func run() throws {
        let open = { (path: String) in
            try KVDatabaseOptions.parse([path, "--author", author]).open()
        }
        let sourceDatabase = try open(source), destination = try open(dest)
        let changed = try destination.merge(source: sourceDatabase, dryRun: dryRun)
        try destination.close()
        if !json {
            Output.line("\(dryRun ? "would change" : "changed") \(Output.count(changed.count, "key"))")
        }
        try printKeys(Array(changed), json: json)
    }
}

/// `llvs kv erase-version-history`.
struct KVEraseHistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "erase-version-history",
        abstract: "Replace the history with one version holding the current values, dropping deletes.",
        discussion: "A peer that still holds the old history sends it back when it next syncs; erase it there too, or start it over from this database.")

    @OptionGroup var options: KVDatabaseOptions

    func run() throws {
        let database = try options.open()
        let before = database.store.queryHistory { $0.count }
        try database.eraseVersionHistory()
        try database.close()
        if !options.json { Output.line("erased \(Output.count(before, "version")); the history is now 1 version") }
    }
}
