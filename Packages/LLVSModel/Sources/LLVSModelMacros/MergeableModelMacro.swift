import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@MergeableModel`: an extension making a struct `Mergeable` and `StorableModel`, with a
/// merge schema listing every stored property (LLVSModel's `Macros.swift` documents it).
public struct MergeableModelMacro: ExtensionMacro {
    public static func expansion(of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
                                 providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
                                 in context: some MacroExpansionContext) throws -> [ExtensionDeclSyntax] {
        guard let structDecl = declaration.as(StructDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: ModelDiagnostic.notAStruct(kind: kindName(of: declaration))))
            return []
        }
        let arguments = MacroArguments(node, in: context)
        let model = ModelDeclaration(structDecl, in: context)
        guard !model.failed, !arguments.failed else { return [] }

        let access = structDecl.modifiers.first { [.keyword(.public), .keyword(.package)].contains($0.name.tokenKind) }
            .map { $0.name.text + " " } ?? ""
        var members: [String] = []
        if !model.declaredStatics.contains("modelTypeIdentifier") {
            let identifier = arguments.typeIdentifier ?? structDecl.name.identifier?.name ?? structDecl.name.text
            members.append("\(access)static var modelTypeIdentifier: String { \(literal(identifier)) }")
        }
        if let version = arguments.version, !model.declaredStatics.contains("modelVersion") {
            members.append("\(access)static var modelVersion: Int { \(version) }")
        }
        if let removal = arguments.removal, !model.declaredStatics.contains("removalRule") {
            members.append("\(access)static var removalRule: LLVSModel.RemovalRule { \(removal) }")
        }
        if let insertion = arguments.insertion, !model.declaredStatics.contains("insertionRule") {
            members.append("\(access)static var insertionRule: LLVSModel.InsertionRule { \(insertion) }")
        }
        if !model.declaredStatics.contains("modelCodingKeys") {
            let keys = model.properties.map { literal($0.key) }.joined(separator: ", ")
            members.append("\(access)static var modelCodingKeys: [String]? { [\(keys)] }")
        }
        if !model.declaredStatics.contains("mergeSchema") {
            let rules = model.properties.map { "        \($0.rule)," }.joined(separator: "\n")
            members.append("""
                \(access)static var mergeSchema: LLVSModel.MergeSchema {
                    LLVSModel.MergeSchema([
                \(rules)
                    ])
                }
                """)
        }
        let conformances = protocols.map(\.trimmedDescription).joined(separator: ", ")
        let header = conformances.isEmpty ? "extension \(type.trimmedDescription)" : "extension \(type.trimmedDescription): \(conformances)"
        let source = "\(header) {\n\(members.joined(separator: "\n"))\n}"
        return [try ExtensionDeclSyntax("\(raw: source)")]
    }

    private static func kindName(of declaration: some DeclGroupSyntax) -> String {
        if declaration.is(ClassDeclSyntax.self) { return "a class" }
        if declaration.is(EnumDeclSyntax.self) { return "an enum" }
        if declaration.is(ActorDeclSyntax.self) { return "an actor" }
        if declaration.is(ProtocolDeclSyntax.self) { return "a protocol" }
        if declaration.is(ExtensionDeclSyntax.self) { return "an extension" }
        return "this declaration"
    }
}

/// A Swift string literal of `text`.
func literal(_ text: String) -> String {
    StringLiteralExprSyntax(content: text).description
}

/// The arguments of `@MergeableModel(version:typeIdentifier:removal:insertion:)`.
struct MacroArguments {
    var version: String?
    var typeIdentifier: String?
    var removal: String?
    var insertion: String?
    var failed = false

    init(_ node: AttributeSyntax, in context: some MacroExpansionContext) {
        guard case .argumentList(let list) = node.arguments else { return }
        for argument in list {
            switch argument.label?.text {
            case "version":
                guard let integer = argument.expression.as(IntegerLiteralExprSyntax.self), let value = Int(integer.literal.text),
                      value >= 1 else {
                    context.diagnose(Diagnostic(node: argument.expression, message: ModelDiagnostic.versionNotALiteral))
                    failed = true
                    continue
                }
                version = String(value)
            case "typeIdentifier":
                if argument.expression.is(NilLiteralExprSyntax.self) { continue }
                guard let string = argument.expression.as(StringLiteralExprSyntax.self), let value = string.representedLiteralValue,
                      !value.isEmpty, !value.contains("/") else {
                    context.diagnose(Diagnostic(node: argument.expression, message: ModelDiagnostic.typeIdentifierNotALiteral))
                    failed = true
                    continue
                }
                typeIdentifier = value
            case "removal":
                removal = argument.expression.trimmedDescription
            case "insertion":
                insertion = argument.expression.trimmedDescription
            default:
                break
            }
        }
    }
}

/// A struct's stored properties as the macro sees them, with their coding keys and rules.
struct ModelDeclaration {
    struct Property {
        let key: String
        let rule: String
    }

    private(set) var properties: [Property] = []
    private(set) var declaredStatics: Set<String> = []
    private(set) var failed = false

    init(_ structDecl: StructDeclSyntax, in context: some MacroExpansionContext) {
        let codingKeys = Self.codingKeys(of: structDecl, in: context, failed: &failed)
        for member in structDecl.memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self) else {
                if let function = member.decl.as(FunctionDeclSyntax.self), Self.isStatic(function.modifiers) {
                    declaredStatics.insert(function.name.text)
                }
                continue
            }
            let merged = variable.attributes.compactMap { $0.as(AttributeSyntax.self) }.first { $0.attributeName.trimmedDescription == "Merged" }
            if Self.isStatic(variable.modifiers) {
                for binding in variable.bindings {
                    if let name = binding.pattern.as(IdentifierPatternSyntax.self) { declaredStatics.insert(Self.plainName(name.identifier)) }
                }
                if let merged { diagnose(merged, .mergedOnStatic, in: context) }
                continue
            }
            if variable.modifiers.contains(where: { $0.name.tokenKind == .keyword(.lazy) }) {
                let name = variable.bindings.first?.pattern.trimmedDescription ?? "?"
                diagnose(variable, .lazyProperty(name: name), in: context)
                continue
            }
            for binding in variable.bindings {
                guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self) else {
                    diagnose(binding.pattern, .notASimpleName(pattern: binding.pattern.trimmedDescription), in: context)
                    continue
                }
                let name = Self.plainName(pattern.identifier)
                if Self.isComputed(binding) {
                    if let merged { diagnose(merged, .mergedOnComputed(name: name), in: context) }
                    continue
                }
                let key: String
                if let codingKeys {
                    guard let mapped = codingKeys[name] else {
                        if let merged { diagnose(merged, .mergedOnUncodedProperty(name: name), in: context) }
                        continue
                    }
                    key = mapped
                } else {
                    key = name
                }
                guard let rule = Self.rule(key: key, path: "\\Self.\(pattern.identifier.text)", merged: merged, in: context, failed: &failed) else {
                    continue
                }
                properties.append(Property(key: key, rule: rule))
            }
        }
    }

    private mutating func diagnose(_ node: some SyntaxProtocol, _ message: ModelDiagnostic, in context: some MacroExpansionContext) {
        context.diagnose(Diagnostic(node: node, message: message))
        if message.severity == .error { failed = true }
    }

    /// A name without backticks.
    static func plainName(_ token: TokenSyntax) -> String {
        token.identifier?.name ?? token.text
    }

    static func isStatic(_ modifiers: DeclModifierListSyntax) -> Bool {
        modifiers.contains { $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class) }
    }

    /// True for a computed property: a getter, or accessors other than observers.
    static func isComputed(_ binding: PatternBindingSyntax) -> Bool {
        switch binding.accessorBlock?.accessors {
        case .none: return false
        case .getter: return true
        case .accessors(let accessors):
            return accessors.contains { !["willSet", "didSet"].contains($0.accessorSpecifier.text) }
        }
    }

    /// The schema rule of one property: `.automatic(key, path)` or the strategy `@Merged` names.
    static func rule(key: String, path: String, merged: AttributeSyntax?, in context: some MacroExpansionContext, failed: inout Bool) -> String? {
        let head = "\(literal(key)), \(path)"
        guard let merged, case .argumentList(let arguments) = merged.arguments, let argument = arguments.first else {
            return ".automatic(\(head))"
        }
        let expression = argument.expression
        if let member = expression.as(MemberAccessExprSyntax.self), member.base == nil {
            return ".\(member.declName.baseName.text)(\(head))"
        }
        if let call = expression.as(FunctionCallExprSyntax.self), let member = call.calledExpression.as(MemberAccessExprSyntax.self),
           member.base == nil {
            let rest = call.arguments.map { $0.trimmedDescription.trimmingTrailingComma }.joined(separator: ", ")
            return ".\(member.declName.baseName.text)(\(head)\(rest.isEmpty ? "" : ", " + rest))"
        }
        context.diagnose(Diagnostic(node: expression, message: ModelDiagnostic.strategyNotALiteral))
        failed = true
        return nil
    }

    /// The coding keys a nested `CodingKeys` enum gives each property, or nil when there is none.
    static func codingKeys(of structDecl: StructDeclSyntax, in context: some MacroExpansionContext, failed: inout Bool) -> [String: String]? {
        for member in structDecl.memberBlock.members {
            guard let enumDecl = member.decl.as(EnumDeclSyntax.self), enumDecl.name.text == "CodingKeys" else { continue }
            var keys: [String: String] = [:]
            for caseMember in enumDecl.memberBlock.members {
                guard let caseDecl = caseMember.decl.as(EnumCaseDeclSyntax.self) else { continue }
                for element in caseDecl.elements {
                    let name = plainName(element.name)
                    if let raw = element.rawValue {
                        guard let string = raw.value.as(StringLiteralExprSyntax.self), let value = string.representedLiteralValue else {
                            context.diagnose(Diagnostic(node: raw.value, message: ModelDiagnostic.codingKeyNotALiteral(name: name)))
                            failed = true
                            continue
                        }
                        keys[name] = value
                    } else {
                        keys[name] = name
                    }
                }
            }
            return keys
        }
        return nil
    }
}

private extension String {
    var trimmingTrailingComma: String {
        hasSuffix(",") ? String(dropLast()) : self
    }
}
