import Foundation

/// Writes a ``JSONValue`` in canonical JSON (SPEC.md section 2): object keys in UTF-8 byte
/// order, no white space, only the escapes JSON requires (`\"`, `\\`, `\b \f \n \r \t`,
/// other characters below U+0020 as `\u00xx`), integers in decimal, doubles in the shortest
/// digits that read back (Swift's `Double.description` without a trailing `.0`).
public struct CanonicalJSONWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []

    /// An empty writer.
    public init() {}

    /// The canonical bytes of `value`.
    public static func bytes(of value: JSONValue) -> [UInt8] {
        var writer = CanonicalJSONWriter()
        writer.write(value)
        return writer.bytes
    }

    /// The canonical text of a finite double.
    public static func text(of value: Double) -> String {
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    /// Appends `value`.
    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let flag): bytes.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let number): bytes.append(contentsOf: number.canonicalText.utf8)
        case .string(let string): write(string)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                write(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let object):
            bytes.append(UInt8(ascii: "{"))
            for (index, member) in object.members.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                write(member.key)
                bytes.append(UInt8(ascii: ":"))
                write(member.value)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Appends a string with the canonical escapes.
    mutating func write(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                bytes.append(contentsOf: Array("\\u00".utf8))
                bytes.append(Self.hexDigits[Int(byte >> 4)])
                bytes.append(Self.hexDigits[Int(byte & 0x0F)])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
