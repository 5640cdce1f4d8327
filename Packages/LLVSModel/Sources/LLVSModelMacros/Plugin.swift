import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin of LLVSModel's macros.
@main
struct LLVSModelMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [MergeableModelMacro.self, MergedMacro.self]
}
