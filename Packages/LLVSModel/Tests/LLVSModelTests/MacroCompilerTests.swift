import Foundation
import LLVSTesting
import Testing

/// `@MergeableModel` and `@Merged` as an app's compiler sees them: each case is compiled
/// (type-checked) by `swiftc` with the macro plugin and the LLVSModel module this build made,
/// and the test reads what the compiler prints — every diagnostic, at its line and column,
/// and the extension the macro writes (`-dump-macro-expansions`). The compiler passes the
/// macro only the conformances a type lacks, which these tests see too.
@Suite struct MacroCompilerTests {
    struct Diagnostic: Hashable, CustomStringConvertible {
        var line: Int
        var column: Int
        var severity: String
        var message: String
        var description: String { "\(line):\(column) \(severity): \(message)" }
    }

    struct Compilation {
        var status: Int32
        var output: String

        /// The diagnostics the macros gave.
        var diagnostics: [Diagnostic] {
            output.split(separator: "\n").compactMap { line -> Diagnostic? in
                let text = String(line)
                guard text.hasPrefix("model.swift:"), text.hasSuffix("')") else { return nil }
                let parts = text.split(separator: ":", maxSplits: 4, omittingEmptySubsequences: false)
                guard parts.count == 5, let line = Int(parts[1]), let column = Int(parts[2]) else { return nil }
                var message = parts[4].trimmingCharacters(in: .whitespaces)
                if let from = message.range(of: " (from macro '", options: .backwards) { message = String(message[..<from.lowerBound]) }
                return Diagnostic(line: line, column: column, severity: parts[3].trimmingCharacters(in: .whitespaces), message: message)
            }
        }

        /// The source `@MergeableModel` wrote for `type`: the extension block of the
        /// compiler's dump of macro expansions (each between lines of dashes) that extends it.
        func expansion(of type: String) -> String? {
            let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            var index = 0
            while index < lines.count {
                guard lines[index].hasPrefix("@__swiftmacro_"), lines[index].hasSuffix("fMe_.swift"),
                      index + 1 < lines.count, lines[index + 1].hasPrefix("---") else {
                    index += 1
                    continue
                }
                let body = lines[(index + 2)...].prefix { !$0.hasPrefix("---") }
                if body.first?.hasPrefix("extension \(type)") == true { return body.joined(separator: "\n") }
                index += 2 + body.count
            }
            return nil
        }
    }

