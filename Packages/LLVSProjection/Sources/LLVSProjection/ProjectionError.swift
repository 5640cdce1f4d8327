import Foundation
import LLVSCore

/// What went wrong describing, opening or updating a projection. Each case names what was
/// wrong; a projection writes the store only when it drains an owned table's edits.
public enum ProjectionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A model type's columns could not be learned (see `ProjectionSchema.add(_:indexes:fullText:)`).
    case cannotDescribe(type: String, reason: String)
    /// A type was added twice, or two names of the projection's tables collide.
    case duplicateTable(String)
    /// A table or column name the projection keeps for itself (`llvs_…`, `sqlite_…`).
    case reservedName(String)
    /// An index or full-text column that is not one of the type's columns.
    case unknownColumn(type: String, column: String)
    /// The version to project is not in the store.
    case unknownVersion(Version.ID)
    /// A statement given to ``ModelProjection/fetch(_:sql:arguments:)`` did not select the
    /// projection's own columns (`llvs_id`, `llvs_version`, `llvs_data`).
    case missingColumn(String)
    /// A row of an owned table that does not make a model of its type (a column of the wrong
    /// type, a missing property): ``ModelProjection/drain(metadata:)`` saved nothing.
    case unsavableRow(type: String, instance: String, reason: String)
    /// The tables do not show a version of this schema yet: update the projection first.
    case notUpdated

    public var description: String {
        switch self {
        case let .cannotDescribe(type, reason): return "cannot learn the columns of model type '\(type)': \(reason)"
        case .duplicateTable(let name): return "the projection would have two tables named '\(name)'"
        case .reservedName(let name): return "'\(name)' is a name the projection keeps for itself"
        case let .unknownColumn(type, column): return "model type '\(type)' has no column '\(column)'"
        case .unknownVersion(let version): return "version \(version) is not in the store"
        case .missingColumn(let column): return "the query's rows have no column '\(column)'"
        case let .unsavableRow(type, instance, reason):
            return "the row '\(instance)' of owned table '\(type)' is not a '\(type)' model: \(reason)"
        case .notUpdated: return "the projection's tables show no version of its schema: call update(to:) first"
        }
    }
}
