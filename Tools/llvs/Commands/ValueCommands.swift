import ArgumentParser
import Foundation
import LLVS

/// `llvs put`: stores a value in a new version.
struct PutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "put", abstract: "Store a value in a new version based on HEAD.",
        discussion: "The data is the value argument, the contents of --file, or standard input (no value, or -).")

    @OptionGroup var options: StoreOptions

    @Argument(help: "The value's identifier.")
    var id: String

    @Argument(help: "The data, or - for standard input.")
    var value: String?

    @Option(name: .long, help: ArgumentHelp("Read the data from this file.", valueName: "path"))
    var file: String?

    @Option(name: [.short, .long], help: "A message recorded with the version.")
    var message: String?

    func validate() throws {
        if value != nil, file != nil { throw ValidationError("give the data as an argument or with --file, not both") }
        if id.isEmpty { throw ValidationError("a value identifier cannot be empty") }
    }

    func run() throws {
        let data = try readData()
        let directory = try options.open(locking: true)
        let valueId = Value.ID(id)
        let head = try directory.currentHead()
        let exists = try head.map { try directory.store.valueReference(id: valueId, at: $0) != nil } ?? false
        let value = Value(id: valueId, data: data)
        let metadata = try directory.metadata(message: message ?? "put \(id)")
        var made: Version?
        try directory.committing {
            made = try directory.store.makeVersion(basedOnPredecessor: head, storing: [exists ? .update(value) : .insert(value)], metadata: metadata)
            return made?.id
        }
        guard let version = made else { return }
        try VersionMade(version: version.id, change: exists ? "update" : "insert", ids: [valueId])
            .print(json: options.json, directory: directory, text: "\(exists ? "updated" : "inserted") \(id) (\(Output.bytes(Int64(data.count))))")
    }

    private func readData() throws -> Data {
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else { throw CLIError.failed("cannot read \(file)") }
            return data
        }
        if let value, value != "-" { return Data(value.utf8) }
        return FileHandle.standardInput.readDataToEndOfFile()
    }
}

/// `llvs rm`: removes values in a new version.
struct RemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove values in a new version based on HEAD.")

    @OptionGroup var options: StoreOptions

    @Argument(help: "The identifiers of the values to remove.")
    var ids: [String]

    @Option(name: [.short, .long], help: "A message recorded with the version.")
    var message: String?

    func validate() throws {
        if ids.isEmpty { throw ValidationError("name at least one value to remove") }
    }

    func run() throws {
        let directory = try options.open(locking: true)
        let head = try directory.requireHead()
        let valueIds = Array(Set(ids)).sorted().map { Value.ID($0) }
        for valueId in valueIds where try directory.store.valueReference(id: valueId, at: head) == nil {
            throw CLIError.unknownValue(valueId, at: head)
        }
        let metadata = try directory.metadata(message: message ?? "rm \(ids.joined(separator: " "))")
        var made: Version?
        try directory.committing {
            made = try directory.store.makeVersion(basedOnPredecessor: head, storing: valueIds.map(Value.Change.remove), metadata: metadata)
            return made?.id
        }
        guard let version = made else { return }
        try VersionMade(version: version.id, change: "remove", ids: valueIds)
            .print(json: options.json, directory: directory, text: "removed \(valueIds.map(\.rawValue).joined(separator: ", "))")
    }
}

/// `llvs get`: prints a value.
struct GetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get", abstract: "Print a value's data.",
        discussion: "The data is written as it is; with --json, as text when it is UTF-8, else base64.")

    @OptionGroup var options: StoreOptions

    @Argument(help: "The value's identifier.")
    var id: String

    @Option(name: .long, help: ArgumentHelp("The version to read at (default: HEAD).", valueName: "version"))
    var at: String?

    func run() throws {
        let directory = try options.open(locking: false)
        let version = try at.map(directory.resolveVersion) ?? directory.requireHead()
        guard let value = try directory.store.value(id: Value.ID(id), at: version) else {
            throw CLIError.unknownValue(Value.ID(id), at: version)
        }
        if options.json {
            struct Read: Encodable { var id: Value.ID; var version: Version.ID; var storedVersion: Version.ID?; var data: ValueDataJSON }
            try Output.json(Read(id: value.id, version: version, storedVersion: value.storedVersionId, data: ValueDataJSON(value.data)))
        } else {
            Output.raw(value.data)
            if Output.stdoutIsTerminal, value.data.last != UInt8(ascii: "\n") { Output.line("") }
        }
    }
}

/// `llvs ls`: lists the values at a version.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ls", abstract: "List the values at a version.")

    @OptionGroup var options: StoreOptions

    @Option(name: .long, help: ArgumentHelp("The version to list (default: HEAD).", valueName: "version"))
    var at: String?

    func run() throws {
        let directory = try options.open(locking: false)
        let version = try at.map(directory.resolveVersion) ?? directory.requireHead()
        let references = try directory.store.valueReferences(at: version).sorted { $0.valueId < $1.valueId }
        if options.json {
            struct Entry: Encodable { var id: Value.ID; var storedVersion: Version.ID }
            try Output.json(references.map { Entry(id: $0.valueId, storedVersion: $0.storedVersionId) })
        } else {
            for reference in references { Output.line(reference.valueId.rawValue) }
        }
    }
}

/// What a command that made a version prints.
struct VersionMade: Encodable {
    var version: Version.ID
    var change: String
    var ids: [Value.ID]

    func print(json: Bool, directory: StoreDirectory, text: String) throws {
        if json {
            try Output.json(self)
        } else {
            let branch = directory.state.branch.map { " \($0.rawValue)" } ?? ""
            Output.line("[\(directory.abbreviation(of: version))\(branch)] \(text)")
        }
    }
}

extension StoreDirectory {
    /// The shortest unique prefix of `id`, at least seven characters.
    func abbreviation(of id: Version.ID) -> String {
        let characters = Array(id.rawValue)
        guard characters.count > 7 else { return id.rawValue }
        for length in 7..<characters.count {
            let prefix = String(characters[..<length])
            if store.queryHistory({ $0.identifiers(matchingPrefix: prefix) }).count <= 1 { return prefix }
        }
        return id.rawValue
    }
}
