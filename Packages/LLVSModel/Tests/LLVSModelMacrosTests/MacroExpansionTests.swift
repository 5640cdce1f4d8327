import SwiftDiagnostics
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing
@testable import LLVSModelMacros

/// What `@MergeableModel` and `@Merged` write, and every diagnostic they give instead of
/// skipping something silently.
@Suite struct MacroExpansionTests {
    let specs: [String: MacroSpec] = [
        "MergeableModel": MacroSpec(type: MergeableModelMacro.self, conformances: ["Mergeable", "StorableModel"]),
        "Merged": MacroSpec(type: MergedMacro.self),
    ]

    private func expect(_ source: String, expands expanded: String, diagnostics: [DiagnosticSpec] = [],
                        sourceLocation: SourceLocation = #_sourceLocation) {
        assertMacroExpansion(source, expandedSource: expanded, diagnostics: diagnostics, macroSpecs: specs) { failure in
            Issue.record(Comment(rawValue: failure.message), sourceLocation: sourceLocation)
        }
    }

    @Test func aStructGetsItsConformancesIdentifierKeysAndSchema() {
        expect("""
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
            """, expands: """
            struct Note {
                var title: String = ""
                var body = ""
                var views = 0
                let id: String
                var computed: Int { 1 }
                var observed = 0 {
                    didSet {}
                }
                static var shared = 0
            }

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
            """)
    }

    @Test func argumentsGiveTheVersionIdentifierRulesAndStrategyArguments() {
        expect("""
            @MergeableModel(version: 3, typeIdentifier: "Task", removal: .removalWins, insertion: .newerWins)
            public struct TaskModel {
                @Merged(using: .list(removal: .removalWins)) public var steps: [Step] = []
                @Merged(using: .custom(Longest.self)) public var `default` = ""
            }
            """, expands: """
            public struct TaskModel {
                public var steps: [Step] = []
                public var `default` = ""
            }

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
            """)
    }

    @Test func codingKeysRenameAndLeaveOut() {
        expect("""
            @MergeableModel
            struct Person {
                static let modelTypeIdentifier = "P"
                var name = ""
                var cache = 0
                enum CodingKeys: String, CodingKey {
                    case name = "full_name"
                }
            }
            """, expands: """
            struct Person {
                static let modelTypeIdentifier = "P"
                var name = ""
                var cache = 0
                enum CodingKeys: String, CodingKey {
                    case name = "full_name"
                }
            }

            extension Person: Mergeable, StorableModel {
                static var modelCodingKeys: [String]? {
                    ["full_name"]
                }
                static var mergeSchema: LLVSModel.MergeSchema {
                    LLVSModel.MergeSchema([
                        .automatic("full_name", \\Self.name),
                    ])
                }
            }
            """)
    }

    @Test(arguments: [("class", "a class"), ("enum", "an enum"), ("actor", "an actor")])
    func onlyStructsAreModels(_ kind: (String, String)) {
        expect("""
            @MergeableModel
            \(kind.0) Thing {
            }
            """, expands: """
            \(kind.0) Thing {
            }
            """, diagnostics: [
                DiagnosticSpec(message: "@MergeableModel applies to a struct, not \(kind.1): models are values that merge property by property", line: 1, column: 1),
            ])
    }

    @Test func aLazyPropertyIsRefused() {
        expect("""
            @MergeableModel
            struct Cache {
                lazy var value = 1
            }
            """, expands: """
            struct Cache {
                lazy var value = 1
            }
            """, diagnostics: [
                DiagnosticSpec(message: "@MergeableModel cannot merge the lazy property 'value': it is not stored until read; make it a stored property with a default, or a computed one",
                               line: 3, column: 5),
            ])
    }

    @Test func aTuplePatternIsRefused() {
        expect("""
            @MergeableModel
            struct Point {
                var (x, y) = (1, 2)
            }
            """, expands: """
            struct Point {
                var (x, y) = (1, 2)
            }
            """, diagnostics: [
                DiagnosticSpec(message: "@MergeableModel cannot merge '(x, y)': declare each property with its own name ('var a = …' and 'var b = …'), not a tuple pattern",
                               line: 3, column: 9),
            ])
    }

    @Test func mergedWhereItDoesNothingIsAWarning() {
        expect("""
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
            """, expands: """
            struct Odd {
                var computed: Int { 1 }
                static var shared = 0
                var hidden = 0
                var shown = 0
                enum CodingKeys: String, CodingKey {
                    case shown
                }
            }

            extension Odd: Mergeable, StorableModel {
                static var modelTypeIdentifier: String {
                    "Odd"
                }
                static var modelCodingKeys: [String]? {
                    ["shown"]
                }
                static var mergeSchema: LLVSModel.MergeSchema {
                    LLVSModel.MergeSchema([
                        .automatic("shown", \\Self.shown),
                    ])
                }
            }
            """, diagnostics: [
                DiagnosticSpec(message: "@Merged has no effect on the computed property 'computed': only stored properties are merged", line: 3, column: 5, severity: .warning),
                DiagnosticSpec(message: "@Merged has no effect on a static property: only instance properties are stored and merged", line: 4, column: 5, severity: .warning),
                DiagnosticSpec(message: "@Merged has no effect on 'hidden': CodingKeys leaves it out, so it is neither stored nor merged", line: 5, column: 5, severity: .warning),
            ])
    }

    @Test func mergedOutsideAModelIsAWarning() {
        expect("""
            struct Plain {
                @Merged(using: .counter) var views = 0
            }
            """, expands: """
            struct Plain {
                var views = 0
            }
            """, diagnostics: [
                DiagnosticSpec(message: "@Merged has no effect outside a @MergeableModel struct", line: 2, column: 5, severity: .warning),
            ])
    }

    @Test func argumentsThatAreNotLiteralsAreRefused() {
        expect("""
            @MergeableModel(version: someVersion, typeIdentifier: "a/b")
            struct Bad {
                @Merged(using: strategy) var x = 0
            }
            """, expands: """
            struct Bad {
                var x = 0
            }
            """, diagnostics: [
                DiagnosticSpec(message: "@MergeableModel(version:) takes an integer literal of 1 or more", line: 1, column: 26),
                DiagnosticSpec(message: "@MergeableModel(typeIdentifier:) takes a non-empty string literal without '/'", line: 1, column: 55),
                DiagnosticSpec(message: "@Merged(using:) takes a strategy written in place, such as .counter or .list(removal: .removalWins)", line: 3, column: 20),
            ])
    }

    /// Members the struct declares itself are not written again. (The compiler passes only
    /// the conformances the type lacks; this harness passes both.)
    @Test func declaredMembersAreKept() {
        expect("""
            @MergeableModel
            struct Custom: Mergeable {
                static let modelTypeIdentifier = "C"
                static var mergeSchema: MergeSchema { MergeSchema([]) }
                var x = 0
            }
            """, expands: """
            struct Custom: Mergeable {
                static let modelTypeIdentifier = "C"
                static var mergeSchema: MergeSchema { MergeSchema([]) }
                var x = 0
            }

            extension Custom: Mergeable, StorableModel {
                static var modelCodingKeys: [String]? {
                    ["x"]
                }
            }
            """)
    }
}
