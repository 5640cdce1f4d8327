import Foundation

/// The JSON settings of every LLVS on-disk and wire format.
///
/// Objects are written with sorted keys and unescaped slashes, `Data` as base64 strings and
/// dates as seconds since 2001-01-01T00:00:00Z, so the same value always produces the same
/// bytes (SPEC.md, "Canonical JSON").
public enum CanonicalJSON {
    /// A new encoder configured for the canonical form.
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dataEncodingStrategy = .base64
        encoder.dateEncodingStrategy = .deferredToDate
        return encoder
    }

    /// A new decoder matching ``makeEncoder()``.
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dataDecodingStrategy = .base64
        decoder.dateDecodingStrategy = .deferredToDate
        return decoder
    }

    /// Encodes `value` canonically.
    ///
    /// - Throws: `EncodingError` when the value cannot be encoded.
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        try makeEncoder().encode(value)
    }

    /// Decodes a `T` from canonical (or any valid) JSON.
    ///
    /// - Throws: `DecodingError` naming the coding path of the first problem.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try makeDecoder().decode(type, from: data)
    }
}
