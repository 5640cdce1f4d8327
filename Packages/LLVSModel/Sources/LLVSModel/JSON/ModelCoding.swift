import Foundation
import LLVSCore

/// Moves values between their Swift types and ``JSONValue``, with the project's canonical
/// JSON settings (SPEC.md section 2: `Data` as base64, dates as seconds since 2001).
enum ModelCoding {
    /// One encoder and one decoder with the canonical settings, shared: making one costs as
    /// much as a small encoding, and they keep no state between calls.
    static let encoder = CanonicalJSON.makeEncoder()
    static let decoder = CanonicalJSON.makeDecoder()

    /// The JSON form of `value`.
    ///
    /// - Throws: ``ModelError/unencodable(type:reason:)``.
    static func encode<T: Encodable>(_ value: T) throws(ModelError) -> JSONValue {
        let data: Data
        do {
            data = try encoder.encode(value)
        } catch {
            throw .unencodable(type: String(describing: T.self), reason: "\(error)")
        }
        return try parse(data, of: T.self)
    }

    /// The JSON form of the encoding `data` of a `T`.
    ///
    /// - Throws: ``ModelError/unencodable(type:reason:)``.
    static func parse<T>(_ data: Data, of type: T.Type) throws(ModelError) -> JSONValue {
        do {
            return try JSONValue(parsing: data)
        } catch {
            throw .unencodable(type: String(describing: T.self), reason: "\(error)")
        }
    }

    /// A `T` decoded from its JSON form.
    ///
    /// - Throws: ``ModelError/undecodable(type:reason:)``.
    static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws(ModelError) -> T {
        try decode(type, from: value.canonicalData)
    }

    /// A `T` decoded from JSON bytes.
    ///
    /// - Throws: ``ModelError/undecodable(type:reason:)``.
    static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws(ModelError) -> T {
        do {
            return try decoder.decode(type, from: data)
        } catch {
            throw .undecodable(type: String(describing: type), reason: "\(error)")
        }
    }
}
