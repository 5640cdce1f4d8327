import Foundation
import LLVS
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writing results: text for people, JSON (`--json`) for scripts.
enum Output {
    /// Prints `value` as pretty, key-sorted JSON on stdout.
    static func json(_ value: some Encodable) throws {
        var data = try JSONEncoder.llvs.encode(value)
        data.append(UInt8(ascii: "\n"))
        raw(data)
    }

    /// Writes bytes to stdout unchanged.
    static func raw(_ data: Data) {
        FileHandle.standardOutput.write(data)
    }

    /// Prints a line on stdout.
    static func line(_ text: String) {
        raw(Data((text + "\n").utf8))
    }

    /// Prints a line on stderr.
    static func note(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// A count with its noun, singular for one: `1 version`, `2 versions`, `0 versions`.
    static func count(_ count: Int, _ noun: String, plural: String? = nil) -> String {
        "\(count) \(count == 1 ? noun : plural ?? noun + "s")"
    }

    /// True when stdout is a terminal.
    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) != 0 }

    /// The style of ``date(_:)``.
    private static let dateStyle = Date.ISO8601FormatStyle(dateSeparator: .dash, dateTimeSeparator: .space, timeSeparator: .colon, timeZone: .gmt)
        .year().month().day().time(includingFractionalSeconds: false)

    /// A version's date for people: `2026-11-22 10:04:05`, in UTC.
    static func date(_ timestamp: TimeInterval) -> String {
        Date(timeIntervalSinceReferenceDate: timestamp).formatted(dateStyle)
    }

    /// Bytes for people: `812 B`, `1.4 MB`.
    static func bytes(_ count: Int64) -> String {
        ByteCountFormatter.string(fromByteCount: count, countStyle: .file)
    }
}

/// A value's data in JSON: `text` when it is UTF-8, otherwise `base64`.
struct ValueDataJSON: Codable, Hashable {
    var size: Int
    var text: String?
    var base64: String?

    init(_ data: Data) {
        size = data.count
        if let text = String(data: data, encoding: .utf8) { self.text = text } else { base64 = data.base64EncodedString() }
    }
}

/// A version in JSON output.
struct VersionJSON: Codable, Hashable {
    var id: Version.ID
    var abbreviation: String
    var predecessors: [Version.ID]
    var date: Date
    var branch: String?
    var message: String?
    var isHead: Bool
    var isCurrent: Bool

    init(_ version: Version, abbreviation: String, isHead: Bool, isCurrent: Bool) {
        id = version.id
        self.abbreviation = abbreviation
        predecessors = version.predecessorIds
        date = Date(timeIntervalSinceReferenceDate: version.timestamp)
        branch = version.branch?.rawValue
        message = try? version.metadata[.message]?.value(String.self)
        self.isHead = isHead
        self.isCurrent = isCurrent
    }
}
