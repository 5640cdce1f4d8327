import Foundation
import LLVSCore

/// Moves values between their Swift types and ``JSONValue``, with the project's canonical
/// JSON settings (SPEC.md section 2: `Data` as base64, dates as seconds since 2001).
enum ModelCoding {
    /// One encoder and one decoder with the canonical settings, shared: making one costs as
    /// much as a small encoding, and they keep no state between calls. Saves encode with
    /// the encoder (the fastest way to a model's bytes); merges encode through
    /// ``JSONValueEncoder``, which writes sets in canonical order, so every replica writes
    /// the same merged bytes.
    static let encoder = CanonicalJSON.makeEncoder()
    static let decoder = CanonicalJSON.makeDecoder()

    /// The JSON form of `value` (``JSONValueEncoder``).
    ///
    /// - Throws: ``ModelError/unencodable(type:reason:)``.
    static func encode<T: Encodable>(_ value: T) throws(ModelError) -> JSONValue {
        do {
            return try JSONValueEncoder.encode(value)
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
