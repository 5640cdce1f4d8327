import Foundation
import LLVSCore

/// A type stored in a store as one value per instance, under the identifier
/// `<modelTypeIdentifier>/<instance identifier>` (``modelValueID(typeIdentifier:instanceIdentifier:)``).
///
/// `@MergeableModel` writes the conformance (type identifier, coding keys, model version);
/// a hand-written one needs only ``modelTypeIdentifier``.
public protocol StorableModel: Codable, SendableMetatype {
    /// The type's identifier in value identifiers: stable across renames of the Swift type,
    /// non-empty, without `/`.
    static var modelTypeIdentifier: String { get }

    /// The version of the type's stored form (1 by default). Stored values carry it (SPEC.md
    /// section 17); a value written by a newer version is never read, merged or rewritten by
    /// this one (``ModelError/newerModelVersion(valueId:stored:supported:)``).
    static var modelVersion: Int { get }

    /// Every key the type encodes, nil values included, or nil when unknown. A save keeps
    /// the stored members outside these keys (fields a newer app version wrote); when nil,
    /// it keeps those the new encoding lacks. The default is the merge schema's keys for a
    /// ``Mergeable`` type, else nil.
    static var modelCodingKeys: [String]? { get }
}

extension StorableModel {
    /// 1.
    public static var modelVersion: Int { 1 }

    /// The merge schema's keys for a ``Mergeable`` type, else nil.
    public static var modelCodingKeys: [String]? {
        (Self.self as? any Mergeable.Type).map(MergeSchemaCache.schema(of:))?.codingKeys
    }
}

extension StorableModel {
    /// The model a stored value holds (`data`, the value `valueId`), as a fetch reads it:
    /// for readers of values they got elsewhere (a diff, a projection).
    ///
    /// - Throws: ``ModelError/newerModelVersion(valueId:stored:supported:)`` for a value a
    ///   newer model version wrote, ``ModelError/notAModel(valueId:reason:)``,
    ///   ``ModelError/invalidModelVersion(valueId:found:)`` or
    ///   ``ModelError/undecodable(type:reason:)``.
    public static func decodeStored(_ data: Data, valueId: Value.ID) throws(ModelError) -> Self {
        try StoredModel.decode(Self.self, from: data, valueId: valueId)
    }
}

/// The reference LLVS's name of ``StorableModel``.
public typealias ModelValue = StorableModel

/// The value identifier of a model instance: `"<typeIdentifier>/<instanceIdentifier>"`.
/// Value identifiers are placed in the map by their SHA-256 (SPEC.md section 6), so the
/// instances of one type spread over the whole map like any other values.
public func modelValueID(typeIdentifier: String, instanceIdentifier: String) -> Value.ID {
    Value.ID("\(typeIdentifier)/\(instanceIdentifier)")
}

/// The model type identifier of a value identifier (before its first `/`), or nil when it
/// has none.
public func modelTypeIdentifier(from valueID: Value.ID) -> String? {
    let raw = valueID.rawValue
    guard let slash = raw.unicodeScalars.firstIndex(of: "/") else { return nil }
    return String(raw.unicodeScalars[..<slash])
}

/// The instance identifier of a value identifier (after its first `/`), or nil when it has
/// no `/`.
public func instanceIdentifier(from valueID: Value.ID) -> String? {
    let raw = valueID.rawValue
    guard let slash = raw.unicodeScalars.firstIndex(of: "/") else { return nil }
    return String(raw.unicodeScalars[raw.unicodeScalars.index(after: slash)...])
}

extension StorableModel {
    /// The value identifier of the instance `instanceIdentifier` of this type.
    ///
    /// - Throws: ``ModelError/invalidTypeIdentifier(_:)``.
    static func valueId(of instanceIdentifier: String) throws(ModelError) -> Value.ID {
        try validateTypeIdentifier()
        return modelValueID(typeIdentifier: modelTypeIdentifier, instanceIdentifier: instanceIdentifier)
    }

    /// The prefix of every value identifier of this type.
    ///
    /// - Throws: ``ModelError/invalidTypeIdentifier(_:)``.
    static func valueIdPrefix() throws(ModelError) -> String {
        try validateTypeIdentifier()
        return modelTypeIdentifier + "/"
    }

    /// - Throws: ``ModelError/invalidTypeIdentifier(_:)`` when empty or holding `/`.
    static func validateTypeIdentifier() throws(ModelError) {
        let identifier = modelTypeIdentifier
        guard !identifier.isEmpty, !identifier.unicodeScalars.contains("/"), identifier != "$schema" else {
            throw .invalidTypeIdentifier(identifier)
        }
    }
}
