import SwiftDiagnostics

/// What `@MergeableModel` and `@Merged` refuse, each with a way out.
enum ModelDiagnostic: DiagnosticMessage {
    case notAStruct(kind: String)
    case lazyProperty(name: String)
    case notASimpleName(pattern: String)
    case mergedOnComputed(name: String)
    case mergedOnStatic
    case mergedOnUncodedProperty(name: String)
    case mergedNotOnAProperty
    case mergedOutsideModel
    case strategyNotALiteral
    case versionNotALiteral
    case typeIdentifierNotALiteral
    case codingKeyNotALiteral(name: String)

    var message: String {
        switch self {
        case .notAStruct(let kind):
            return "@MergeableModel applies to a struct, not \(kind): models are values that merge property by property"
        case .lazyProperty(let name):
            return "@MergeableModel cannot merge the lazy property '\(name)': it is not stored until read; make it a stored property with a default, or a computed one"
        case .notASimpleName(let pattern):
            return "@MergeableModel cannot merge '\(pattern)': declare each property with its own name ('var a = …' and 'var b = …'), not a tuple pattern"
        case .mergedOnComputed(let name):
            return "@Merged has no effect on the computed property '\(name)': only stored properties are merged"
        case .mergedOnStatic:
            return "@Merged has no effect on a static property: only instance properties are stored and merged"
        case .mergedOnUncodedProperty(let name):
            return "@Merged has no effect on '\(name)': CodingKeys leaves it out, so it is neither stored nor merged"
        case .mergedNotOnAProperty:
            return "@Merged applies to a stored property"
        case .mergedOutsideModel:
            return "@Merged has no effect outside a @MergeableModel struct"
        case .strategyNotALiteral:
            return "@Merged(using:) takes a strategy written in place, such as .counter or .list(removal: .removalWins)"
        case .versionNotALiteral:
            return "@MergeableModel(version:) takes an integer literal of 1 or more"
        case .typeIdentifierNotALiteral:
            return "@MergeableModel(typeIdentifier:) takes a non-empty string literal without '/'"
        case .codingKeyNotALiteral(let name):
            return "@MergeableModel reads CodingKeys: give the case '\(name)' a string literal raw value"
        }
    }

    var diagnosticID: MessageID {
        MessageID(domain: "LLVSModelMacros", id: "\(self)".prefix { $0 != "(" }.description)
    }

    var severity: DiagnosticSeverity {
        switch self {
        case .mergedOnComputed, .mergedOnStatic, .mergedOnUncodedProperty, .mergedOutsideModel: return .warning
        default: return .error
        }
    }
}
