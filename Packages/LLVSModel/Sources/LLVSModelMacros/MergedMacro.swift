import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@Merged(using:)`: a marker `@MergeableModel` reads. On its own it adds nothing; it
/// warns when the property is not in a `@MergeableModel` struct, where it would do nothing.
public struct MergedMacro: PeerMacro {
    public static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        guard declaration.is(VariableDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: ModelDiagnostic.mergedNotOnAProperty))
            return []
        }
        let inModel = context.lexicalContext.contains { enclosing in
            guard let structDecl = enclosing.as(StructDeclSyntax.self) else { return false }
            return structDecl.attributes.contains { $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription == "MergeableModel" }
        }
        if !inModel {
            context.diagnose(Diagnostic(node: node, message: ModelDiagnostic.mergedOutsideModel))
        }
        return []
    }
}
