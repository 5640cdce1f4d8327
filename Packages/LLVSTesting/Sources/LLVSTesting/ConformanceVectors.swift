import Foundation

/// The language-neutral vectors of the repository's `conformance/` directory, which every
/// implementation of SPEC.md runs: these packages' tests and the Python port alike
/// (`conformance/README.md`).
public enum ConformanceVectors {
    /// What went wrong reading a vector file.
    public struct Failure: Error, CustomStringConvertible {
        /// What is wrong, naming the file.
        public var description: String
    }

    /// The repository's `conformance` directory, found from this file's place in it.
    public static var directory: URL {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<5 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("conformance")
    }

    /// One case of a format vector file: its name, its bytes (absent for checksum cases),
    /// the other fields as JSON, and for an invalid case the error class.
    public struct FormatCase: @unchecked Sendable {
        // Unchecked: `fields` holds JSON values (strings, numbers, arrays, dictionaries),
        // never changed after decoding.
        /// The case's name, for failure messages.
        public let name: String
        /// The bytes to decode (empty for a case without `bytes`).
        public let bytes: Data
        /// Every field of the case, as `JSONSerialization` decodes it.
        public let fields: [String: Any]
        /// The error class a reader reports (invalid cases only).
        public let errorClass: String?
    }

    /// The valid and invalid cases of `conformance/formats/<name>`.
    ///
    /// - Throws: ``Failure`` when the file is missing, is not a format vector file, has no
    ///   cases, or a case has no name or bytes that are not hexadecimal.
    public static func formatCases(_ name: String) throws -> (valid: [FormatCase], invalid: [FormatCase]) {
        let url = directory.appendingPathComponent("formats").appendingPathComponent(name)
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url))
        guard let file = object as? [String: Any], file["format"] as? String == "llvs-conformance-formats",
              let valid = file["valid"] as? [[String: Any]], let invalid = file["invalid"] as? [[String: Any]], !valid.isEmpty else {
            throw Failure(description: "\(url.path) is not a format vector file with cases")
        }
        let cases = { (objects: [[String: Any]]) throws -> [FormatCase] in
            try objects.map { fields in
                guard let name = fields["name"] as? String else { throw Failure(description: "a case of \(url.path) has no name") }
                return FormatCase(name: name, bytes: try bytes(fields["bytes"] as? String ?? ""), fields: fields,
                                  errorClass: fields["errorClass"] as? String)
            }
        }
        return (try cases(valid), try cases(invalid))
    }

    /// The JSON object of `conformance/<path>`.
    ///
    /// - Throws: ``Failure`` when the file is missing or is not a JSON object.
    public static func file(_ path: String) throws -> [String: Any] {
        let url = directory.appendingPathComponent(path)
        guard let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] else {
            throw Failure(description: "\(url.path) is not a JSON object")
        }
        return object
    }

    /// The bytes of a hexadecimal string (the vectors' form for bytes).
    ///
    /// - Throws: ``Failure`` when it is not an even number of hexadecimal digits.
    public static func bytes(_ hex: String) throws -> Data {
        var data = Data()
        var digits = hex.utf8.makeIterator()
        while let high = digits.next() {
            guard let low = digits.next(), let h = hexValue(high), let l = hexValue(low) else {
                throw Failure(description: "not hexadecimal: \(hex.prefix(40))")
            }
            data.append(h << 4 | l)
        }
        return data
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}
