import Foundation
import LLVSCore

/// Why bytes are not a JSON document the model layer accepts.
public struct JSONParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The byte offset where the problem was found.
    public var offset: Int
    /// What is wrong.
    public var reason: String

    /// A sentence with the offset and the reason.
    public var description: String { "Not valid JSON at byte \(offset): \(reason)." }
}

/// A strict RFC 8259 parser into ``JSONValue``. It refuses what the canonical form cannot
/// hold rather than guess: a key twice in one object, a lone UTF-16 surrogate escape,
/// invalid UTF-8, a number too large for a double, nesting deeper than ``maximumDepth``
/// (so hostile input cannot exhaust the stack), and anything after the document.
public enum JSONParser {
    /// The deepest nesting of arrays and objects accepted.
    public static let maximumDepth = 256

    /// Parses a whole document.
    ///
    /// - Throws: ``JSONParseError``.
    public static func parse(_ data: Data) throws(JSONParseError) -> JSONValue {
        let result: Result<JSONValue, JSONParseError> = data.withUnsafeBytes { raw in
            var parser = Cursor(bytes: raw.bindMemory(to: UInt8.self))
            do throws(JSONParseError) {
                parser.skipWhitespace()
                let value = try parser.parseValue(depth: 0)
                parser.skipWhitespace()
                guard parser.index == parser.bytes.count else { throw parser.error("content after the document") }
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        func error(_ reason: String) -> JSONParseError {
            JSONParseError(offset: index, reason: reason)
        }

        mutating func skipWhitespace() {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
                index += 1
            }
        }

        mutating func expect(_ literal: StaticString, _ value: JSONValue) throws(JSONParseError) -> JSONValue {
            let count = literal.utf8CodeUnitCount
            guard index + count <= bytes.count else { throw error("the document ends inside a literal") }
            for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] {
                throw error("an unknown literal")
            }
            index += count
            return value
        }

        mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
            guard index < bytes.count else { throw error("the document ends where a value should start") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
            case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try parseString())
            case UInt8(ascii: "t"): return try expect("true", .bool(true))
            case UInt8(ascii: "f"): return try expect("false", .bool(false))
            case UInt8(ascii: "n"): return try expect("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
            default: throw error("an unexpected byte 0x\(String(bytes[index], radix: 16))")
            }
        }

        mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
            guard depth <= JSONParser.maximumDepth else { throw error("nesting deeper than \(JSONParser.maximumDepth)") }
            index += 1
            var members: [(key: String, value: JSONValue)] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(JSONObject())
            }
            while true {
                skipWhitespace()
                guard index < bytes.count else { throw error("the document ends inside an object") }
                guard bytes[index] == UInt8(ascii: "\"") else { throw error("an object key must be a string") }
                let keyOffset = index
                let key = try parseString()
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("a ':' must follow an object key") }
                index += 1
                skipWhitespace()
                let value = try parseValue(depth: depth)
                members.append((key, value))
                skipWhitespace()
                guard index < bytes.count else { throw error("the document ends inside an object") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard bytes[index] == UInt8(ascii: "}") else { throw error("',' or '}' must follow an object member") }
                index += 1
                // Canonical input is already in order: check before sorting.
                if zip(members, members.dropFirst()).contains(where: { compareUTF8($0.key, $1.key) >= 0 }) {
                    members.sort { compareUTF8($0.key, $1.key) < 0 }
                    for (previous, next) in zip(members, members.dropFirst()) where compareUTF8(previous.key, next.key) == 0 {
                        throw JSONParseError(offset: keyOffset, reason: "the key \(Self.quoted(next.key)) appears twice in one object")
                    }
                }
                return .object(JSONObject(sortedMembers: members))
            }
        }

        static func quoted(_ key: String) -> String {
            String(decoding: CanonicalJSONWriter.bytes(of: .string(key)), as: UTF8.self)
        }

        mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
            guard depth <= JSONParser.maximumDepth else { throw error("nesting deeper than \(JSONParser.maximumDepth)") }
            index += 1
            var elements: [JSONValue] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                skipWhitespace()
                elements.append(try parseValue(depth: depth))
                skipWhitespace()
                guard index < bytes.count else { throw error("the document ends inside an array") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard bytes[index] == UInt8(ascii: "]") else { throw error("',' or ']' must follow an array element") }
                index += 1
                return .array(elements)
            }
        }

        mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
            let start = index
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("a number needs a digit") }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
                if index < bytes.count, isDigit(bytes[index]) { throw error("a number may not start with 0") }
            } else {
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            var isInteger = true
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                isInteger = false
                index += 1
                guard index < bytes.count, isDigit(bytes[index]) else { throw error("a fraction needs a digit") }
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                isInteger = false
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard index < bytes.count, isDigit(bytes[index]) else { throw error("an exponent needs a digit") }
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            if isInteger, index - start <= 18 {
                // Up to 18 digits always fit in Int64: no text needed.
                var value: Int64 = 0
                let negative = bytes[start] == UInt8(ascii: "-")
                for position in (negative ? start + 1 : start)..<index { value = value * 10 + Int64(bytes[position] - UInt8(ascii: "0")) }
                if negative, value == 0 { return .double(-0.0) }
                return .integer(negative ? -value : value)
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            if isInteger {
                // "-0" is the canonical text of the double −0 (SPEC.md section 2), and reads back as it.
                if text == "-0" { return .double(-0.0) }
                if let value = Int64(text) { return .integer(value) }
                return .largeInteger(text)
            }
            guard let value = Double(text), value.isFinite else {
                throw JSONParseError(offset: start, reason: "the number \(text) is beyond a double's range")
            }
            return .double(value)
        }

        func isDigit(_ byte: UInt8) -> Bool {
            byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
        }

        mutating func parseString() throws(JSONParseError) -> String {
            index += 1
            // Most strings have no escapes: one validated copy of their bytes.
            var end = index
            while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20 { end += 1 }
            if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
                guard let string = String(validating: UnsafeBufferPointer(rebasing: bytes[index..<end]), as: UTF8.self) else {
                    throw JSONParseError(offset: index, reason: "a string that is not UTF-8")
                }
                index = end + 1
                return string
            }
            var scalars = String.UnicodeScalarView()
            var runStart = index
            func flushRun(_ end: Int) throws(JSONParseError) {
                guard runStart < end else { return }
                guard let run = String(validating: UnsafeBufferPointer(rebasing: bytes[runStart..<end]), as: UTF8.self) else {
                    throw JSONParseError(offset: runStart, reason: "a string that is not UTF-8")
                }
                scalars.append(contentsOf: run.unicodeScalars)
            }
            while true {
                guard index < bytes.count else { throw error("the document ends inside a string") }
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    try flushRun(index)
                    index += 1
                    return String(scalars)
                }
                if byte < 0x20 { throw error("a control character inside a string must be escaped") }
                if byte != UInt8(ascii: "\\") {
                    index += 1
                    continue
                }
                try flushRun(index)
                index += 1
                guard index < bytes.count else { throw error("the document ends inside an escape") }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    let unit = try parseHex4()
                    if (0xD800...0xDBFF).contains(unit) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw error("a high surrogate escape without its low surrogate")
                        }
                        index += 2
                        let low = try parseHex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("a high surrogate escape without its low surrogate") }
                        let value = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                        guard let scalar = Unicode.Scalar(value) else { throw error("an invalid escape") }
                        scalars.append(scalar)
                    } else {
                        guard let scalar = Unicode.Scalar(UInt32(unit)) else { throw error("a lone low surrogate escape") }
                        scalars.append(scalar)
                    }
                default:
                    throw error("an unknown escape")
                }
                runStart = index
            }
        }

        mutating func parseHex4() throws(JSONParseError) -> UInt16 {
            guard index + 4 <= bytes.count else { throw error("the document ends inside a \\u escape") }
            var value: UInt16 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw error("a \\u escape needs four hex digits")
                }
                value = value << 4 | UInt16(digit)
                index += 1
            }
            return value
        }
    }
}