    /// Type-checks `source` as `model.swift` importing LLVSModel.
    func compile(_ source: String) throws -> Compilation {
        let build = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [build, build.deletingLastPathComponent(), build.deletingLastPathComponent().deletingLastPathComponent()]
        let directory = try #require(candidates.first { FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("LLVSModelMacros-tool").path) },
                                     "the macro plugin LLVSModelMacros-tool is not built next to the tests (looked in \(candidates.map(\.path)))")
        let scratch = try TemporaryDirectory(prefix: "llvs-macro")
        let file = scratch.url.appendingPathComponent("model.swift")
        try Data(("import LLVSModel\n" + source).utf8).write(to: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swiftc", "-typecheck", "-I", directory.appendingPathComponent("Modules").path,
                             "-load-plugin-executable", directory.appendingPathComponent("LLVSModelMacros-tool").path + "#LLVSModelMacros",
                             "-Xfrontend", "-dump-macro-expansions", "model.swift"]
        process.currentDirectoryURL = scratch.url
        let output = scratch.url.appendingPathComponent("output")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        try handle.close()
        return Compilation(status: process.terminationStatus, output: String(decoding: try Data(contentsOf: output), as: UTF8.self))
    }

    // Source lines below are numbered from 2: line 1 is the import.

    @Test func aStructGetsItsConformancesIdentifierKeysAndSchema() throws {
        let result = try compile("""
            @MergeableModel
            struct Note {
                var title: String = ""
                @Merged(using: .text) var body = ""
                @Merged(using: .counter) var views = 0
                let id: String
                var computed: Int { 1 }
                var observed = 0 {
                    didSet {}
                }
                static var shared = 0
            }
            """)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.diagnostics.isEmpty)
        #expect(result.expansion(of: "Note") == """
            extension Note: Mergeable, StorableModel {
                static var modelTypeIdentifier: String {
                    "Note"
                }
                static var modelCodingKeys: [String]? {
                    ["title", "body", "views", "id", "observed"]
                }
                static var mergeSchema: LLVSModel.MergeSchema {
                    LLVSModel.MergeSchema([
                        .automatic("title", \\Self.title),
                        .text("body", \\Self.body),
                        .counter("views", \\Self.views),
                        .automatic("id", \\Self.id),
                        .automatic("observed", \\Self.observed),
                    ])
                }
            }
            """, "\(result.output)")
    }

    @Test func argumentsGiveTheVersionIdentifierRulesAndStrategyArguments() throws {
        let result = try compile("""
            public struct Step: Codable, Identifiable { public var id = 0 }
            enum Longest: PropertyMerger {
                static func merge(base: String?, newer: String, older: String) -> String { newer }
            }
            @MergeableModel(version: 3, typeIdentifier: "Task", removal: .removalWins, insertion: .newerWins)
            public struct TaskModel {
                @Merged(using: .list(removal: .removalWins)) public var steps: [Step] = []
                @Merged(using: .custom(Longest.self)) public var `default` = ""
            }
            """)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.expansion(of: "TaskModel") == """
            extension TaskModel: Mergeable, StorableModel {
                public static var modelTypeIdentifier: String {
                    "Task"
                }
                public static var modelVersion: Int {
                    3
                }
                public static var removalRule: LLVSModel.RemovalRule {
                    .removalWins
                }
                public static var insertionRule: LLVSModel.InsertionRule {
                    .newerWins
                }
                public static var modelCodingKeys: [String]? {
                    ["steps", "default"]
                }
                public static var mergeSchema: LLVSModel.MergeSchema {
                    LLVSModel.MergeSchema([
                        .list("steps", \\Self.steps, removal: .removalWins),
                        .custom("default", \\Self.`default`, Longest.self),
                    ])
                }
            }
            """, "\(result.output)")
    }

    /// Members a struct declares are not written again, and only missing conformances are added.
    @Test func declaredMembersAndConformancesAreKept() throws {
        let result = try compile("""
            @MergeableModel
            struct Person: Mergeable {
                static let modelTypeIdentifier = "P"
                var name = ""
                var cache = 0
                enum CodingKeys: String, CodingKey {
                    case name = "full_name"
                }
            }
            """)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.expansion(of: "Person") == """
            extension Person: StorableModel {
                static var modelCodingKeys: [String]? {
                    ["full_name"]
                }
                static var mergeSchema: LLVSModel.MergeSchema {
                    LLVSModel.MergeSchema([
                        .automatic("full_name", \\Self.name),
                    ])
                }
            }
            """, "\(result.output)")
    }

    @Test(arguments: [("class", "a class"), ("enum", "an enum"), ("actor", "an actor")])
    func onlyStructsAreModels(_ kind: (String, String)) throws {
        let result = try compile("""
            @MergeableModel
            \(kind.0) Thing {
            }
            """)
        #expect(result.status != 0)
        #expect(result.diagnostics == [Diagnostic(line: 2, column: 1, severity: "error",
                                                  message: "@MergeableModel applies to a struct, not \(kind.1): models are values that merge property by property")])
    }

    @Test func aLazyPropertyAndATuplePatternAreRefused() throws {
        let result = try compile("""
            @MergeableModel
            struct Cache {
                lazy var value = 1
                var (x, y) = (1, 2)
            }
            """)
        #expect(result.status != 0)
        #expect(result.diagnostics == [
            Diagnostic(line: 4, column: 5, severity: "error",
                       message: "@MergeableModel cannot merge the lazy property 'value': it is not stored until read; make it a stored property with a default, or a computed one"),
            Diagnostic(line: 5, column: 9, severity: "error",
                       message: "@MergeableModel cannot merge '(x, y)': declare each property with its own name ('var a = …' and 'var b = …'), not a tuple pattern"),
        ], "\(result.output)")
    }

    @Test func mergedWhereItDoesNothingIsAWarning() throws {
        let result = try compile("""
            @MergeableModel
            struct Odd {
                @Merged(using: .counter) var computed: Int { 1 }
                @Merged(using: .counter) static var shared = 0
                @Merged(using: .counter) var hidden = 0
                var shown = 0
                enum CodingKeys: String, CodingKey {
                    case shown
                }
            }
            struct Plain {
                @Merged(using: .counter) var views = 0
            }
            """)
        #expect(result.status == 0, "\(result.output)")
        #expect(Set(result.diagnostics) == [
            Diagnostic(line: 4, column: 5, severity: "warning", message: "@Merged has no effect on the computed property 'computed': only stored properties are merged"),
            Diagnostic(line: 5, column: 5, severity: "warning", message: "@Merged has no effect on a static property: only instance properties are stored and merged"),
            Diagnostic(line: 6, column: 5, severity: "warning", message: "@Merged has no effect on 'hidden': CodingKeys leaves it out, so it is neither stored nor merged"),
            Diagnostic(line: 13, column: 5, severity: "warning", message: "@Merged has no effect outside a @MergeableModel struct"),
        ], "\(result.output)")
    }

    @Test func argumentsThatAreNotLiteralsAreRefused() throws {
        let result = try compile("""
            let someVersion = 2
            let strategy = PropertyMerge.counter
            @MergeableModel(version: someVersion, typeIdentifier: "a/b")
            struct Bad {
                @Merged(using: strategy) var x = 0
            }
            """)
        #expect(result.status != 0)
        #expect(result.diagnostics == [
            Diagnostic(line: 4, column: 26, severity: "error", message: "@MergeableModel(version:) takes an integer literal of 1 or more"),
            Diagnostic(line: 4, column: 55, severity: "error", message: "@MergeableModel(typeIdentifier:) takes a non-empty string literal without '/'"),
            Diagnostic(line: 6, column: 20, severity: "error",
                       message: "@Merged(using:) takes a strategy written in place, such as .counter or .list(removal: .removalWins)"),
        ], "\(result.output)")
    }

    /// A strategy that does not suit the property's type is a compile error, not a merge surprise.
    @Test func aStrategyThatDoesNotSuitTheTypeDoesNotCompile() throws {
        let result = try compile("""
            @MergeableModel
            struct Wrong {
                @Merged(using: .counter) var name = ""
            }
            """)
        #expect(result.status != 0)
        #expect(result.output.contains("error:"), "\(result.output)")
    }
}
